"""The catalog's kernel definitions, as plain :class:`KernelSpec` constants.

Measurement kernels (paper section 4.1): :mod:`.linalg` (matmul_tiled, matmul_naive,
transpose), :mod:`.vector` (vector_scale_add, global_access, filled_access),
:mod:`.arith`, :mod:`.empty`. Test kernels (section 5): :mod:`.stencil`
(finite_diff, convolution), :mod:`.linalg` (skinny_matmul), :mod:`.nbody`.

Definitions know nothing of the catalog that lists them
(:mod:`workbench.kernels.catalog`), so neither imports the other in a loop.
"""

from workbench.kernels.defs import arith, empty, linalg, nbody, stencil, vector

#: Every catalog kernel, in catalog order.
CATALOG_SPECS = (*arith.SPECS, *empty.SPECS, *linalg.SPECS, *nbody.SPECS, *stencil.SPECS,
                 *vector.SPECS)

__all__ = ["CATALOG_SPECS", "arith", "empty", "linalg", "nbody", "stencil", "vector"]
