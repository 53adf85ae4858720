"""The 2019 mechanism (Stevens & Klöckner, "A mechanism for balancing accuracy and
scope in cross-machine black-box GPU performance modeling"): user-written models.

A model is text, ``p_launch * f_sync_kernel_launch + smax(p_f * f_op_float32_add,
p_g * f_mem_access_global_float32_load_lstrides:{0:1})``, fitted by nonlinear least
squares on relative error.  Modules, in the order data flows:

* :mod:`.language`: reading the text safely (pymbolic's parser + a whitelist walker);
* :mod:`.features`: the ``f_`` names: property counts, constrained and tagged
  memory accesses (stride, AFR, bank passes), device features, the measured output;
* :mod:`.insitu`: features measured on the device: the work-removed twin's time
  (the paper's in-situ measurement; the transformation itself is
  :mod:`workbench.kernels.work_removal`) and the compute units' load balance;
* :mod:`.feature_values`: feature values for a kernel build or a dataset;
* :mod:`.expression`: the parsed model, smooth max, exact Jacobians;
* :mod:`.spec`: what a fit starts from (model, granularity, bounds, start values);
* :mod:`.model`: the model family ``expression`` (fit, fitted model, files).

The shipped models are ``models/overlap.json`` and ``models/insitu-overlap.json``.
Model-guided variant selection lives in :mod:`workbench.tuning.selection`.
"""

from workbench.models.expressions.expression import (
    SMOOTH_MAX_SOFTNESS,
    ModelExpression,
    parse_model,
    smooth_max,
    smooth_min,
)
from workbench.models.expressions.feature_values import (
    build_feature_values,
    dataset_feature_values,
    kernel_feature_values,
)
from workbench.models.expressions.features import parse_feature_ref
from workbench.models.expressions.insitu import (
    CU_BALANCE,
    TWIN_TIME,
    attach_twin_times,
    twin_times,
)
from workbench.models.expressions.model import (
    ExpressionModel,
    ExpressionModelSpec,
    FittedExpressionModel,
)

__all__ = [
    "CU_BALANCE", "SMOOTH_MAX_SOFTNESS", "TWIN_TIME", "ExpressionModel",
    "ExpressionModelSpec", "FittedExpressionModel", "ModelExpression",
    "attach_twin_times", "build_feature_values", "dataset_feature_values",
    "kernel_feature_values", "parse_feature_ref", "parse_model", "smooth_max",
    "smooth_min", "twin_times",
]
