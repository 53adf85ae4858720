"""The tenth held-out set's kernels on 2-D groups: a rotary position embedding, a
cellular automaton step, a leapfrog step of the wave equation.

What the set is for, and the other kernels, are in :mod:`.heldout10`.

* ``rope_rotate``: the rotary position embedding of m tokens' n pairs (interleaved):
  each pair rotated by an angle whose cosine and sine are read from tables, or
  computed from the token's position and the pair's frequency.
* ``game_of_life``: one generation of Conway's Life (B3/S23) or HighLife (B36/S23)
  on an m x n board with a dead border (eight neighbours summed, the rule written as
  arithmetic on comparisons).
* ``wave_leapfrog``: one leapfrog time step of the 2-D wave equation, a second-order
  (5-point) or fourth-order (9-point cross) Laplacian, two time levels read.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ rotary position embedding

_ROPE_VARIANTS = ("table", "computed")


def _build_rope(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _ROPE_VARIANTS, 2)
    if req.variant == "table":
        angle = """
            <> c = cos_t[i, j] {id=c}
            <> s = sin_t[i, j] {id=s}
        """
        tables = [u.array("cos_t", req.dtype, ("m", "n")), u.array("sin_t", req.dtype, ("m", "n"))]
    else:
        angle = """
            <> theta = pos[i] * inv_freq[j] {id=theta}
            <> c = cos(theta) {id=c, dep=theta}
            <> s = sin(theta) {id=s, dep=theta}
        """
        tables = [u.array("pos", req.dtype, ("m",)), u.array("inv_freq", req.dtype, ("n",))]
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            {angle}
            <> xe = x[i, j, 0] {{id=xe}}
            <> xo = x[i, j, 1] {{id=xo}}
            out[i, j, 0] = xe * c - xo * s {{dep=xe:xo:c:s}}
            out[i, j, 1] = xe * s + xo * c {{dep=xe:xo:c:s}}
        end
        """,
        [u.array("x", req.dtype, ("m", "n", 2)), *tables,
         u.array("out", req.dtype, ("m", "n", 2)), *u.size_args("m", "n")],
        name="rope_rotate", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _rope_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    # angles in [0.1, 0.6) and the even entry dominating: both outputs of every pair
    # stay positive and away from zero (relative tolerances)
    x = np.stack([rng.uniform(2.0, 3.0, (m, n)), rng.uniform(0.5, 1.0, (m, n))], axis=2)
    inputs = {"x": np.asarray(x, dtype=dtype.numpy)}
    if variant == "table":
        theta = rng.uniform(0.1, 0.6, (m, n))
        inputs.update(cos_t=np.asarray(np.cos(theta), dtype=dtype.numpy),
                      sin_t=np.asarray(np.sin(theta), dtype=dtype.numpy))
    else:
        inputs.update(pos=u.random_array(rng, (m,), dtype, low=1.0, high=2.0),
                      inv_freq=u.random_array(rng, (n,), dtype, low=0.1, high=0.3))
    return inputs


def _rope_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    if variant == "table":
        c, s = f["cos_t"], f["sin_t"]
    else:
        theta = f["pos"][:, None] * f["inv_freq"][None, :]
        c, s = np.cos(theta), np.sin(theta)
    xe, xo = f["x"][..., 0], f["x"][..., 1]
    out = np.stack([xe * c - xo * s, xe * s + xo * c], axis=2)
    return {"out": u.as_dtype_of(out, inputs["x"])}


ROPE_ROTATE = KernelSpec(
    name="rope_rotate",
    role=KernelRole.UNSEEN,
    description="The rotary position embedding of m tokens with n pairs each (pairs "
                "interleaved, stride 2 in and out): each pair rotated by an angle whose "
                "cosine and sine are read from two m x n tables, or computed (a cosine "
                "and a sine) from the token's position times the pair's frequency.",
    parameters=("m", "n"),
    variants=_ROPE_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_rope,
    size_cases=u.doubling_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_rope_inputs, "table"),
    reference=partial(_rope_reference, "table"),
    variant_make_inputs=_rope_inputs,
    variant_reference=_rope_reference,
    check_params={"m": 45, "n": 70},
    rtol=1e-3,
)

# }}}


# {{{ Game of Life

_LIFE_CONSTS = (("one", 1.0), ("two", 2.0), ("three", 3.0), ("six", 6.0))
#: variant -> the next state in terms of the cell (alive) and its live neighbours (cnt);
#: comparisons are 0 or 1, so the rule is counted exactly
LIFE_RULES: Mapping[str, str] = {
    "life": "(cnt == three) + alive * (cnt == two)",
    "highlife": "(cnt == three) + alive * (cnt == two) + (one - alive) * (cnt == six)",
}
_NEIGHBOURS = tuple((di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0))


