"""Tuning-space points and candidates as the model's arrays.

A time-tiled space (:mod:`workbench.kernels.timetiled.spaces`) is named
``tt_<stencil>``; its points carry ``tT``, ``tS1``.. and the lanes ``bx``, ``by``,
``bz``; its problem ``S1``.. and ``T``.  These helpers turn a list of such points (or
labels) into the columns :func:`~workbench.models.tiling.schemes.quantities` takes,
without building a kernel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.models.tiling.schemes import Problem, Scheme

PREFIX = "tt_"
#: Spaces of the paper's own scheme (:mod:`workbench.kernels.timetiled.hexspaces`).
HEX_PREFIX = "hx_"
_LANES = ("bx", "by", "bz")


def stencil_of(space_name: str) -> str:
    name = space_name.split(".", 1)[1] if space_name.startswith("tune.") else space_name
    if not name.startswith((PREFIX, HEX_PREFIX)):
        raise ModelError(f"the tiling model predicts time-tiled stencil spaces "
                         f"(tt_<stencil>, hx_<stencil>), not {space_name!r}")
    return name[len(HEX_PREFIX if name.startswith(HEX_PREFIX) else PREFIX):]


def scheme_of(space_name: str, dims: int) -> Scheme:
    """The tiling a space generates: hexagonal/hybrid for ``hx_``, overlapped else."""
    name = space_name.split(".", 1)[1] if space_name.startswith("tune.") else space_name
    return Scheme.paper(dims) if name.startswith(HEX_PREFIX) else Scheme.OVERLAPPED


def stencil_dims(stencil: str) -> int:
    from workbench.kernels.timetiled.stencils import get_stencil
    return get_stencil(stencil).dims


def problem_of(sizes: Mapping[str, int], dims: int) -> Problem:
    try:
        return Problem(tuple(int(sizes[f"S{i + 1}"]) for i in range(dims)), int(sizes["T"]))
    except KeyError as err:
        raise ModelError(f"a time-tiled problem needs S1..S{dims} and T; missing "
                         f"{err.args[0]!r}") from None


def parse_label(label: str) -> dict[str, int]:
    try:
        return {k: int(v) for k, v in (p.split("=", 1) for p in label.split(",") if p)}
    except ValueError:
        raise ModelError(f"not a time-tiled point label: {label!r}") from None


@dataclass(frozen=True, eq=False)
class TileArrays:
    """Tile sizes and lanes of many points (one entry each); ``lanes``: per axis,
    axis 0 first (``by, bx`` in 2-D), where known (the load-pass form needs them)."""

    t_T: np.ndarray
    t_S: tuple[np.ndarray, ...]
    n_thr: np.ndarray
    lanes: tuple[np.ndarray, ...] | None = None

    @classmethod
    def of_grid(cls, grid: Mapping[str, np.ndarray], dims: int) -> TileArrays:
        """From columns ``tT``, ``tS1``.. and the lanes ``bx``, ``by``.."""
        lanes = tuple(np.asarray(grid[_LANES[dims - 1 - i]], dtype=np.int64)
                      for i in range(dims))
        return cls(np.asarray(grid["tT"]), tuple(np.asarray(grid[f"tS{i + 1}"])
                                                 for i in range(dims)),
                   np.prod(lanes, axis=0), lanes)

    @classmethod
    def of(cls, points: Sequence[Mapping[str, int]], dims: int) -> TileArrays:
        try:
            t_T = np.array([int(p["tT"]) for p in points], dtype=np.int64)
            t_S = tuple(np.array([int(p[f"tS{i + 1}"]) for p in points], dtype=np.int64)
                        for i in range(dims))
            lanes = tuple(np.array([int(p[_LANES[dims - 1 - i]]) for p in points],
                                   dtype=np.int64) for i in range(dims))
        except KeyError as err:
            raise ModelError(f"a time-tiled point needs tT, tS1..tS{dims} and the lanes "
                             f"{', '.join(_LANES[:dims])}; missing {err.args[0]!r}") from None
        return cls(t_T, t_S, np.prod(lanes, axis=0).astype(np.int64), lanes)
