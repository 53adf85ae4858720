"""The one place model families are registered; the CLI, the UI and the tuner look
them up here.  Each paper's model lives in its own package (``home``); this module
only lists them."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import ModelError, UnknownNameError
from workbench.models.contract import FittedModel, ModelFamily, Need
from workbench.models.expressions.model import ExpressionModel
from workbench.models.ir_features.family import IRKNNFamily
from workbench.models.packaged import packaged_copy
from workbench.models.roofline.family import RooflineModel
from workbench.models.space_order import SpaceOrderFamily
from workbench.models.tiling.family import TilingModel
from workbench.models.unified.linear import UnifiedLinearModel

MODEL_FAMILIES: dict[str, ModelFamily] = {
    family.name: family for family in (UnifiedLinearModel(), ExpressionModel(),
                                       RooflineModel(), TilingModel(), IRKNNFamily(),
                                       SpaceOrderFamily())
}


def get_family(name: str) -> ModelFamily:
    try:
        return MODEL_FAMILIES[name]
    except KeyError:
        raise UnknownNameError("model family", name, MODEL_FAMILIES) from None


def family_summary(family: ModelFamily) -> dict:
    """What ``workbench models`` shows of a family."""
    needs = sorted(family.needs, key=lambda n: list(Need).index(n))
    return {"family": family.name, "paper": family.paper.to_json(), "home": family.home,
            "needs": [n.value for n in needs],
            "predicts_from_kernel_alone": all(n.from_kernel_alone or
                                              n is Need.DEVICE_DESCRIPTION for n in needs),
            "description": family.describe()}


def check_writable(path: str | Path) -> None:
    """Fail before a long fit, not after it, when the output cannot be written."""
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise ModelError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")


def save_model(model: FittedModel, path: str | Path) -> None:
    """The model's document as JSON; ``X.json.xz`` is written compact and xz-compressed."""
    check_writable(path)
    try:
        if Path(path).suffix == ".xz":
            import lzma

            text = json.dumps(model.to_json(), separators=(",", ":")) + "\n"
            Path(path).write_bytes(lzma.compress(text.encode(),
                                                 preset=9 | lzma.PRESET_EXTREME))
            return
        Path(path).write_text(json.dumps(model.to_json(), indent=2) + "\n")
    except OSError as err:
        raise ModelError(f"cannot write model file {str(path)!r}: {err}") from None


def _text(path: Path) -> str:
    """A model file's text; ``X.json.xz`` is read through xz (a large learned model
    ships compressed)."""
    if path.suffix == ".xz":
        import lzma

        try:
            return lzma.decompress(path.read_bytes()).decode()
        except lzma.LZMAError as err:
            raise ModelError(f"{str(path)!r} is not an xz-compressed model file: {err}"
                             ) from None
    return path.read_text()


def load_model(path: str | Path) -> FittedModel:
    """A fitted model from its JSON file, by the file's ``family``.

    A shipped model's path (``sample_data/h100/weights-linear.json``) that is absent
    here, as outside the checkout, reads the package's identical copy
    (:mod:`workbench.models.packaged`)."""
    try:
        document = json.loads(_text(Path(path)))
    except FileNotFoundError:
        copy = packaged_copy(path)
        if copy is None:
            raise ModelError(f"model file {str(path)!r} does not exist") from None
        document = json.loads(_text(copy))
    except OSError as err:
        raise ModelError(f"cannot read model file {str(path)!r}: {err}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ModelError(f"{str(path)!r} is not a model file (not JSON: {err})") from None
    if not isinstance(document, dict) or "family" not in document:
        raise ModelError(f"{str(path)!r} is not a model file (no 'family')")
    return get_family(document["family"]).load(document)
