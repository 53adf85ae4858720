"""Hexagonal (1-D) and hybrid hexagonal/classic (2-D) tiles as tuning spaces,
``hx_<stencil>``, beside the overlapped tiles' ``tt_<stencil>``
(:mod:`.spaces`): the same point names (``tT``, ``tS1``.., lanes ``bx``, ``by``),
problems (``S1``.., ``T``) and checks, the paper's own scheme
(:mod:`.hexagonal`).

A point is ``2 T / tT + 1`` launches of one kernel (argument ``b``: the launch's
number), updating the two-level array ``a`` in place.  Feasible: ``tT`` even and a
divisor of ``T``, the local window within 48 KiB, 32 to 1024 lanes, no lane axis wider
than the rows it covers (with their halo).  ``baseline=1`` keeps, as the overlapped
baseline does, 2-D tiles whose local footprint is at least 35% of the limit, with the
baseline's thread shapes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection

import numpy as np

from workbench.errors import ParameterError
from workbench.kernels.timetiled.hexagonal import (
    LOCAL_MEMORY_LIMIT,
    HexConfig,
    hexagonal_kernel,
    hexagonal_reference,
    initial_state,
)
from workbench.kernels.timetiled.stencils import STENCILS, get_stencil
from workbench.kernels.space import LaunchSequence, Point, TuningSpace

PREFIX = "hx_"
#: Tunable values: t_T even; t_S2 whole warps (eq. 31), t_S1 the hexagon's base.
VALUES = {
    1: {"tT": (2, 4, 8, 16, 32, 64), "tS1": (64, 128, 256, 512, 1024, 2048),
        "bx": (64, 128, 256, 512)},
    2: {"tT": (2, 4, 6, 8, 12, 16), "tS1": (2, 4, 8, 12, 16, 24, 32),
        "tS2": (32, 64, 128, 256), "bx": (64, 128), "by": (1, 2, 4)},
}
DEFAULT_PROBLEM = {1: {"S1": 1 << 20, "T": 256}, 2: {"S1": 4096, "S2": 4096, "T": 48}}
BASELINE_THREADS = {1: {(128,), (256,), (512,)}, 2: {(2, 64), (1, 128), (4, 64), (2, 128)}}
_LANES = ("bx", "by")


def hex_config(stencil: str, point: Point | dict, problem: dict) -> HexConfig:
    d = get_stencil(stencil).dims
    return HexConfig(stencil, tuple(int(problem[f"S{i + 1}"]) for i in range(d)),
                     int(problem["T"]), int(point["tT"]),
                     tuple(int(point[f"tS{i + 1}"]) for i in range(d)),
                     tuple(int(point[_LANES[d - 1 - i]]) for i in range(d)))


def feasible(cfg: HexConfig) -> bool:
    lanes = math.prod(cfg.threads)
    covered = (cfg.width, cfg.tiles[1] + 2) if cfg.dims == 2 else (cfg.width,)
    return (cfg.local_bytes <= LOCAL_MEMORY_LIMIT and 32 <= lanes <= 1024
            and all(t <= c for t, c in zip(cfg.threads, covered)))


def in_baseline(cfg: HexConfig) -> bool:
    """1-D tiles use a few KiB at most (no footprint floor; the paper measured no
    1-D baseline): the baseline's thread shapes only."""
    big = cfg.dims == 1 or cfg.local_bytes >= 0.35 * LOCAL_MEMORY_LIMIT
    return big and cfg.threads in BASELINE_THREADS[cfg.dims]


def hexagonal_space(stencil: str, *, baseline: int = 0,
                    only: Collection[str] | None = None, **sizes: int) -> TuningSpace:
    """The hexagonal space of one stencil at one size (``S1``.., ``T``); ``only``:
    just these point labels, as :func:`.spaces.timetiled_space`."""
    st = get_stencil(stencil)
    if st.dims not in VALUES:
        raise ParameterError(f"hexagonal tiles are generated for 1-D and 2-D stencils, "
                             f"not {stencil} ({st.dims}-D)")
    defaults = DEFAULT_PROBLEM[st.dims]
    unknown = set(sizes) - set(defaults)
    if unknown:
        raise ParameterError(f"{stencil} has no size parameter {sorted(unknown)[0]!r} "
                             f"(sizes: {', '.join(defaults)})")
    problem = {**defaults, **{k: int(v) for k, v in sizes.items()}}
    if any(v < 1 for v in problem.values()):
        raise ParameterError(f"sizes must be positive, got {problem}")

    def cfg(p) -> HexConfig:
        return hex_config(stencil, p, problem)

    restrictions: list = ["T % tT == 0 and tT % 2 == 0", lambda p: feasible(cfg(p))]
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
    d = st.dims

    def inputs(rng=None) -> dict:
        rng = rng or np.random.default_rng(0)
        u = rng.random(tuple(problem[f"S{i + 1}"] + 2 for i in range(d)),
                       dtype=np.float64).astype(np.float32)
        return {"a": initial_state(u)}

    def reference(given) -> dict:
        probe = HexConfig(stencil, tuple(problem[f"S{i + 1}"] for i in range(d)),
                          problem["T"], 2, (1,) * d, (1,) * d)
        return {"a": hexagonal_reference(probe, given["a"][0]).astype(np.float32)}

    return TuningSpace(
        name=f"{PREFIX}{stencil}",
        description=f"hexagonal{'' if d == 1 else '/classic'} time tiles, "
                    f"{st.description}, {sizes_text} float32, {problem['T']} steps "
                    "(Prajapati et al.'s scheme): (tT, tile sizes) x lanes"
                    + (" (baseline set)" if baseline else ""),
        tune_params=values, restrictions=tuple(restrictions),
        problem=problem, group_size=lambda p: cfg(p).group_size,
        kernel=lambda p: hexagonal_kernel(cfg(p)),
        local_bytes=lambda p: cfg(p).local_bytes,
        make_inputs=inputs, reference=reference,
        sequence=LaunchSequence(lambda p: cfg(p).launches, "a", "a", index="b"))


def _factory(stencil: str) -> Callable[..., TuningSpace]:
    def factory(baseline: int = 0, **sizes: int) -> TuningSpace:
        return hexagonal_space(stencil, baseline=baseline, **sizes)
    factory.__name__ = f"{stencil}_hex_space"
    factory.__doc__ = f"The hexagonal {stencil} space (see the module docstring)."
    return factory


#: One factory per 1-D and 2-D stencil, of its sizes (``S1``.., ``T``) and ``baseline``.
HEXAGONAL_SPACES: dict[str, Callable[..., TuningSpace]] = {
    f"{PREFIX}{name}": _factory(name) for name, st in STENCILS.items() if st.dims in VALUES}

#: The factories by module-level name, for ``FILE.py:NAME`` references (worker
#: processes of an exploration load spaces that way).
jacobi1d_space = HEXAGONAL_SPACES["hx_jacobi1d"]
jacobi2d_space = HEXAGONAL_SPACES["hx_jacobi2d"]
heat2d_space = HEXAGONAL_SPACES["hx_heat2d"]
laplacian2d_space = HEXAGONAL_SPACES["hx_laplacian2d"]
gradient2d_space = HEXAGONAL_SPACES["hx_gradient2d"]
