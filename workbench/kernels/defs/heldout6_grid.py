"""The sixth held-out set's kernels on 2-D groups: a pooling, a column march, an activation.

What the set is for, and the other kernels, are in :mod:`.heldout6`.

* ``max_pool2d``: the largest pixel of each 2 x 2 window at stride 2 (disjoint
  windows) or of each 3 x 3 window at stride 2 (overlapping windows), one output
  pixel per work item.
* ``column_march3d``: a 3-D field of ``MARCH_LEVELS`` levels over an m x n plane,
  one work item per horizontal point marching down its column: a 7-point Laplacian
  update, or a 3-point vertical smoothing that reads nothing of its neighbours.
* ``bias_gelu``: y = gelu(x + b[j]) over an m x n matrix with a bias per column, by
  the tanh approximation or the sigmoid one (x sigmoid(1.702 x)).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _rectangles(p: int) -> tuple[dict[str, int], ...]:
    # m x n with m <= n <= 2 m: the pixel count doubles from case to case
    return tuple({"m": 2 ** (p + t // 2), "n": 2 ** (p + (t + 1) // 2)} for t in range(4))


# {{{ max pooling

#: variant -> (window width, stride)
_POOLS: Mapping[str, tuple[int, int]] = {"w2_s2": (2, 2), "w3_s2": (3, 2)}


def _pool_source(variant: str, m, n) -> tuple:
    w, s = _POOLS[variant]
    if isinstance(m, str):
        return (f"{s}*{m} + {w - s}", f"{s}*{n} + {w - s}")
    return (s * m + w - s, s * n + w - s)


def _build_pool(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_POOLS), 2)
    w, s = _POOLS[req.variant]
    knl = u.make_kernel(
        f"{{[i, j, di, dj]: 0 <= i < m and 0 <= j < n and 0 <= di, dj < {w}}}",
        f"out[i, j] = max((di, dj), img[{s}*i + di, {s}*j + dj])",
        [u.array("img", req.dtype, _pool_source(req.variant, "m", "n")),
         u.array("out", req.dtype, ("m", "n")), *u.size_args("m", "n")],
        name="max_pool2d", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _pool_inputs(variant: str, params, dtype, rng) -> dict:
    shape = _pool_source(variant, params["m"], params["n"])
    return {"img": u.random_array(rng, shape, dtype, low=-1.0)}


def _pool_reference(variant: str, inputs, params) -> dict:
    (w, s), m, n = _POOLS[variant], params["m"], params["n"]
    img = inputs["img"]
    windows = [img[di:di + s * m:s, dj:dj + s * n:s] for di in range(w) for dj in range(w)]
    return {"out": np.ascontiguousarray(np.max(windows, axis=0))}


MAX_POOL2D = KernelSpec(
    name="max_pool2d",
    role=KernelRole.UNSEEN,
    description="Max pooling of an image to m x n: the largest pixel of each 2 x 2 "
                "window at stride 2 (each source pixel read once) or each 3 x 3 "
                "window at stride 2 (overlapping windows, 9 loads per output).",
    parameters=("m", "n"),
    variants=tuple(_POOLS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_pool,
    size_cases=_rectangles,
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=partial(_pool_inputs, "w2_s2"),
    reference=partial(_pool_reference, "w2_s2"),
    variant_make_inputs=_pool_inputs,
    variant_reference=_pool_reference,
    check_params={"m": 45, "n": 70},
)

# }}}


# {{{ marching down columns

#: Vertical levels of the field (fixed, as in a column model's grid).
MARCH_LEVELS = 64
_MARCH_COEFS = (("c_mid", 0.4), ("c_side", 0.1))

#: variant -> the update of out[k, i, j] from the field u (padded by one everywhere)
_MARCHES: Mapping[str, str] = {
    "star7": ("c_mid*u[k+1, i+1, j+1] + c_side*(u[k, i+1, j+1] + u[k+2, i+1, j+1]"
              " + u[k+1, i, j+1] + u[k+1, i+2, j+1] + u[k+1, i+1, j] + u[k+1, i+1, j+2])"),
    "vertical3": "c_mid*u[k+1, i+1, j+1] + 3*c_side*(u[k, i+1, j+1] + u[k+2, i+1, j+1])",
}


def _build_march(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_MARCHES), 2)
    knl = u.make_kernel(
        f"{{[i, j, k]: 0 <= i < m and 0 <= j < n and 0 <= k < {MARCH_LEVELS}}}",
        f"out[k, i, j] = {_MARCHES[req.variant]}",
        [u.array("u", req.dtype, (MARCH_LEVELS + 2, "m+2", "n+2")),
         u.array("out", req.dtype, (MARCH_LEVELS, "m", "n")),
         *(lp.ValueArg(c, req.dtype.numpy) for c, _ in _MARCH_COEFS),
         *u.size_args("m", "n")],
        name="column_march3d", assumptions="m >= 1 and n >= 1")
    # k stays a loop inside each work item: one item per horizontal point
    return u.split_2d(knl, "i", "j", req.group_size)


def _march_inputs(params, dtype, rng) -> dict:
    shape = (MARCH_LEVELS + 2, params["m"] + 2, params["n"] + 2)
    return {"u": u.random_array(rng, shape, dtype),
            **{c: dtype.numpy.type(v) for c, v in _MARCH_COEFS}}


def _march_reference(variant: str, inputs, params) -> dict:
    v, m, n = inputs["u"].astype(np.float64), params["m"], params["n"]
    mid, side = float(inputs["c_mid"]), float(inputs["c_side"])

    def at(dk, di, dj):
        return v[dk:dk + MARCH_LEVELS, di:di + m, dj:dj + n]
    if variant == "star7":
        out = mid * at(1, 1, 1) + side * (at(0, 1, 1) + at(2, 1, 1) + at(1, 0, 1)
                                          + at(1, 2, 1) + at(1, 1, 0) + at(1, 1, 2))
    else:
        out = mid * at(1, 1, 1) + 3 * side * (at(0, 1, 1) + at(2, 1, 1))
    return {"out": u.as_dtype_of(out, inputs["u"])}


COLUMN_MARCH3D = KernelSpec(
    name="column_march3d",
    role=KernelRole.UNSEEN,
    description=f"A 3-D field of {MARCH_LEVELS} levels over an m x n plane, one work "
                f"item per horizontal point marching down its column (a loop of "
                f"{MARCH_LEVELS} inside the item): a 7-point Laplacian update, or a "
                f"3-point vertical smoothing.",
    parameters=("m", "n"),
    variants=tuple(_MARCHES),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_march,
    size_cases=_rectangles,
    default_p=8,
    p_choices=(7, 8, 9),
    make_inputs=_march_inputs,
    reference=partial(_march_reference, "star7"),
    variant_reference=_march_reference,
    check_params={"m": 21, "n": 35},
)

# }}}


# {{{ bias and GELU activation

_GELU_CONSTS = (("k_tanh", 0.7978845608028654), ("k_cubic", 0.044715),
                ("k_sigmoid", 1.702))

#: variant -> y as a function of v = x + bias
_GELUS: Mapping[str, str] = {
    "tanh": "0.5*v*(1 + tanh(k_tanh*(v + k_cubic*v*v*v)))",
    "sigmoid": "v / (1 + exp(-k_sigmoid*v))",
}


def _build_gelu(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_GELUS), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i < m and 0 <= j < n}",
        f"""
        for i, j
            <> v = x[i, j] + bias[j] {{id=v}}
            y[i, j] = {_GELUS[req.variant]} {{dep=v}}
        end
        """,
        [u.array("x", req.dtype, ("m", "n")), u.array("bias", req.dtype, ("n",)),
         u.array("y", req.dtype, ("m", "n")),
         *(lp.ValueArg(c, req.dtype.numpy) for c, _ in _GELU_CONSTS),
         *u.size_args("m", "n")],
        name="bias_gelu", assumptions="m >= 1 and n >= 1")
    return u.split_2d(knl, "i", "j", req.group_size)


def _gelu_inputs(params, dtype, rng) -> dict:
    # positive pre-activations: GELU's output keeps its relative precision there
    return {"x": u.random_array(rng, (params["m"], params["n"]), dtype, low=0.1, high=3.0),
            "bias": u.random_array(rng, (params["n"],), dtype, high=0.5),
            **{c: dtype.numpy.type(v) for c, v in _GELU_CONSTS}}


def _gelu_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    v = f["x"] + f["bias"][None, :]
    if variant == "tanh":
        y = 0.5 * v * (1 + np.tanh(f["k_tanh"] * (v + f["k_cubic"] * v ** 3)))
    else:
        y = v / (1 + np.exp(-f["k_sigmoid"] * v))
    return {"y": u.as_dtype_of(y, inputs["x"])}


BIAS_GELU = KernelSpec(
    name="bias_gelu",
    role=KernelRole.UNSEEN,
    description="y = gelu(x + b[j]) over an m x n matrix with one bias per column "
                "(shared down the rows), GELU by its tanh approximation or by "
                "x sigmoid(1.702 x) (an exponential and a division).",
    parameters=("m", "n"),
    variants=tuple(_GELUS),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_gelu,
    size_cases=_rectangles,
    default_p=11,
    p_choices=(10, 11, 12),
    make_inputs=_gelu_inputs,
    reference=partial(_gelu_reference, "tanh"),
    variant_reference=_gelu_reference,
    check_params={"m": 45, "n": 70},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (MAX_POOL2D, COLUMN_MARCH3D, BIAS_GELU)
