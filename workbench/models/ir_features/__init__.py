"""Home of the IR-feature performance model for model-guided exploration (Lift:
low-level features of a high-level IR, PCA and k-nearest neighbours;
``../shared/papers/lift-ir-feature-performance-model.txt``).

What will live here: the paper's Table 1 features taken from loopy kernels before
any code generation (global and local sizes, local memory per group, global and local
loads and stores per work item, cache lines per warp access, barriers, branches and
loop bodies), a scikit-learn pipeline (standardization, PCA keeping 95% of the
variance, kNN with k = 5 on throughput normalized per input) evaluated leave one
benchmark out, and the model registered as a family and as a tuning strategy.

Built so far: the features.

* :mod:`.features`: :class:`IRFeature` (one per Table 1 feature, with its label) and
  :class:`IRFeatureVector` (one kernel's values);
* :mod:`.extract`: :func:`symbolic_ir_features` reads a loopy program once, its
  features symbolic in the sizes and tuning numbers; :func:`ir_features` evaluates
  them for one set of values;
* :mod:`.warps`: cache lines per warp access from the lane strides;
* :mod:`.control`: barriers, ``if`` statements and loop bodies from loopy's
  linearization;
* :mod:`.space`: :func:`space_ir_features`, a tuning space's points as a feature
  frame, one template read per structure.

Not built yet: the benchmarks, the kNN pipeline and its validation, the family and
the strategy.
"""

from workbench.models.ir_features.extract import (
    SymbolicIRFeatures,
    ir_features,
    symbolic_ir_features,
)
from workbench.models.ir_features.features import (
    FEATURE_ORDER,
    IRFeature,
    IRFeatureKind,
    IRFeatureVector,
)
from workbench.models.ir_features.space import space_ir_features
from workbench.models.ir_features.warps import CACHE_LINE_BYTES, WARP_SIZE

__all__ = [
    "CACHE_LINE_BYTES", "FEATURE_ORDER", "IRFeature", "IRFeatureKind", "IRFeatureVector",
    "SymbolicIRFeatures", "WARP_SIZE", "ir_features", "space_ir_features",
    "symbolic_ir_features",
]
