"""Measurement-kernel generators of the 2019 paper (Stevens & Klöckner, "A mechanism
for balancing accuracy and scope in cross-machine black-box GPU performance
modeling", section on measurement kernel design).

The 2018 catalog (``workbench.kernels.defs``) holds a fixed set of measurement
kernels. The 2019 paper instead *generates* one small kernel per feature it wants to
calibrate, so that every feature can be measured in isolation:

* :func:`global_memory_pattern` (:mod:`.global_memory`): loads from a variable number
  of input arrays at an address with the requested strides along ``lid``/``gid``
  axes, sums the loads and stores one value per work item (or, for
  ``direction="store"``, stores with the requested pattern);
* :func:`arithmetic` (:mod:`.arithmetic_ops`): 32 private variables updated by one kind
  of operation in a loop of 64 inner trips, unrolled 64 times (fewer for division,
  pow and float64 rsqrt, see :func:`default_unroll`), ordered as in SHOC's MaxFlops
  so that no update depends on the four before it;
* :func:`local_memory_moves` (:mod:`.local_memory`): bank-conflict-free moves between
  local-memory locations, with barriers only where the moves need them;
* :func:`barriers` (:mod:`.barrier_kernels`): a controlled number of local barriers and
  nothing else;
* :func:`empty` (here): the catalog's empty kernel (launch overhead);
* :func:`fma_chain`, :func:`pointer_chase`, :func:`column_sum` (:mod:`.latency`): one
  work item's serial work and the loads a warp keeps in flight (not the paper's: the
  serial-work floor of :mod:`workbench.models.floors`), with the one-work-item checks
  :func:`sequential_matmul` and :func:`sequential_axpy`;
* :func:`local_tree_specs` (:mod:`.local_trees`): reduction trees, a Hillis-Steele
  scan and barrier-free local streams with some lanes idle, for the local-memory
  features of :mod:`workbench.models.local_features` (not the paper's either);
* :func:`reuse_stack_chain_specs` (:mod:`.reuse_stack_chains`): global loads served by
  L1 without a prefetch, a private array indexed by loaded keys, and exp/log chains,
  for the features of round 7 of issue #34 (not the paper's either).

:mod:`.common` holds the conventions shared by every generator (symbolic int32 size
parameters, full work groups of the 1-D set, values made from work-item indices
through int32 temporaries) and the helpers that implement them.

:func:`measurement_set_2019` bundles a default set. None of these specs is
registered in the catalog: the 2018 catalog and its campaign stay as they are.

Every public name of the submodules is re-exported here (``__all__``); the modules
are not named after the functions :func:`arithmetic` and :func:`barriers`, so that
neither shadows the other.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.kernels.base import DType, KernelSpec
from workbench.kernels.generators.arithmetic_ops import (
    ARITHMETIC_OPS,
    MIN_DEPENDENCY_DISTANCE,
    N_PRIVATE,
    PARTNER_OFFSET,
    UNROLL,
    arithmetic,
    arithmetic_op_counts,
    default_unroll,
    update_schedule,
)
from workbench.kernels.generators.barrier_kernels import barriers
from workbench.kernels.generators.common import (
    DEFAULT_GROUP_1D,
    DEFAULT_GROUP_2D,
    LOCAL_MEMORY_LIMIT,
    LOOP_ITEMS_FACTOR,
    SET_1D,
    SET_2D,
)
from workbench.kernels.generators.global_memory import (
    Direction,
    GlobalPattern,
    global_memory_pattern,
)
from workbench.kernels.generators.latency import (
    LATENCY_KERNELS,
    SEQUENTIAL_CHECKS,
    chase_cycle,
    column_sum,
    fma_chain,
    pointer_chase,
    sequential_axpy,
    sequential_matmul,
)
from workbench.kernels.generators.local_memory import (
    local_memory_counts,
    local_memory_moves,
)
from workbench.kernels.generators.local_trees import (
    LOCAL_TREE_KERNELS,
    TREE_VARIANTS,
    local_tree_specs,
)
from workbench.kernels.generators.reuse_stack_chains import reuse_stack_chain_specs

__all__ = [
    "ARITHMETIC_OPS", "DEFAULT_2D_LID_STRIDES", "DEFAULT_ARRAY_COUNTS",
    "DEFAULT_BARRIERS_PER_ITER", "DEFAULT_GROUP_1D", "DEFAULT_GROUP_2D",
    "DEFAULT_LOAD_STRIDES", "DEFAULT_MOVES_PER_BARRIER", "DEFAULT_STORE_STRIDES",
    "LATENCY_KERNELS", "LOCAL_MEMORY_LIMIT", "LOCAL_TREE_KERNELS", "TREE_VARIANTS", "LOOP_ITEMS_FACTOR", "MIN_DEPENDENCY_DISTANCE", "N_PRIVATE",
    "PARTNER_OFFSET", "SEQUENTIAL_CHECKS", "SET_1D", "SET_2D", "UNROLL", "Direction",
    "GlobalPattern", "arithmetic", "arithmetic_op_counts", "barriers", "chase_cycle",
    "column_sum", "default_unroll", "empty", "fma_chain", "global_memory_pattern",
    "local_memory_counts", "local_memory_moves", "local_tree_specs", "measurement_set_2019",
    "pointer_chase", "reuse_stack_chain_specs", "sequential_axpy", "sequential_matmul", "update_schedule",
]


# {{{ empty kernel and the default set

def empty() -> KernelSpec:
    """The catalog's empty kernel, unchanged: one launch-overhead kernel for both
    papers' campaigns, under the name the campaign already treats as the overhead."""
    from workbench.kernels.defs.empty import EMPTY
    return EMPTY


