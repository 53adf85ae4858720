"""The unified, hardware-fitted cross-GPU linear model (Stevens & Klöckner;
``docs/papers.md``, ``stevens-kloeckner-unified``).

Run time is a weighted sum of the kernel's symbolic properties (flops by kind, global
accesses by stride class and utilization, local accesses, barriers, groups, the
launch); the weights, in seconds per operation, are fitted per device to the
measurement kernels by least squares on relative error (:mod:`.linear`).  The paper's
Table 1 and Table 2 are :mod:`workbench.reports.tables`.  :mod:`.space_fit` fits the same
weights on measured tuning spaces (``workbench fit-ranking``).
"""

from workbench.models.unified.linear import (
    DEFAULT_FIT,
    FitMethod,
    FittedLinearModel,
    UnifiedLinearModel,
)
from workbench.models.unified.space_fit import (
    MeasuredSpace,
    Objective,
    fit_on_spaces,
    leave_one_out_runs,
    measure_space,
    ranking_times,
)

__all__ = ["DEFAULT_FIT", "FitMethod", "FittedLinearModel", "MeasuredSpace", "Objective",
           "UnifiedLinearModel", "fit_on_spaces", "leave_one_out_runs", "measure_space",
           "ranking_times"]
