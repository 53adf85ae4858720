"""The fitted models the package carries, for an installation without ``sample_data/``.

``sample_data/<device>/`` is the measured record (stores, logs, fitted models with their
provenance) and stays in the repository; a wheel carries copies of the files that
prediction needs, in ``workbench/models/data/<device>/``: each device's
``default-model.json``, its fitted ``weights*.json`` and its measured ``bandwidth.json``
(the DRAM bandwidth of ``f_dram_stream_s``).  ``scripts/sync_package_data.py``
makes the copies and tests/test_package.py keeps them identical to their originals, so a
copy may stand in for a cited ``sample_data/h100/weights-linear.json`` wherever that path
is absent (an installed workbench run outside the checkout).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DATA_FOLDER = "data"


def packaged_models_root() -> Path:
    """``workbench/models/data``: one folder per device (an ordinary installation
    unpacks the package on disk, so this is a real folder)."""
    return Path(str(resources.files("workbench.models").joinpath(DATA_FOLDER)))


def packaged_devices() -> tuple[str, ...]:
    """The devices whose fitted models the package carries, by folder name."""
    root = packaged_models_root()
    if not root.is_dir():
        return ()
    return tuple(sorted(p.name for p in root.iterdir() if p.is_dir()))


def packaged_weights(device: str) -> tuple[Path, ...]:
    """The fitted model files the package carries for ``device`` (e.g. ``"h100"``)."""
    return tuple(sorted((packaged_models_root() / device).glob("weights*.json")))


def packaged_copy(path: str | Path) -> Path | None:
    """The package's copy of ``<device>/<file>``, the last two parts of ``path``
    (``sample_data/h100/weights-linear.json`` -> the packaged h100 copy); None when the
    package carries no such file."""
    parts = Path(path).parts
    if len(parts) < 2:
        return None
    copy = packaged_models_root() / parts[-2] / parts[-1]
    return copy if copy.is_file() else None


def measured_bandwidth_documents(device: str, *, packaged: bool = True):
    """Every ``*/bandwidth.json`` measured on ``device``, as (path, document), by folder
    name: the checkout's ``sample_data``, then, with ``packaged``, the copies the package
    carries (so that an installed wheel reads what the checkout does)."""
    import json

    from workbench.measure.samples import sample_data_root

    roots = (sample_data_root(), packaged_models_root() if packaged else None)
    for root in roots:
        if root is None or not root.is_dir():
            continue
        for path in sorted(root.glob("*/bandwidth.json")):
            try:
                document = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if document.get("device", {}).get("device") == device:
                yield path, document
