"""Time-tiled stencils (Prajapati et al.): kernels, driver, tuning spaces and
microbenchmarks.

* :mod:`.stencils`: the seven stencils (one update expression each) and their
  numpy time loop;
* :mod:`.generator`: the loopy kernel of one band of ``t_T`` steps, overlapped
  (ghost-zone) tiles in local memory, parametric in tile sizes and lanes; why not
  hexagonal tiles, said there;
* :mod:`.sequence`: the driver (a band per launch, back to back, timed as one) and
  the exploration runner's evaluator for launch sequences;
* :mod:`.spaces`: one tuning space per stencil and size (``TIMETILED_SPACES``);
* :mod:`.microbench`: the kernels measuring L, tau_sync, T_sync and C_iter.

The model is :mod:`workbench.models.tiling`.
"""

from workbench.kernels.timetiled.generator import LOCAL_MEMORY_LIMIT, BandConfig, band_kernel
from workbench.kernels.timetiled.microbench import (
    Micro,
    Microbenchmark,
    measure_microbenchmarks,
    microbenchmarks,
)
from workbench.kernels.timetiled.sequence import (
    SequenceEvaluator,
    SpanEvent,
    evaluator_for,
    run_sequence,
)
from workbench.kernels.timetiled.spaces import TIMETILED_SPACES, config, timetiled_space
from workbench.kernels.timetiled.stencils import STENCILS, Stencil, get_stencil

__all__ = ["LOCAL_MEMORY_LIMIT", "STENCILS", "TIMETILED_SPACES", "BandConfig", "Micro",
           "Microbenchmark", "SequenceEvaluator", "SpanEvent", "Stencil", "band_kernel",
           "config", "evaluator_for", "get_stencil", "measure_microbenchmarks",
           "microbenchmarks", "run_sequence", "timetiled_space"]
