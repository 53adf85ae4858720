"""Model families (describe / fit / predict / report data) and their registry."""

from workbench.models.base import FittedModel, ModelFamily, geometric_mean, relative_errors
from workbench.models.dataset import build_dataset, feature_columns
from workbench.models.linear import FittedLinearModel, UnifiedLinearModel
from workbench.models.registry import MODEL_FAMILIES, get_family, load_model, save_model

__all__ = [
    "MODEL_FAMILIES", "FittedLinearModel", "FittedModel", "ModelFamily",
    "UnifiedLinearModel", "build_dataset", "feature_columns", "geometric_mean",
    "get_family", "load_model", "relative_errors", "save_model",
]
