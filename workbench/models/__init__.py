"""The models, one folder per paper, behind one contract and one registry.

* :mod:`.contract`: what every family and fitted model provides (describe, fit or
  ready, predict, rank, report data, JSON) and what each needs (:class:`Need`);
* :mod:`.registry`: the families by name, loading and saving model files;
* :mod:`.packaged`, :mod:`.defaults`: the fitted models the package carries (copies of
  ``sample_data/<device>/``) and the default one ``predict`` uses;
* :mod:`.dataset`: measurements and candidates joined with their kernels' counts;
* :mod:`.device_features`: registering features that depend on the device too;
  :mod:`.feature_rows`: the loop over candidates that computes them (NaN where a kernel
  cannot be built);
* :mod:`.candidate_features`, :mod:`.structure_counts`, :mod:`.structure_fit`,
  :mod:`.structure_share`, :mod:`.point_counts`, :mod:`.counting_pool`,
  :mod:`.count_cache`, :mod:`.global_bytes`: counting
  the candidates a model ranks (a factory space once per structure, a structure that
  counts as an earlier one from a few points, on a pool of counting processes that may
  be forked and warmed ahead, kept on disk);
* :mod:`.validation`: leave-one-kernel-out validation of a fitted family;
* :mod:`.explanation` (and :mod:`.terms`): one prediction explained: its terms in
  seconds, overlaps, floors, limiter and roofline point;
* :mod:`.floors` and :mod:`.parallelism`: the device's floors under every prediction
  (a launch of few work items: one item's serial work) and the caveats it carries;
* :mod:`.residency_penalty`: any model's predictions times 1 + 1/(groups resident per
  multiprocessor), from what a point declares (ranking a tuning space, issue #33);
* :mod:`.unified`: the 2018 unified linear model (Stevens & Klöckner);
* :mod:`.expressions`: the 2019 mechanism: model expressions, overlap, in-situ
  features (Stevens & Klöckner);
* :mod:`.roofline`: data volumes through L1/L2/DRAM and the extended roofline
  (Ernst et al.);
* :mod:`.tiling`: time-tiled stencils (Prajapati et al.), not built yet;
* :mod:`.ir_features`: IR features with PCA + kNN (Lift): so far the Table 1 features,
  the pipeline and its leave-one-benchmark-out evaluation (the paper's benchmarks, the
  family and the strategy to come).
"""

from workbench.models.contract import (
    Explains,
    FittedModel,
    ModelFamily,
    Need,
    Paper,
    Ranking,
    geometric_mean,
    relative_errors,
)
from workbench.models.dataset import (
    build_dataset,
    candidate_frame,
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
from workbench.models.explanation import Explanation, device_ceilings, explain
from workbench.models.terms import Account, Category, Overlap, TermShare
from workbench.models.floors import Bound, DeviceFloors, Floor, model_floors  # registers f_floor_s
from workbench.models.occupancy_features import use_build_info  # registers f_waves, ...
from workbench.models.volume_features import volume_values  # registers f_dram_bytes, ...
from workbench.models.local_features import local_values  # registers f_local_wavefronts, ...
from workbench.models.recurrence_features import recurrence_values  # registers f_recurrence_s
from workbench.models.substitution_features import substitution_values  # f_substitution_s
from workbench.models.reuse_stack_features import reuse_stack_values  # f_stack_sectors, ...
from workbench.models.reread_features import reread_values  # f_dram_reread_<dtype>_sectors
from workbench.models.row_walk_features import row_walk_values  # f_walk_<dtype>_..., f_op_<dtype>_erfc
from workbench.models.function_calls import function_call_values  # f_op_<dtype>_{exp,log,sqrt}_calls
from workbench.models.fma_pairs import fma_pair_values  # f_op_<dtype>_fma_pairs
from workbench.models.scattered_access_features import scattered_values  # f_partial_store_sectors, ...
from workbench.models.dependent_loads import dependent_load_values  # f_dependent_loads_<dtype>
from workbench.models.address_arithmetic import address_arithmetic_values  # f_op_<dtype>_address_*
from workbench.models.held_rereads import held_reread_values  # f_held_reread_<dtype>_load_sectors
from workbench.models.parallelism import Caveat, CaveatKind, LaunchUse
from workbench.models.roofline.family import FittedRoofline, RooflineModel
from workbench.models.unified.linear import (
    DEFAULT_FIT,
    FitMethod,
    FittedLinearModel,
    UnifiedLinearModel,
)
from workbench.models.registry import MODEL_FAMILIES, get_family, load_model, save_model
from workbench.models.residency_penalty import ResidencyPenalty, residency_factors
from workbench.models.structure_counts import CountMethod, StructureCount
from workbench.models.validation import (
    ExpressionFit,
    GroupSelection,
    KernelValidation,
    LinearFit,
    LokoReport,
    leave_one_kernel_out,
)

__all__ = [
    "Account", "Category", "Explains", "Explanation", "Overlap", "TermShare",
    "device_ceilings", "explain",
    "MODEL_FAMILIES", "Bound", "Caveat", "CaveatKind", "DeviceFloors", "Floor",
    "LaunchUse", "model_floors", "use_build_info", "ExpressionFit", "ExpressionModel", "ExpressionModelSpec",
    "DEFAULT_FIT", "FitMethod", "FittedExpressionModel", "FittedLinearModel", "FittedModel",
    "FittedRoofline",
    "GroupSelection", "KernelValidation", "LinearFit", "LokoReport", "ModelExpression",
    "ModelFamily", "Need", "Paper", "Ranking", "RooflineModel",
    "UnifiedLinearModel", "build_dataset", "candidate_frame", "feature_columns", "geometric_mean",
    "get_family", "leave_one_kernel_out", "load_model", "load_store_dataset", "parse_model",
    "relative_errors", "save_model", "smooth_max", "store_device",
    "CountMethod", "StructureCount", "ResidencyPenalty", "residency_factors",
]
