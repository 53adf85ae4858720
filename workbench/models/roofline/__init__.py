"""The data-volume model and extended roofline of Ernst et al. ("Opening the black box:
performance estimation during code generation for GPUs", 2021; ``docs/papers.md``,
``ernst-data-volumes``).

The estimator works on *address expressions*, not on one code generator's IR, as in
the paper (section III-B).  Modules, in the order data flows:

* :mod:`.address`: launch configurations, affine byte addresses in thread, block and
  loop coordinates with guards, thread groups (one block, a wave, the grid);
* :mod:`.from_loopy`: those addresses for a loopy kernel, from the shared access model
  (:mod:`workbench.properties.accesses`) with the size parameters fixed;
* :mod:`.footprint` and :mod:`.intervals`: exact unique footprints (bytes, sectors,
  lines) by enumeration, by ISL/barvinok, and by unions of contiguous runs (the fast
  exact method used by default);
* :mod:`.l1_loads`: L1 bank-conflict cycles and the sectors loads request, one
  instance per class of a looped load's address shifts;
* :mod:`.metrics`, :mod:`.waves`, :mod:`.reuse`: per-block
  L2 -> L1 volumes, DRAM volume per wave of concurrent blocks with L2 reuse
  distances, capacity-miss factors (:mod:`.distinct`: distinct integers by sorting,
  which numpy 2.4's hash-based ``np.unique`` is far slower at);
* :mod:`.limiters`: the four limiters (L1, L2, DRAM, FLOP) and the prediction;
* :mod:`.blocks`: ranking the block shapes of the paper's study (eq. 9);
* :mod:`.miss_fit`: fitting the capacity-miss functions to profiled volumes;
* :mod:`.family`: the model family ``roofline`` behind the common contract
  (:mod:`workbench.models.contract`): ``ready(device_model="h100")`` predicts from a
  kernel and a device description (:mod:`workbench.hardware`) alone;
* :mod:`.result_cache`: a space's per-point predictions kept on disk, so that a second
  session predicts nothing again.

Not covered: control flow beyond affine guards, indirect addressing and non-affine
(floor/mod) indices; sizes must be known when volumes are estimated (the paper's
"known at generation time").  The block-size study on the H100 is in
``sample_data/h100/README.md``.
"""

from workbench.models.roofline.address import (
    BLOCK_VARS, HW_VARS, THREAD_VARS, Access, AddressExpression, AffineExpression,
    Constraint, Direction, LaunchConfig, ThreadGroup)
from workbench.models.roofline.footprint import (
    METHODS, card_int, footprint, unique_bytes, unique_lines, unique_sectors,
    unique_units, unit_sets)
from workbench.models.roofline.from_loopy import accesses_from_loopy, launch_from_loopy
from workbench.models.roofline.l1_loads import l1_load_cycles
from workbench.models.roofline.metrics import (
    DramVolume, L2L1Volume, WaveVolume, capacity_miss_factor, capacity_miss_volume,
    dram_volume, l2_l1_volume, oversubscription)
from workbench.models.roofline.limiters import (
    Limiter, RooflineInputs, RooflinePrediction, estimate_inputs, predict_block, roofline)
from workbench.models.roofline.blocks import block_sizes, candidate_blocks, rank_blocks
from workbench.models.roofline.family import FittedRoofline, RooflineModel
from workbench.models.roofline.miss_fit import VolumeObservation, fit_miss_functions
from workbench.kernels.study import study_block_sizes
from workbench.models.roofline.waves import (
    linear_range_boxes, num_waves, wave_groups, wave_range)

__all__ = [
    "BLOCK_VARS", "HW_VARS", "METHODS", "THREAD_VARS", "Access", "AddressExpression",
    "AffineExpression", "Constraint", "Direction", "LaunchConfig", "ThreadGroup",
    "accesses_from_loopy", "card_int", "footprint", "launch_from_loopy",
    "unique_bytes", "unique_lines", "unique_sectors", "unique_units", "unit_sets",
    # metrics (workbench.models.roofline.metrics, .waves)
    "DramVolume", "L2L1Volume", "WaveVolume", "capacity_miss_factor",
    "capacity_miss_volume", "dram_volume", "l1_load_cycles", "l2_l1_volume",
    "linear_range_boxes", "num_waves", "oversubscription", "wave_groups", "wave_range",
    # extended roofline (workbench.models.roofline.limiters)
    "Limiter", "RooflineInputs", "RooflinePrediction", "block_sizes", "estimate_inputs",
    "predict_block", "rank_blocks", "roofline", "study_block_sizes", "candidate_blocks",
    # the model family and its fit (workbench.models.roofline.family, .miss_fit)
    "FittedRoofline", "RooflineModel", "VolumeObservation", "fit_miss_functions",
]
