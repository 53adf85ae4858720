"""The stencils of Prajapati et al. (section 5): Jacobi 1D/2D, Heat 2D/3D,
Laplacian 2D/3D and Gradient 2D, each a first-order (radius 1) stencil.

A stencil is one update expression over named neighbours (``c`` the point itself,
``w``/``e`` along the last, contiguous axis, ``n``/``s`` along the one before,
``b``/``f`` along the first of three).  The same text drives the loopy kernel (each
name becomes a subscript of the local tile) and the numpy reference (pymbolic
evaluates it over shifted arrays), so the two cannot drift apart.

The paper gives the benchmarks' names, not their coefficients; ours are stable
forms (the iteration neither blows up nor underflows over thousands of steps), so
that results stay checkable against float64 numpy:

* ``jacobi1d``: ``(w + c + e) / 3``;
* ``jacobi2d``: the 5-point mean;
* ``heat2d``/``heat3d``: explicit heat equation, ``c + 0.125*(x- - 2c + x+)`` per axis;
* ``laplacian2d``/``laplacian3d``: ``c + k*(sum of neighbours - 2*d*c)``;
* ``gradient2d``: ``c + 0.0625/sqrt(1 + sum of squared differences)`` (a special
  function and a division per point, why its C_iter is the largest in Table 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from pymbolic import evaluate as pymbolic_evaluate
from pymbolic import parse as pymbolic_parse

from workbench.errors import UnknownNameError

#: Neighbour names and their offsets per dimensionality (radius 1).
_NEIGHBOURS = {
    1: {"c": (0,), "w": (-1,), "e": (1,)},
    2: {"c": (0, 0), "n": (-1, 0), "s": (1, 0), "w": (0, -1), "e": (0, 1)},
    3: {"c": (0, 0, 0), "b": (-1, 0, 0), "f": (1, 0, 0), "n": (0, -1, 0),
        "s": (0, 1, 0), "w": (0, 0, -1), "e": (0, 0, 1)},
}


#: Functions an update may call (numpy's for the reference; OpenCL's in the kernel).
_FUNCTIONS = {"sqrt"}


@dataclass(frozen=True)
class Stencil:
    """One iterated stencil ``A^t(s) = f(A^{t-1}(s + a) for a in offsets)``.

    ``flops`` counts the floating-point operations of one point update (a special
    function or a division counting one), the paper's measure of GFlop/s.
    """

    name: str
    dims: int
    expression: str
    flops: int
    description: str

    def __post_init__(self):
        if self.dims not in _NEIGHBOURS:
            raise ValueError(f"stencil {self.name!r}: {self.dims} dimensions")
        unknown = self.names - set(_NEIGHBOURS[self.dims])
        if unknown:
            raise ValueError(f"stencil {self.name!r} names {sorted(unknown)}, not "
                             f"neighbours of a {self.dims}-D point")

    @property
    def radius(self) -> int:
        return 1

    @cached_property
    def parsed(self):
        return pymbolic_parse(self.expression)

    @property
    def names(self) -> set[str]:
        from pymbolic.mapper.dependency import DependencyMapper

        deps = DependencyMapper(include_calls=False)(pymbolic_parse(self.expression))
        return {d.name for d in deps} - _FUNCTIONS

    @property
    def offsets(self) -> Mapping[str, tuple[int, ...]]:
        """The neighbours the expression reads, name -> offset."""
        return {k: v for k, v in _NEIGHBOURS[self.dims].items() if k in self.names}

    def step(self, grid: np.ndarray) -> np.ndarray:
        """One time step of the whole grid (its outer layer is the fixed boundary)."""
        inner = tuple(slice(1, n - 1) for n in grid.shape)
        values = {}
        for name, off in self.offsets.items():
            values[name] = grid[tuple(slice(1 + o, n - 1 + o)
                                      for o, n in zip(off, grid.shape))]
        out = grid.copy()
        out[inner] = pymbolic_evaluate(self.parsed, {**values, "sqrt": np.sqrt})
        return out

    def reference(self, grid: np.ndarray, steps: int) -> np.ndarray:
        """``steps`` time steps in float64: the plain time loop results are checked
        against."""
        out = np.asarray(grid, dtype=np.float64)
        for _ in range(steps):
            out = self.step(out)
        return out


STENCILS: dict[str, Stencil] = {s.name: s for s in (
    Stencil("jacobi1d", 1, "(w + c + e)*0.33333334", 3,
            "3-point Jacobi (mean of a point and its two neighbours)"),
    Stencil("jacobi2d", 2, "(c + n + s + w + e)*0.2", 5, "5-point Jacobi"),
    Stencil("heat2d", 2, "c + 0.125*(s - 2*c + n) + 0.125*(e - 2*c + w)", 10,
            "explicit 2-D heat equation"),
    Stencil("laplacian2d", 2, "c + 0.125*(n + s + w + e - 4*c)", 7,
            "relaxation by the 5-point Laplacian"),
    Stencil("gradient2d", 2, "c + 0.0625/sqrt(1 + (c - n)*(c - n) + (c - s)*(c - s)"
            " + (c - w)*(c - w) + (c - e)*(c - e))", 15,
            "gradient-magnitude update (a square root and a division per point)"),
    Stencil("heat3d", 3, "c + 0.125*(f - 2*c + b) + 0.125*(s - 2*c + n)"
            " + 0.125*(e - 2*c + w)", 15, "explicit 3-D heat equation"),
    Stencil("laplacian3d", 3, "c + 0.0625*(b + f + n + s + w + e - 6*c)", 9,
            "relaxation by the 7-point Laplacian"),
)}


def get_stencil(name: str) -> Stencil:
    try:
        return STENCILS[name]
    except KeyError:
        raise UnknownNameError("time-tiled stencil", name, STENCILS) from None