#: Lid strides and array counts of the default set's global loads (paper: the strides
#: that separate coalesced, partly and fully uncoalesced access).
DEFAULT_LOAD_STRIDES: tuple[int, ...] = (1, 2, 3, 4, 8, 32)
DEFAULT_ARRAY_COUNTS: tuple[int, ...] = (1, 2, 3, 4)
DEFAULT_STORE_STRIDES: tuple[int, ...] = (2, 3, 4, 8, 32)
#: 2-D lane strides (16x16 groups): half-used rows, and a transposed (column) read.
DEFAULT_2D_LID_STRIDES: tuple[tuple[int, int], ...] = ((1, 32), (16, 1))
DEFAULT_MOVES_PER_BARRIER: tuple[int, ...] = (1, 4)
DEFAULT_BARRIERS_PER_ITER: tuple[int, ...] = (1, 4)


def measurement_set_2019(dtypes: Sequence[str] = ("float32",)) -> tuple[KernelSpec, ...]:
    """The default 2019 measurement set.

    Per dtype: global loads from 1..4 arrays at lid strides 1, 2, 3, 4, 8, 32
    (contiguous groups, every 1-D group size); strided stores (lid strides 2, 3, 4, 8,
    32; stride-1 stores come with every load kernel); two 2-D patterns (16x16 groups);
    every arithmetic op; local moves with 1 and 4 moves per barrier. Once: barriers (1
    and 4 per iteration, the count per work item set by ``iters``) and the empty
    kernel. For float32 that is 42 kernels; on an H100 each one's smallest default
    case took 5 us to 3 ms.
    """
    specs: list[KernelSpec] = []
    for dtype in dtypes:
        dt = DType.parse(dtype).value
        specs += [global_memory_pattern(k, (s,), None, dt)
                  for s in DEFAULT_LOAD_STRIDES for k in DEFAULT_ARRAY_COUNTS]
        specs += [global_memory_pattern(1, (s,), None, dt, "store")
                  for s in DEFAULT_STORE_STRIDES]
        specs += [global_memory_pattern(1, lid, None, dt) for lid in DEFAULT_2D_LID_STRIDES]
        specs += [arithmetic(op, dt) for op in ARITHMETIC_OPS]
        specs += [local_memory_moves(dt, m) for m in DEFAULT_MOVES_PER_BARRIER]
    specs += [barriers(nb) for nb in DEFAULT_BARRIERS_PER_ITER]
    specs.append(empty())
    return tuple(specs)

# }}}

# vim: foldmethod=marker
