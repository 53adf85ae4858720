"""The catalog's kernel definitions, as plain :class:`KernelSpec` constants.

Measurement kernels (paper section 4.1): :mod:`.linalg` (matmul_tiled, matmul_naive,
transpose), :mod:`.vector` (vector_scale_add, global_access, filled_access),
:mod:`.arith`, :mod:`.empty`. Test kernels (section 5): :mod:`.stencil`
(finite_diff, convolution), :mod:`.linalg` (skinny_matmul), :mod:`.nbody`.
Unseen kernels, of our own design and never fitted on: :mod:`.unseen`
(row_sum_squares, dot_partial, batched_gemv, batched_small_gemm) and
:mod:`.unseen_grid` (gather_stride5, stencil9_prefetch, star7_3d).

Definitions know nothing of the catalog that lists them
(:mod:`workbench.kernels.catalog`), so neither imports the other in a loop.
"""

from workbench.kernels.defs import (
    arith,
    empty,
    linalg,
    nbody,
    stencil,
    unseen,
    unseen_grid,
    vector,
)

#: The unseen kernels (role UNSEEN), in catalog order.
UNSEEN_SPECS = (*unseen.SPECS, *unseen_grid.SPECS)

#: Every catalog kernel, in catalog order; the unseen kernels come last.
CATALOG_SPECS = (*arith.SPECS, *empty.SPECS, *linalg.SPECS, *nbody.SPECS, *stencil.SPECS,
                 *vector.SPECS, *UNSEEN_SPECS)

__all__ = ["CATALOG_SPECS", "UNSEEN_SPECS", "arith", "empty", "linalg", "nbody", "stencil",
           "unseen", "unseen_grid", "vector"]
