"""The measured data shipped with the workbench (``sample_data/<device>/``).

Each folder holds a device's measurement store (``measurements.sqlite``, shipped
xz-compressed as ``measurements.sqlite.xz`` and opened directly), its fitted
models (``weights-*.json``) and block-size studies
(``block-study-predicted*.csv`` or ``.csv.xz``), so that the data can be explored and compared
without that device.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.errors import StoreError
from workbench.measure.store import MeasurementStore, resolve_store_path

STORE_FILE = "measurements.sqlite"
LINEAR_WEIGHTS_FILE = "weights-linear.json"
NON_NEGATIVE_WEIGHTS_FILE = "weights-linear-non-negative.json"


@dataclass(frozen=True)
class ShippedData:
    """One device's shipped campaigns; ``device`` is the name its store records."""

    name: str
    device: str
    folder: Path
    store: Path
    weights: tuple[Path, ...]
    block_studies: tuple[Path, ...]

    @property
    def linear_weights(self) -> Path | None:
        """The unified linear model fitted on ``store``, when shipped."""
        path = self.folder / LINEAR_WEIGHTS_FILE
        return path if path in self.weights else None

    @property
    def default_linear_weights(self) -> Path | None:
        """The linear model fitted the default way (every weight >= 0) when shipped,
        else :attr:`linear_weights` (the paper's free fit): what the dashboard shows."""
        path = self.folder / NON_NEGATIVE_WEIGHTS_FILE
        return path if path in self.weights else self.linear_weights


def sample_data_root() -> Path | None:
    """``sample_data`` of the checkout this package runs from, else of the working
    folder or one above it; None when there is none (an installed wheel)."""
    package_checkout = Path(__file__).resolve().parents[2]
    for folder in (package_checkout, Path.cwd(), *Path.cwd().parents):
        if (folder / "sample_data").is_dir():
            return folder / "sample_data"
    return None


def shipped_data(root: str | Path | None = None) -> tuple[ShippedData, ...]:
    """Every device folder under ``root`` (default :func:`sample_data_root`) with a
    readable store, by folder name."""
    root = Path(root) if root is not None else sample_data_root()
    if root is None or not root.is_dir():
        return ()
    found = []
    for folder in sorted(p for p in root.iterdir()
                         if resolve_store_path(p / STORE_FILE) is not None):
        try:
            with MeasurementStore.open(folder / STORE_FILE, create=False,
                                       readonly=True) as store:
                devices = store.devices()
        except StoreError:
            continue  # not a store this workbench can read: nothing to explore there
        if not devices:
            continue
        found.append(ShippedData(
            name=folder.name, device=devices[0].device, folder=folder,
            store=folder / STORE_FILE,
            weights=tuple(sorted(folder.glob("weights-*.json"))),
            block_studies=_one_file_per_study(folder)))
    return tuple(found)


def _one_file_per_study(folder: Path) -> tuple[Path, ...]:
    """Each block study once: its ``.csv`` where both it and a ``.csv.xz`` lie there."""
    plain = {p.name: p for p in folder.glob("block-study-predicted*.csv")}
    packed = [p for p in folder.glob("block-study-predicted*.csv.xz")
              if p.name[:-len(".xz")] not in plain]
    return tuple(sorted([*plain.values(), *packed]))
