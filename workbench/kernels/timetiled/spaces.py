"""The time-tiled stencils as tuning spaces: tile sizes x threads per work group.

A point is ``tT`` (time steps per band), ``tS1..tSd`` (tile sizes, axis 0 first,
the last axis contiguous in memory) and the lanes per axis (``bx`` along the
contiguous axis, then ``by``, ``bz``).  Its computation is ``T / tT`` launches of
its band kernel (a :class:`~workbench.kernels.space.LaunchSequence`), so ``T`` must be
a multiple of ``tT``; a point is feasible when its two local buffers fit the
per-group limit (48 KiB), its group has 32 to 1024 lanes, and no lane axis is wider
than the box it covers.

``baseline=1`` keeps the paper's *baseline experiments* (section 5.1): tiles whose
local footprint is at least 35% of the per-group limit (the paper maximizes the
footprint, then allows some hyper-threading) with four (2-D) or six (3-D) thread
shapes of whole warps (``BASELINE_THREADS``): over 300 points per 2-D and 3-D
stencil and size, a fraction of the feasible space the model searches (section 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection

import numpy as np

from workbench.errors import ParameterError
from workbench.kernels.space import LaunchSequence, Point, TuningSpace
from workbench.kernels.timetiled.generator import LOCAL_MEMORY_LIMIT, BandConfig, band_kernel
from workbench.kernels.timetiled.stencils import STENCILS, get_stencil

#: Tunable values per dimensionality (tiles along the contiguous axis in whole warps
#: for 1-D and 2-D, as the paper's t_S2 multiple of 32; 3-D tiles are too small to).
VALUES = {
    1: {"tT": (2, 4, 8, 16, 32, 64), "tS1": (256, 512, 1024, 2048, 4096),
        "bx": (32, 64, 128, 256, 512, 1024)},
    2: {"tT": (2, 4, 6, 8, 12, 16), "tS1": (4, 8, 12, 16, 24, 32, 48, 64),
        "tS2": (32, 64, 96, 128, 192, 256), "bx": (32, 64, 128), "by": (1, 2, 4, 8)},
    3: {"tT": (1, 2, 3, 4, 6), "tS1": (2, 4, 8, 12, 16), "tS2": (2, 4, 8, 12, 16),
        "tS3": (16, 32, 64, 96), "bx": (16, 32, 64), "by": (1, 2, 4, 8),
        "bz": (1, 2, 4)},
}
#: Default problem sizes (section 5 uses 4096^2 and 8192^2, 384^3 to 640^3, T in the
#: thousands; T here is a multiple of every tT and short enough to measure hundreds
#: of points on a device budget).
DEFAULT_PROBLEM = {1: {"S1": 1 << 20, "T": 256}, 2: {"S1": 4096, "S2": 4096, "T": 48},
                   3: {"S1": 256, "S2": 256, "S3": 256, "T": 24}}
_LANES = ("bx", "by", "bz")


def config(stencil: str, point: Point | dict, problem: dict) -> BandConfig:
    """The band kernel's configuration of a point."""
    d = get_stencil(stencil).dims
    return BandConfig(stencil, tuple(int(problem[f"S{i + 1}"]) for i in range(d)),
                      int(point["tT"]), tuple(int(point[f"tS{i + 1}"]) for i in range(d)),
                      tuple(int(point[_LANES[d - 1 - i]]) for i in range(d)))


def feasible(cfg: BandConfig) -> bool:
    lanes = math.prod(cfg.threads)
    return (cfg.local_bytes <= LOCAL_MEMORY_LIMIT and 32 <= lanes <= 1024
            and all(t <= e for t, e in zip(cfg.threads, cfg.extent)))


#: The baseline's thread shapes (numpy's axis order, contiguous axis last): whole
#: warps along the contiguous axis, 128 to 512 lanes.
BASELINE_THREADS = {1: {(128,), (256,), (512,)},
                    2: {(2, 64), (1, 128), (4, 64), (2, 128)},
                    3: {(1, 4, 32), (2, 2, 32), (1, 2, 64), (2, 4, 32), (1, 8, 32),
                        (1, 4, 64)}}


def in_baseline(cfg: BandConfig) -> bool:
    return (cfg.local_bytes >= 0.35 * LOCAL_MEMORY_LIMIT
            and cfg.threads in BASELINE_THREADS[len(cfg.threads)])


