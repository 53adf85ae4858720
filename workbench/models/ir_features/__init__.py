"""Home of the IR-feature performance model for model-guided exploration (Lift:
low-level features of a high-level IR, PCA and k-nearest neighbours;
Remmelg et al., GPGPU '20; ``docs/papers.md``, ``lift-ir-features``).

Here: the paper's Table 1 features taken from loopy kernels before
any code generation (global and local sizes, local memory per group, global and local
loads and stores per work item, cache lines per warp access, barriers, branches and
loop bodies), a scikit-learn pipeline (standardization, PCA keeping 95% of the
variance, kNN with k = 5 on throughput normalized per input) evaluated leave one
benchmark out, and the model registered as a family and as a tuning strategy.

* :mod:`.features`: :class:`IRFeature` (one per Table 1 feature, with its label) and
  :class:`IRFeatureVector` (one kernel's values);
* :mod:`.extract`: :func:`symbolic_ir_features` reads a loopy program once, its
  features symbolic in the sizes and tuning numbers; :func:`ir_features` evaluates
  them for one set of values;
* :mod:`.warps`: cache lines per warp access from the lane strides;
* :mod:`.control`: barriers, ``if`` statements and loop bodies from loopy's
  linearization;
* :mod:`.space`: :func:`space_ir_features`, a tuning space's points as a feature
  frame, one template read per structure (:func:`space_ir_features_started`: the
  same, read by worker processes while the caller does other work);
* :mod:`.samples`: sample frames (features, benchmark, input, time, throughput
  normalized per input), from any feature frame (:func:`ir_samples`) or a measured
  tuning space (:func:`space_samples`), saved and loaded as CSV with provenance;
* :mod:`.gpu`: :func:`gpu_feature_frame`, what decides speed on a given GPU and Table 1
  leaves out (occupancy, waves, the last wave's fill, output bytes over L2), derived from
  the Table 1 columns and a device description; ``KNNConfig(device="h100")`` and
  ``BoostedConfig(device=...)`` add them;
* :mod:`.knn`: :class:`KNNConfig` and :func:`fit_ir_knn`, the paper's pipeline
  (standardization, PCA to 95 % of the variance, kNN with k = 5);
* :mod:`.boosted`: :class:`BoostedConfig` and :func:`fit_ir_boosted`, a
  gradient-boosted-trees ranker on the same features, the comparison point;
* :mod:`.lobo`: :func:`leave_one_benchmark_out` (correlation, runs to 90 % and 95 %
  in predicted order against random search's expectation, per held-out benchmark
  and input, for either model) and :func:`feature_information` (each feature's
  normalized mutual information with performance, Figure 4);
* :mod:`.family`: the family ``ir-knn``, whose predictions are relative times, not
  seconds (the kNN learns from other programs' spaces, normalized per input).

The strategies ``knn`` and ``xgb`` are in :mod:`workbench.tuning.ir_strategies`;
``benchmarks/lift_exploration.py`` evaluates everything on the paper's eight
benchmarks measured on the H100.
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
from workbench.models.ir_features.boosted import BoostedConfig, IRBoostedModel, fit_ir_boosted
from workbench.models.ir_features.gpu import GPU_FEATURES, GPUFeature, gpu_feature_frame
from workbench.models.ir_features.knn import IRKNNModel, KNNConfig, fit_ir_knn
from workbench.models.ir_features.lobo import (
    FeatureInformation,
    HeldOut,
    expected_runs,
    feature_information,
    information_frame,
    leave_one_benchmark_out,
    lobo_frame,
)
from workbench.models.ir_features.samples import (
    ir_samples,
    load_samples,
    save_samples,
    space_samples,
)
from workbench.models.ir_features.space import (
    StartedFeatures,
    space_ir_features,
    space_ir_features_started,
)
from workbench.models.ir_features.warps import CACHE_LINE_BYTES, WARP_SIZE

__all__ = [
    "BoostedConfig", "CACHE_LINE_BYTES", "FEATURE_ORDER", "FeatureInformation",
    "GPUFeature", "GPU_FEATURES", "HeldOut", "IRBoostedModel", "IRFeature",
    "IRFeatureKind", "IRFeatureVector", "IRKNNModel", "KNNConfig", "StartedFeatures",
    "SymbolicIRFeatures",
    "WARP_SIZE", "expected_runs", "feature_information", "fit_ir_boosted", "fit_ir_knn",
    "gpu_feature_frame", "information_frame", "ir_features", "ir_samples",
    "leave_one_benchmark_out", "load_samples", "lobo_frame", "save_samples",
    "space_ir_features", "space_ir_features_started", "space_samples",
    "symbolic_ir_features",
]
