"""The time model and tile-size selection for time-tiled stencils (Prajapati et al.,
"Simple, accurate, analytical time modeling and optimal tile size selection for
GPGPU stencils"; PPoPP '17; ``docs/papers.md``, ``prajapati-time-tiling``).

The kernels, driver, tuning spaces and microbenchmarks are in
:mod:`workbench.kernels.timetiled`.  Modules, in the order data flows:

* :mod:`.machine`: hardware facts (Table 2) and the measured calibration (Tables 3
  and 4: L, tau_sync, T_sync, C_iter per stencil);
* :mod:`.calibrate`: that calibration from stored microbenchmark timings;
* :mod:`.registers`: registers per work item from NVIDIA's ``-cl-nv-verbose`` log;
* :mod:`.schemes`: the section-4 quantities (N_w, w, m_i, m_o, m', c, k, T_tile(k),
  T_alg) and feasibility (eq. 31) per scheme, vectorized; the overlapped tiles'
  formulas re-derived there; the paper's form and the resident-latency extension
  (:class:`~.schemes.Form`) of the hexagonal/hybrid equations;
* :mod:`.points`: tuning-space points as the model's arrays;
* :mod:`.validation`: section 5.3, predicted against measured, RMSE over all points
  and near the best;
* :mod:`.problem_fit`: the lane-rows form's constants fitted on measured problem
  points (rounds 5-7 of issue 34; 1-D: round 7);
* :mod:`.selection`: section 6, the model over the whole feasible space;
* :mod:`.family`: the family ``tiling`` behind the common contract, and its ranking
  of a whole tuning space.
"""

from workbench.models.tiling.calibrate import (
    calibration,
    calibration_from_measurements,
    rows_from_measurements,
    tables,
)
from workbench.models.tiling.family import TilingModel, TilingTimeModel, with_registers
from workbench.models.tiling.machine import (
    H100,
    HARDWARE,
    TilingCalibration,
    TilingHardware,
    calibration_file,
    load_calibration,
    save_calibration,
    shipped_calibration,
)
from workbench.models.tiling.points import (
    TileArrays,
    parse_label,
    problem_of,
    stencil_dims,
    stencil_of,
)
from workbench.models.tiling.registers import KernelRegisters, parse_registers, registers_of
from workbench.models.tiling.schemes import Form, Problem, Scheme, TileQuantities, quantities
from workbench.models.tiling.selection import (
    RANGES,
    THREADS,
    evaluate_grid,
    feasible_grid,
    heatmap,
    near_minimum,
    point_labels,
    reprice_with_registers,
    top_candidates,
)
from workbench.models.tiling.validation import (
    compare,
    measured_frame,
    near_best,
    rmse,
    summary,
)

__all__ = ["H100", "HARDWARE", "RANGES", "THREADS", "Form", "KernelRegisters", "Problem",
           "Scheme",
           "TileArrays", "TileQuantities", "TilingCalibration", "TilingHardware",
           "TilingModel", "TilingTimeModel", "calibration", "calibration_from_measurements",
           "evaluate_grid", "feasible_grid", "heatmap", "calibration_file", "load_calibration", "near_minimum",
           "parse_label", "parse_registers", "point_labels", "problem_of", "quantities",
           "registers_of", "rows_from_measurements", "save_calibration",
           "shipped_calibration", "stencil_dims", "stencil_of", "tables", "with_registers",
           # validation (section 5.3)
           "compare", "measured_frame", "near_best", "rmse", "summary",
           # selection with builds (issue 34, round 4)
           "reprice_with_registers", "top_candidates"]