def make_inputs(stencil: str, problem: dict, rng: np.random.Generator) -> dict:
    d = get_stencil(stencil).dims
    shape = tuple(int(problem[f"S{i + 1}"]) + 2 for i in range(d))
    return {"u": rng.random(shape, dtype=np.float64).astype(np.float32)}


def reference(stencil: str, problem: dict, inputs) -> dict:
    out = get_stencil(stencil).reference(inputs["u"], int(problem["T"]))
    return {"out": out.astype(np.float32)}


def timetiled_space(stencil: str, *, baseline: int = 0,
                    only: Collection[str] | None = None, **sizes: int) -> TuningSpace:
    """The space of one stencil at one size (``S1``.., ``T``; defaults above).

    ``only``: just these point labels (``tT=..,tS1=..,..,bx=..``), with whatever
    values they take: the points a model picked outside the tunable values
    (section 6 measures every point predicted within 10% of the minimum); the
    baseline restriction does not apply to them.
    """
    st = get_stencil(stencil)
    defaults = DEFAULT_PROBLEM[st.dims]
    unknown = set(sizes) - set(defaults)
    if unknown:
        raise ParameterError(f"{stencil} has no size parameter {sorted(unknown)[0]!r} "
                             f"(sizes: {', '.join(defaults)})")
    problem = {**defaults, **{k: int(v) for k, v in sizes.items()}}
    if any(v < 1 for v in problem.values()):
        raise ParameterError(f"sizes must be positive, got {problem}")

    def cfg(p) -> BandConfig:
        return config(stencil, p, problem)

    restrictions: list = ["T % tT == 0", lambda p: feasible(cfg(p))]
    if baseline and only is None:
        restrictions.append(lambda p: in_baseline(cfg(p)))
    values = dict(VALUES[st.dims])
    if only is not None:
        wanted = [{k: int(v) for k, v in (x.split("=", 1) for x in label.split(","))}
                  for label in only]
        if not wanted or any(set(w) != set(values) for w in wanted):
            raise ParameterError(f"points of {stencil} name exactly "
                                 f"{', '.join(values)}: got {sorted(only)[:1]}")
        values = {k: tuple(sorted({w[k] for w in wanted})) for k in values}
        chosen = frozenset(tuple(w[k] for k in values) for w in wanted)
        restrictions.append(lambda p: tuple(int(p[k]) for k in values) in chosen)
    sizes_text = "x".join(str(problem[f"S{i + 1}"]) for i in range(st.dims))
    return TuningSpace(
        name=f"tt_{stencil}",
        description=f"time-tiled {st.description}, {sizes_text} float32, "
                    f"{problem['T']} steps: overlapped tiles (tT, tile sizes) x lanes"
                    + (" (baseline set)" if baseline else ""),
        tune_params=values, restrictions=tuple(restrictions),
        problem=problem, group_size=lambda p: cfg(p).group_size,
        kernel=lambda p: band_kernel(cfg(p)),
        local_bytes=lambda p: cfg(p).local_bytes,
        make_inputs=lambda rng=None: make_inputs(stencil, problem,
                                                 rng or np.random.default_rng(0)),
        reference=lambda inputs: reference(stencil, problem, inputs),
        sequence=LaunchSequence(lambda p: problem["T"] // int(p["tT"]), "u", "out"))


def _factory(stencil: str) -> Callable[..., TuningSpace]:
    def factory(baseline: int = 0, **sizes: int) -> TuningSpace:
        return timetiled_space(stencil, baseline=baseline, **sizes)
    factory.__name__ = f"{stencil}_space"
    factory.__doc__ = f"The time-tiled {stencil} space (see the module docstring)."
    return factory


#: One factory per stencil, of its sizes (``S1``.., ``T``) and ``baseline``.
TIMETILED_SPACES: dict[str, Callable[..., TuningSpace]] = {
    f"tt_{name}": _factory(name) for name in STENCILS}


#: The factories by module-level name, for ``FILE.py:NAME`` references (the
#: exploration's worker processes load spaces that way).
jacobi1d_space = TIMETILED_SPACES["tt_jacobi1d"]
jacobi2d_space = TIMETILED_SPACES["tt_jacobi2d"]
heat2d_space = TIMETILED_SPACES["tt_heat2d"]
laplacian2d_space = TIMETILED_SPACES["tt_laplacian2d"]
gradient2d_space = TIMETILED_SPACES["tt_gradient2d"]
heat3d_space = TIMETILED_SPACES["tt_heat3d"]
laplacian3d_space = TIMETILED_SPACES["tt_laplacian3d"]