def _build_life(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(LIFE_RULES), 2)
    cnt = " + ".join(f"board[i + {1 + di}, j + {1 + dj}]" for di, dj in _NEIGHBOURS)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> alive = board[i + 1, j + 1] {{id=alive}}
            <> cnt = {cnt} {{id=cnt}}
            nxt[i, j] = {LIFE_RULES[req.variant]} {{dep=alive:cnt}}
        end
        """,
        [u.array("board", req.dtype, ("m + 2", "n + 2")), u.array("nxt", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, _LIFE_CONSTS), *u.size_args("m", "n")],
        name="game_of_life", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _life_inputs(params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    board = np.zeros((m + 2, n + 2))
    # about 40 % alive: neighbour counts from 0 to 8, all of 2, 3 and 6 common
    board[1:-1, 1:-1] = rng.random((m, n)) < 0.4
    return {"board": np.asarray(board, dtype=dtype.numpy), **u.scalar_inputs(dtype, _LIFE_CONSTS)}


def life_counts(board: np.ndarray) -> np.ndarray:
    """Live neighbours of each interior cell of a board with a one-cell border."""
    m, n = board.shape[0] - 2, board.shape[1] - 2
    return sum(board[1 + di:1 + di + m, 1 + dj:1 + dj + n] for di, dj in _NEIGHBOURS)


def _life_reference(variant: str, inputs, params) -> dict:
    board = inputs["board"].astype(np.float64)
    alive, cnt = board[1:-1, 1:-1] > 0, life_counts(board)
    born = (cnt == 3) | ((cnt == 6) if variant == "highlife" else False)
    nxt = np.where(alive, (cnt == 2) | (cnt == 3), born)
    return {"nxt": u.as_dtype_of(nxt.astype(np.float64), inputs["board"])}


GAME_OF_LIFE = KernelSpec(
    name="game_of_life",
    role=KernelRole.UNSEEN,
    description="One generation of a Life-like cellular automaton on an m x n board "
                "of 0/1 cells with a dead border: eight neighbours summed (a 3 x 3 "
                "stencil without its centre), the next state from comparisons of the "
                "count written as arithmetic; Conway's rule B3/S23 or HighLife B36/S23.",
    parameters=("m", "n"),
    variants=tuple(LIFE_RULES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_life,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_life_inputs,
    reference=partial(_life_reference, "life"),
    variant_reference=_life_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ leapfrog step of the wave equation

#: variant -> (halo width, the Laplacian's weights by distance from the centre along
#: each axis: centre, 1, 2)
_WAVE_STENCILS: Mapping[str, tuple[int, tuple[float, ...]]] = {
    "order2": (1, (-4.0, 1.0)),
    "order4": (2, (-5.0, 4.0 / 3.0, -1.0 / 12.0)),
}
_WAVE_CONSTS = (("c2", 0.05), ("two", 2.0))


def _wave_weight_consts(variant: str) -> tuple[tuple[str, float], ...]:
    _, weights = _WAVE_STENCILS[variant]
    return tuple((f"w{d}", w) for d, w in enumerate(weights))


def _build_wave(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_WAVE_STENCILS), 2)
    h, weights = _WAVE_STENCILS[req.variant]
    terms = [f"w0 * u[i + {h}, j + {h}]"]
    for d in range(1, len(weights)):
        ring = " + ".join(f"u[i + {h + di}, j + {h + dj}]"
                          for di, dj in ((-d, 0), (d, 0), (0, -d), (0, d)))
        terms.append(f"w{d} * ({ring})")
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> lap = {' + '.join(terms)} {{id=lap}}
            u_next[i, j] = two * u[i + {h}, j + {h}] - u_prev[i, j] + c2 * lap {{dep=lap}}
        end
        """,
        [u.array("u", req.dtype, (f"m + {2 * h}", f"n + {2 * h}")),
         u.array("u_prev", req.dtype, ("m", "n")), u.array("u_next", req.dtype, ("m", "n")),
         *u.scalar_args(req.dtype, (*_WAVE_CONSTS, *_wave_weight_consts(req.variant))),
         *u.size_args("m", "n")],
        name="wave_leapfrog", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _wave_inputs(variant: str, params, dtype, rng) -> dict:
    m, n = params["m"], params["n"]
    h, _ = _WAVE_STENCILS[variant]
    # 2 u - u_prev in [2, 5], the Laplacian's share within +-0.3: away from zero
    return {"u": u.random_array(rng, (m + 2 * h, n + 2 * h), dtype, low=2.0, high=3.0),
            "u_prev": u.random_array(rng, (m, n), dtype, low=1.0, high=2.0),
            **u.scalar_inputs(dtype, (*_WAVE_CONSTS, *_wave_weight_consts(variant)))}


def _wave_reference(variant: str, inputs, params) -> dict:
    m, n = params["m"], params["n"]
    h, weights = _WAVE_STENCILS[variant]
    f = u.as_float64(inputs)
    field = f["u"]

    def shifted(di, dj):
        return field[h + di:h + di + m, h + dj:h + dj + n]

    lap = weights[0] * shifted(0, 0)
    for d in range(1, len(weights)):
        lap = lap + weights[d] * (shifted(-d, 0) + shifted(d, 0) + shifted(0, -d)
                                  + shifted(0, d))
    out = 2.0 * shifted(0, 0) - f["u_prev"] + 0.05 * lap
    return {"u_next": u.as_dtype_of(out, inputs["u"])}


WAVE_LEAPFROG = KernelSpec(
    name="wave_leapfrog",
    role=KernelRole.UNSEEN,
    description="One leapfrog step of the 2-D wave equation on an m x n grid: twice "
                "the current field less the previous one plus c^2 times its Laplacian, "
                "of second order (5 points) or fourth order (a 9-point cross, a halo of "
                "two); the current field read with its halo, the previous one once.",
    parameters=("m", "n"),
    variants=tuple(_WAVE_STENCILS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_wave,
    size_cases=u.doubling_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=partial(_wave_inputs, "order2"),
    reference=partial(_wave_reference, "order2"),
    variant_make_inputs=_wave_inputs,
    variant_reference=_wave_reference,
    check_params={"m": 45, "n": 70},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (ROPE_ROTATE, GAME_OF_LIFE, WAVE_LEAPFROG)
