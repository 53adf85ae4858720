"""The model ``workbench predict`` uses when none is named.

Each shipped device folder may hold ``default-model.json``, which names one of its
fitted model files and why it was chosen: the most accurate model, by leave-one-
kernel-out validation on that device's data, among those that predict from the
kernel alone (no measurement of the kernel itself).  The choice is data, written
with the validation figures, so that it moves when new measurements say so.

It is read from the package (:mod:`workbench.models.packaged`: the copies of
``sample_data/<device>/default-model.json`` and its weights), so that an installed
workbench predicts outside the checkout just as the checkout does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import ModelError
from workbench.models.contract import FittedModel, Need
from workbench.models.packaged import packaged_models_root
from workbench.models.registry import load_model

DEFAULT_MODEL_FILE = "default-model.json"
SCHEMA = "workbench.default_model"


@dataclass(frozen=True)
class DefaultModel:
    device: str            # the shipped folder's name, e.g. "h100"
    path: Path
    reason: str
    model: FittedModel


def _device_folders(root: str | Path | None) -> tuple[Path, list[Path]]:
    """``root`` (default: the package's copies) and its device folders, by name."""
    root = Path(root) if root is not None else packaged_models_root()
    return root, sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def default_model(root: str | Path | None = None) -> DefaultModel:
    """The first device's default model (by folder name) under ``root``: a folder of
    device folders, as ``sample_data/`` is; default the package's copies."""
    root, folders = _device_folders(root)
    for folder in folders:
        pointer = folder / DEFAULT_MODEL_FILE
        if not pointer.is_file():
            continue
        document = json.loads(pointer.read_text())
        if document.get("schema") != SCHEMA:
            raise ModelError(f"{pointer} is not a {SCHEMA} file")
        path = folder / document["weights"]
        model = load_model(path)
        if Need.TWIN_MEASUREMENTS in getattr(model, "needs", ()):
            raise ModelError(f"{pointer} names {path.name}, a model that needs a "
                             "measurement of the kernel: a default must not")
        return DefaultModel(folder.name, path, document.get("reason", ""), model)
    raise ModelError(f"no shipped default model in {root} (<device>/{DEFAULT_MODEL_FILE}): "
                     "name one with --weights MODEL.json, or --model roofline "
                     "--device-model h100")


#: the fit a model-guided tuning strategy ranks with when none is named, with the
#: residency penalty: the configuration of every tuning study and live run on the H100
#: (``sample_data/h100/structure-ranking.md``, sections 13 and 38-44).  The prediction
#: default orders user spaces better but its features cost 5.7 to 37 times as much to
#: count (section 43), more than the runs its order saves.
RANKING_WEIGHTS = "weights-linear-non-negative.json"


@dataclass(frozen=True)
class DefaultRankingModel:
    device: str            # the shipped folder's name, e.g. "h100"
    path: Path
    model: FittedModel     # the fit under the residency penalty

    @property
    def label(self) -> str:
        return f"ranking-default:{self.path.stem}+residency"


def default_ranking_model(root: str | Path | None = None) -> DefaultRankingModel:
    """The first device's shipped ranking fit (by folder name) under ``root`` (default:
    the package's copies), wrapped in the residency penalty."""
    from workbench.models.residency_penalty import ResidencyPenalty

    root, folders = _device_folders(root)
    for folder in folders:
        path = folder / RANKING_WEIGHTS
        if path.is_file():
            return DefaultRankingModel(folder.name, path, ResidencyPenalty(load_model(path)))
    raise ModelError(f"no shipped ranking model in {root} (<device>/{RANKING_WEIGHTS}): "
                     "name one with --weights MODEL.json")
