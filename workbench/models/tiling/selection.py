"""Tile-size selection (section 6): the model over the whole feasible space.

The paper's optimization problem (eq. 31) is non-convex in integers, so it
enumerates: evaluate T_alg at every feasible point, keep those within 10% of the
predicted minimum, and measure them.  :func:`feasible_grid` is that space (tile
sizes over wide ranges, the thread shapes of the baseline; ``T`` a multiple of
``t_T``, as the driver needs), :func:`evaluate_grid` the model on all of it at once
(numpy: about a million points per second), :func:`near_minimum` the points to
measure; :func:`heatmap` is T_alg over two tile sizes (Figure 4).

Selection with builds (an option, round 4 of issue 34): where the form estimates
registers per point from the tile shape (``resident-lane-passes``), the search finds
that estimate's errors.  :func:`top_candidates` takes the model's first ``count``
points, the caller builds them (``workbench.tuning.tiling_builds.built_registers``:
a build, no run, reads the registers from ``-cl-nv-verbose``), and
:func:`reprice_with_registers` prices them again with their own registers; the picks
are those within 10 % of the new minimum.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.tiling.points import TileArrays, problem_of, stencil_dims
from workbench.models.tiling.schemes import Scheme

#: Ranges of the feasible space per dimensionality: tT, then each tile size (axis 0
#: first; the contiguous axis in whole warps or half warps).
RANGES = {
    1: {"tT": range(1, 129), "tS1": range(32, 8193, 32)},
    2: {"tT": range(1, 33), "tS1": range(1, 129), "tS2": range(32, 513, 32)},
    3: {"tT": range(1, 13), "tS1": range(1, 33), "tS2": range(1, 33),
        "tS3": range(16, 257, 16)},
}
#: Thread shapes searched (lanes along the contiguous axis first: bx, by, bz).
THREADS = {1: ((128,), (256,), (512,)),
           2: ((64, 2), (128, 1), (64, 4), (128, 2)),
           3: ((32, 4, 1), (32, 2, 2), (64, 2, 1), (32, 4, 2), (32, 8, 1), (64, 4, 1))}
_LANES = ("bx", "by", "bz")


def feasible_grid(dims: int, T: int, *, scheme: Scheme = Scheme.OVERLAPPED,
                  ranges: Mapping[str, Sequence[int]] | None = None,
                  threads: Sequence[tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
    """Every combination of the ranges and thread shapes with ``T % tT == 0`` (and
    ``tT`` even for the paper's schemes), as columns."""
    ranges = dict(ranges or RANGES[dims])
    tT = np.array([t for t in ranges["tT"] if T % t == 0 and
                   (scheme is Scheme.OVERLAPPED or t % 2 == 0)], dtype=np.int64)
    if tT.size == 0:
        raise ModelError(f"no tT in the searched range divides T={T}")
    axes = [tT] + [np.asarray(list(ranges[f"tS{i + 1}"]), dtype=np.int64)
                   for i in range(dims)]
    mesh = np.meshgrid(*axes, indexing="ij")
    columns = {"tT": mesh[0].ravel()}
    for i in range(dims):
        columns[f"tS{i + 1}"] = mesh[i + 1].ravel()
    shapes = list(threads or THREADS[dims])
    n = columns["tT"].size
    out = {k: np.tile(v, len(shapes)) for k, v in columns.items()}
    for j, name in enumerate(_LANES[:dims]):
        out[name] = np.repeat(np.array([s[j] for s in shapes], dtype=np.int64), n)
    return out


def evaluate_grid(model, stencil: str, sizes: Mapping[str, int],
                  grid: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """The model's quantities at every point of ``grid``, feasible points only, sorted
    by predicted time (fastest first)."""
    dims = sum(1 for k in grid if k.startswith("tS"))
    tiles = TileArrays.of_grid(grid, dims)
    q = model.quantities(stencil, problem_of(sizes, dims), tiles)
    ok = q.feasible.copy()
    if model.scheme is Scheme.OVERLAPPED:    # no lane axis wider than its box
        lanes = [np.asarray(grid[a]) for a in _LANES[:dims]]
        for i in range(dims):
            ok &= lanes[dims - 1 - i] <= tiles.t_S[i] + 2 * tiles.t_T
    frame = pd.DataFrame({**{k: np.asarray(v) for k, v in grid.items()},
                          **q.columns()})[ok]
    return frame.sort_values("T_alg_s", kind="stable").reset_index(drop=True)


def near_minimum(frame: pd.DataFrame, within: float = 0.10) -> pd.DataFrame:
    """The points predicted within ``within`` of the minimum (the paper measures
    these)."""
    if frame.empty:
        raise ModelError("no feasible point: every tile size breaks a constraint")
    best = float(frame["T_alg_s"].iloc[0])
    return frame[frame["T_alg_s"] <= best * (1 + within)]


def point_labels(frame: pd.DataFrame, dims: int) -> list[str]:
    """The rows as tuning-space point labels (``tT=..,tS1=..,bx=..``)."""
    names = ["tT", *(f"tS{i + 1}" for i in range(dims)), *_LANES[:dims]]
    return [",".join(f"{n}={int(v)}" for n, v in zip(names, row))
            for row in frame[names].itertuples(index=False)]


def top_candidates(model, stencil: str, sizes: Mapping[str, int], count: int, *,
                   keep=None) -> pd.DataFrame:
    """The model's first ``count`` feasible points over :func:`feasible_grid`, fastest
    first; ``keep(label)``: only points it accepts (e.g. those the generator builds)."""
    dims = stencil_dims(stencil)
    frame = evaluate_grid(model, stencil, sizes, feasible_grid(
        dims, int(sizes["T"]), scheme=model.scheme))
    labels = point_labels(frame, dims)
    rows = [i for i, lb in enumerate(labels) if keep is None or keep(lb)][:count]
    out = frame.iloc[rows].reset_index(drop=True)
    out.insert(0, "label", [labels[i] for i in rows])
    return out


def reprice_with_registers(model, stencil: str, sizes: Mapping[str, int],
                           candidates: pd.DataFrame, registers: Mapping[str, float]
                           ) -> pd.DataFrame:
    """``candidates`` (:func:`top_candidates`) priced again with each point's own
    registers where ``registers`` has them (the estimate elsewhere): columns
    ``estimated_s`` (the first price), ``registers`` (NaN: not built) and ``T_alg_s``,
    fastest first."""
    dims = stencil_dims(stencil)
    points = [{k: int(v) for k, v in (x.split("=", 1) for x in lb.split(","))}
              for lb in candidates["label"]]
    regs = np.array([float(registers[lb]) if registers.get(lb) is not None else np.nan
                     for lb in candidates["label"]])
    q = model.quantities(stencil, problem_of(sizes, dims), TileArrays.of(points, dims),
                         registers=regs)
    out = pd.DataFrame({"label": candidates["label"],
                        "estimated_s": candidates["T_alg_s"].to_numpy(),
                        "registers": regs, "T_alg_s": q.T_alg})
    out = out[np.isfinite(out["T_alg_s"])]
    return out.sort_values("T_alg_s", kind="stable").reset_index(drop=True)


def grid_size(dims: int) -> int:
    return int(np.prod([len(v) for v in RANGES[dims].values()])) * len(THREADS[dims])




def heatmap(model, stencil: str, sizes: Mapping[str, int], x: str, y: str,
            fixed: Mapping[str, int], *, ranges: Mapping[str, Sequence[int]] | None = None
            ) -> pd.DataFrame:
    """T_alg over two tile sizes with the others fixed (the paper's Figure 4: Heat 2D
    over ``tT`` and ``tS2`` at ``tS1 = 8``): rows ``y``, columns ``x``, NaN where
    infeasible.  ``fixed`` gives every other tile size and the lanes."""
    dims = stencil_dims(stencil)
    names = ["tT", *(f"tS{i + 1}" for i in range(dims)), *_LANES[:dims]]
    if x == y or {x, y} - set(names):
        raise ModelError(f"a heatmap needs two different axes among {', '.join(names)}")
    lacking = [n for n in names if n not in (x, y) and n not in fixed]
    if lacking:
        raise ModelError(f"fix {', '.join(lacking)} for a heatmap over {x} and {y}")
    ranges = dict(ranges or RANGES[dims])
    xs = np.asarray(list(ranges[x]), dtype=np.int64)
    ys = np.asarray(list(ranges[y]), dtype=np.int64)
    X, Y = np.meshgrid(xs, ys)
    grid = {n: (X.ravel() if n == x else Y.ravel() if n == y
                else np.full(X.size, int(fixed[n]), dtype=np.int64)) for n in names}
    tiles = TileArrays.of_grid(grid, dims)
    q = model.quantities(stencil, problem_of(sizes, dims), tiles)
    values = np.where(q.feasible & np.isfinite(q.T_alg), q.T_alg, np.nan)
    return pd.DataFrame(values.reshape(Y.shape), index=pd.Index(ys, name=y),
                        columns=pd.Index(xs, name=x))
