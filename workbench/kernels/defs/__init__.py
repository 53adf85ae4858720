"""The catalog's kernel definitions; importing this package registers all of them.

Measurement kernels (paper section 4.1): :mod:`.linalg` (matmul_tiled, matmul_naive,
transpose), :mod:`.vector` (vector_scale_add, global_access, filled_access),
:mod:`.arith`, :mod:`.empty`. Test kernels (section 5): :mod:`.stencil`
(finite_diff, convolution), :mod:`.linalg` (skinny_matmul), :mod:`.nbody`.
"""

from workbench.kernels.defs import arith, empty, linalg, nbody, stencil, vector

__all__ = ["arith", "empty", "linalg", "nbody", "stencil", "vector"]
