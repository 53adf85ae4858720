"""Time-tiled stencils (Prajapati et al.): kernels, tuning spaces and microbenchmark
kernels.

* :mod:`.stencils`: the seven stencils (one update expression each) and their
  numpy time loop;
* :mod:`.generator`: the loopy kernel of one band of ``t_T`` steps, overlapped
  (ghost-zone) tiles in local memory, parametric in tile sizes and lanes; why not
  hexagonal tiles, said there;
* :mod:`.spaces`: one tuning space per stencil and size (``TIMETILED_SPACES``), a
  point being a launch sequence of bands;
* :mod:`.microbench`: the kernels measuring L, tau_sync, T_sync and C_iter.

Running them sits above, in the tuning layer: the driver (a band per launch, back to
back, timed as one) is :mod:`workbench.tuning.sequence`, exploring a space on a
device :mod:`workbench.tuning.timetiled_campaign`, timing the microbenchmarks
:mod:`workbench.tuning.timetiled_microbench`.  The model is
:mod:`workbench.models.tiling`.
"""

from workbench.kernels.timetiled.generator import LOCAL_MEMORY_LIMIT, BandConfig, band_kernel
from workbench.kernels.timetiled.microbench import (
    Micro,
    Microbenchmark,
    hex_microbenchmarks,
    microbenchmarks,
    quick_hex_microbenchmarks,
    quick_microbenchmarks,
)
from workbench.kernels.timetiled.spaces import TIMETILED_SPACES, config, timetiled_space
from workbench.kernels.timetiled.stencils import STENCILS, Stencil, get_stencil

__all__ = ["LOCAL_MEMORY_LIMIT", "STENCILS", "TIMETILED_SPACES", "BandConfig", "Micro",
           "Microbenchmark", "Stencil", "band_kernel", "config", "get_stencil",
           "hex_microbenchmarks", "microbenchmarks", "quick_hex_microbenchmarks",
           "quick_microbenchmarks", "timetiled_space"]
