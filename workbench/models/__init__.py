"""Model families (describe / fit / predict / report data) and their registry."""

from workbench.models.contract import FittedModel, ModelFamily, geometric_mean, relative_errors
from workbench.models.dataset import (
    build_dataset,
    feature_columns,
    load_store_dataset,
    store_device,
)
from workbench.models.expressions import ModelExpression, parse_model, smooth_max
from workbench.models.expressions.model import (
    ExpressionModel,
    ExpressionModelSpec,
    FittedExpressionModel,
)
from workbench.models.unified.linear import FittedLinearModel, UnifiedLinearModel
from workbench.models.registry import MODEL_FAMILIES, get_family, load_model, save_model

__all__ = [
    "MODEL_FAMILIES", "ExpressionModel", "ExpressionModelSpec", "FittedExpressionModel",
    "FittedLinearModel", "FittedModel", "ModelExpression", "ModelFamily",
    "UnifiedLinearModel", "build_dataset", "feature_columns", "geometric_mean",
    "get_family", "load_model", "load_store_dataset", "parse_model", "relative_errors",
    "save_model", "smooth_max", "store_device",
]
