"""The seventh held-out set (``--set heldout7``): kernels kept out of all fitting and design.

The sixth set (:mod:`.heldout6`) has been read kernel by kernel since it was measured,
and a model is being designed against it, so it no longer tells how a finished method
does on code nobody looked at; this set takes its place. Like every unseen set its
kernels have role :attr:`KernelRole.UNSEEN`, so every fit's exclusion of that role
covers them. They were written blind: without running any model on them and without
reading any model's errors on any set. They must never be used to fit a model, choose
features or settings, or pick a default, and their results are reported apart. They
keep the catalog's conventions (symbolic int32 sizes, the contiguous index on
work-group axis 0, numpy references, exact counts).

* ``black_scholes``: the Black-Scholes price of n European options (spot, strike and
  expiry arrays), the normal CDF by ``erfc``; the call only, or the call and the put.
* ``rgb_to_ycbcr``: full-range BT.601 colour conversion of interleaved RGB pixels,
  written interleaved (stride 3 in and out) or as three planes (stride 3 in, 1 out).
* ``bitonic_step``: one compare-exchange pass of a bitonic merge over 2n keys, the
  pairs a distance 1 or 256 apart (pair index to key index by a floor division).
* ``fv_flux_update``: one finite-volume step of a 1-D conservation law: the Rusanov
  flux of Burgers' equation, or first-order upwind advection, both faces per cell.
* ``optimizer_step``: one optimiser step per parameter: Adam (two moments, a square root
  and a division) or SGD with momentum and weight decay.
* ``running_max_rows``: the running maximum along each row of ``SCAN_COLUMNS``
  entries, one work item per row; rows stored by rows (lanes a row apart) or by
  columns (lanes adjacent).

The kernels on 2-D groups (dense_layer, diffusion_varcoef, embedding_lookup) are in
:mod:`.heldout7_grid`.
"""

from __future__ import annotations

from collections.abc import Mapping
import math
from functools import partial

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ Black-Scholes

_BS_CONSTS = (("rate", 0.02), ("vol", 0.3), ("k_half", 0.5), ("one", 1.0),
              ("inv_sqrt2", 0.7071067811865476))
_BS_VARIANTS = ("call", "call_put")


def _build_black_scholes(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BS_VARIANTS, 1)
    put = ("put[i] = strike[i] * disc * (one - c2) - spot[i] * (one - c1) "
           "{dep=c1:c2:disc}" if req.variant == "call_put" else "")
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> sd = vol * sqrt(expiry[i]) {{id=sd}}
            <> d1 = (log(spot[i] / strike[i]) + (rate + k_half * vol * vol) * expiry[i]) \
/ sd {{id=d1, dep=sd}}
            <> d2 = d1 - sd {{id=d2, dep=d1}}
            <> c1 = k_half * erfc(-d1 * inv_sqrt2) {{id=c1, dep=d1}}
            <> c2 = k_half * erfc(-d2 * inv_sqrt2) {{id=c2, dep=d2}}
            <> disc = exp(-rate * expiry[i]) {{id=disc}}
            call[i] = spot[i] * c1 - strike[i] * disc * c2 {{dep=c1:c2:disc}}
            {put}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in ("spot", "strike", "expiry", "call")),
         *([u.array("put", req.dtype, ("n",))] if req.variant == "call_put" else []),
         *u.scalar_args(req.dtype, _BS_CONSTS), *u.size_args("n")],
        name="black_scholes", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _bs_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    # near the money: every price stays well above the float32 rounding of its terms
    return {"spot": u.random_array(rng, (n,), dtype, low=90.0, high=110.0),
            "strike": u.random_array(rng, (n,), dtype, low=95.0, high=105.0),
            "expiry": u.random_array(rng, (n,), dtype, low=0.5, high=2.0),
            **u.scalar_inputs(dtype, _BS_CONSTS)}


def _bs_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    c = {name: float(inputs[name]) for name, _ in _BS_CONSTS}
    sd = c["vol"] * np.sqrt(f["expiry"])
    d1 = (np.log(f["spot"] / f["strike"])
          + (c["rate"] + 0.5 * c["vol"] ** 2) * f["expiry"]) / sd
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    c1, c2 = 0.5 * erfc(-d1 / np.sqrt(2)), 0.5 * erfc(-(d1 - sd) / np.sqrt(2))
    disc = np.exp(-c["rate"] * f["expiry"])
    like = inputs["spot"]
    out = {"call": u.as_dtype_of(f["spot"] * c1 - f["strike"] * disc * c2, like)}
    if variant == "call_put":
        out["put"] = u.as_dtype_of(f["strike"] * disc * (1 - c2) - f["spot"] * (1 - c1),
                                   like)
    return out


BLACK_SCHOLES = KernelSpec(
    name="black_scholes",
    role=KernelRole.UNSEEN,
    description="Black-Scholes prices of n European options (spot, strike, expiry "
                "arrays; rate and volatility shared): a log, a square root, an "
                "exponential and two erfc per option; the call only "
                "or the call and the put (a second store).",
    parameters=("n",),
    variants=_BS_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_black_scholes,
    size_cases=u.doubling_lengths,
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_bs_inputs,
    reference=partial(_bs_reference, "call"),
    variant_reference=_bs_reference,
    check_params={"n": 1000},
    rtol=1e-3,
)

# }}}


# {{{ RGB to YCbCr

#: (output channel, its offset, its weights of R, G, B): full-range BT.601
_YCBCR = (("y", 0.0, (0.299, 0.587, 0.114)),
          ("cb", 0.5, (-0.168736, -0.331264, 0.5)),
          ("cr", 0.5, (0.5, -0.418688, -0.081312)))
_YCBCR_CONSTS = tuple((f"{ch}_{w}", v) for ch, _, ws in _YCBCR for w, v in zip("rgb", ws)) \
    + (("offset", 0.5),)
#: variant -> the output's entry for channel c of pixel i
_YCBCR_OUTPUTS: Mapping[str, str] = {"interleaved": "ycc[i, {c}]", "planar": "ycc[{c}, i]"}


def _build_ycbcr(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_YCBCR_OUTPUTS), 1)
    at = _YCBCR_OUTPUTS[req.variant]
    lines = []
    for c, (ch, offset, _) in enumerate(_YCBCR):
        base = "offset + " if offset else ""
        lines.append(f"{at.format(c=c)} = {base}{ch}_r*red + {ch}_g*green + {ch}_b*blue "
                     f"{{dep=red:green:blue}}")
    body = "\n            ".join(lines)
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> red = rgb[i, 0] {{id=red}}
            <> green = rgb[i, 1] {{id=green}}
            <> blue = rgb[i, 2] {{id=blue}}
            {body}
        end
        """,
        [u.array("rgb", req.dtype, ("n", 3)),
         u.array("ycc", req.dtype, ("n", 3) if req.variant == "interleaved" else (3, "n")),
         *u.scalar_args(req.dtype, _YCBCR_CONSTS), *u.size_args("n")],
        name="rgb_to_ycbcr", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _ycbcr_inputs(params, dtype, rng) -> dict:
    # mid-range colours keep Cb and Cr away from zero (relative tolerances)
    return {"rgb": u.random_array(rng, (params["n"], 3), dtype, low=0.2, high=0.8),
            **u.scalar_inputs(dtype, _YCBCR_CONSTS)}


def _ycbcr_reference(variant: str, inputs, params) -> dict:
    rgb = inputs["rgb"].astype(np.float64)
    weights = np.array([ws for _, _, ws in _YCBCR])
    offsets = np.array([off for _, off, _ in _YCBCR])
    ycc = rgb @ weights.T + offsets
    if variant == "planar":
        ycc = np.ascontiguousarray(ycc.T)
    return {"ycc": u.as_dtype_of(ycc, inputs["rgb"])}


RGB_TO_YCBCR = KernelSpec(
    name="rgb_to_ycbcr",
    role=KernelRole.UNSEEN,
    description="Full-range BT.601 conversion of interleaved RGB pixels to YCbCr (nine "
                "multiply-adds per pixel); the output interleaved like the input (stride "
                "3) or as three planes (stride 1).",
    parameters=("n",),
    variants=tuple(_YCBCR_OUTPUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_ycbcr,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_ycbcr_inputs,
    reference=partial(_ycbcr_reference, "interleaved"),
    variant_reference=_ycbcr_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ bitonic compare-exchange

#: variant -> distance between the keys of a pair
_BITONIC_DISTANCES: Mapping[str, int] = {"dist1": 1, "dist256": 256}


def _build_bitonic(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_BITONIC_DISTANCES), 1)
    d = _BITONIC_DISTANCES[req.variant]
    lo = f"{2 * d}*(p // {d}) + p % {d}"
    knl = u.make_kernel(
        "{[p]: 0 <= p < n}",
        f"""
        for p
            <> a = keys[{lo}] {{id=a}}
            <> b = keys[{lo} + {d}] {{id=b}}
            sorted[{lo}] = fmin(a, b) {{dep=a:b}}
            sorted[{lo} + {d}] = fmax(a, b) {{dep=a:b}}
        end
        """,
        [u.array("keys", req.dtype, ("2*n",)), u.array("sorted", req.dtype, ("2*n",)),
         *u.size_args("n")],
        name="bitonic_step", assumptions=f"n >= {d} and n mod {d} = 0")
    return u.split_1d(knl, "p", req.group_size)


def _bitonic_inputs(params, dtype, rng) -> dict:
    return {"keys": u.random_array(rng, (2 * params["n"],), dtype, low=0.1)}


def _bitonic_reference(variant: str, inputs, params) -> dict:
    d, keys = _BITONIC_DISTANCES[variant], inputs["keys"]
    pairs = keys.reshape(-1, 2, d)
    out = np.stack([pairs.min(axis=1), pairs.max(axis=1)], axis=1)
    return {"sorted": np.ascontiguousarray(out.reshape(-1))}


BITONIC_STEP = KernelSpec(
    name="bitonic_step",
    role=KernelRole.UNSEEN,
    description="One compare-exchange pass of a bitonic merge over 2n keys (out of "
                "place, all pairs ascending): work item p takes the pair of keys 1 or "
                "256 apart that p names (a floor division and a remainder), stores the "
                "smaller first.",
    parameters=("n",),
    variants=tuple(_BITONIC_DISTANCES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_bitonic,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=_bitonic_inputs,
    reference=partial(_bitonic_reference, "dist1"),
    variant_reference=_bitonic_reference,
    check_params={"n": 1024},
)

# }}}


# {{{ finite-volume update

_FV_CONSTS = (("nu", 0.1), ("k_half", 0.5))
#: variant -> the flux through the face between the states ul and ur (nu = dt/dx)
_FV_FLUXES: Mapping[str, str] = {
    "burgers_rusanov": "k_half*k_half*({l}*{l} + {r}*{r}) - k_half*fmax(fabs({l}), fabs({r}))"
                       "*({r} - {l})",
    "advection_upwind": "{l}",
}


def _build_fv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_FV_FLUXES), 1)
    flux = _FV_FLUXES[req.variant]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> west = q[i] {{id=west}}
            <> mid = q[i+1] {{id=mid}}
            <> east = q[i+2] {{id=east}}
            <> f_in = {flux.format(l="west", r="mid")} {{id=f_in, dep=west:mid}}
            <> f_out = {flux.format(l="mid", r="east")} {{id=f_out, dep=mid:east}}
            q_next[i] = mid - nu * (f_out - f_in) {{dep=f_in:f_out}}
        end
        """,
        [u.array("q", req.dtype, ("n+2",)), u.array("q_next", req.dtype, ("n",)),
         *u.scalar_args(req.dtype, _FV_CONSTS), *u.size_args("n")],
        name="fv_flux_update", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _fv_inputs(params, dtype, rng) -> dict:
    return {"q": u.random_array(rng, (params["n"] + 2,), dtype, low=0.5, high=1.5),
            **u.scalar_inputs(dtype, _FV_CONSTS)}


def _fv_reference(variant: str, inputs, params) -> dict:
    q, nu = inputs["q"].astype(np.float64), float(inputs["nu"])
    left, right = q[:-1], q[1:]
    if variant == "burgers_rusanov":
        face = 0.25 * (left ** 2 + right ** 2) \
            - 0.5 * np.maximum(np.abs(left), np.abs(right)) * (right - left)
    else:
        face = left
    return {"q_next": u.as_dtype_of(q[1:-1] - nu * (face[1:] - face[:-1]), inputs["q"])}


FV_FLUX_UPDATE = KernelSpec(
    name="fv_flux_update",
    role=KernelRole.UNSEEN,
    description="One explicit finite-volume step of a 1-D conservation law over n "
                "cells (one ghost cell each side), each item computing both of its "
                "face fluxes: Burgers' equation with the Rusanov flux, or linear "
                "advection with the upwind flux.",
    parameters=("n",),
    variants=tuple(_FV_FLUXES),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_fv,
    size_cases=u.doubling_lengths,
    default_p=22,
    p_choices=(21, 22, 23),
    make_inputs=_fv_inputs,
    reference=partial(_fv_reference, "burgers_rusanov"),
    variant_reference=_fv_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ optimiser step

#: variant -> (its hyper-parameters, the instructions of one parameter's step)
_OPTIMISERS: Mapping[str, tuple[tuple[tuple[str, float], ...], str]] = {
    "adam": ((("lr", 1e-3), ("beta1", 0.9), ("beta2", 0.999), ("eps", 1e-8),
              ("one", 1.0), ("bias1", 1 / (1 - 0.9 ** 10)),
              ("bias2", 1 / (1 - 0.999 ** 10))),
             """
            <> g = grad[i] {id=g}
            <> m = beta1 * m1[i] + (one - beta1) * g {id=m, dep=g}
            <> v = beta2 * m2[i] + (one - beta2) * g * g {id=v, dep=g}
            m1_next[i] = m {dep=m}
            m2_next[i] = v {dep=v}
            param_next[i] = param[i] - lr * (m * bias1) / (sqrt(v * bias2) + eps) \
{dep=m:v}
             """),
    "momentum": ((("lr", 1e-2), ("mu", 0.9), ("decay", 1e-4)),
                 """
            <> m = mu * m1[i] + grad[i] + decay * param[i] {id=m}
            m1_next[i] = m {dep=m}
            param_next[i] = param[i] - lr * m {dep=m}
                 """),
}


def _build_optimiser(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_OPTIMISERS), 1)
    consts, body = _OPTIMISERS[req.variant]
    arrays = ["param", "grad", "m1", "param_next", "m1_next"]
    if req.variant == "adam":
        arrays += ["m2", "m2_next"]
    knl = u.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            {body}
        end
        """,
        [*(u.array(a, req.dtype, ("n",)) for a in arrays), *u.scalar_args(req.dtype, consts),
         *u.size_args("n")],
        name="optimizer_step", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _optimiser_inputs(variant: str, params, dtype, rng) -> dict:
    n = params["n"]
    consts, _ = _OPTIMISERS[variant]
    inputs = {"param": u.random_array(rng, (n,), dtype, low=1.0, high=2.0),
              "grad": u.random_array(rng, (n,), dtype, low=0.1),
              "m1": u.random_array(rng, (n,), dtype, low=0.1, high=0.5),
              **u.scalar_inputs(dtype, consts)}
    if variant == "adam":
        inputs["m2"] = u.random_array(rng, (n,), dtype, low=0.01, high=0.1)
    return inputs


def _optimiser_reference(variant: str, inputs, params) -> dict:
    f = u.as_float64(inputs)
    if variant == "adam":
        m = f["beta1"] * f["m1"] + (1 - f["beta1"]) * f["grad"]
        v = f["beta2"] * f["m2"] + (1 - f["beta2"]) * f["grad"] ** 2
        p = f["param"] - f["lr"] * (m * f["bias1"]) / (np.sqrt(v * f["bias2"]) + f["eps"])
        out = {"m1_next": m, "m2_next": v, "param_next": p}
    else:
        m = f["mu"] * f["m1"] + f["grad"] + f["decay"] * f["param"]
        out = {"m1_next": m, "param_next": f["param"] - f["lr"] * m}
    return {k: u.as_dtype_of(v, inputs["param"]) for k, v in out.items()}


OPTIMIZER_STEP = KernelSpec(
    name="optimizer_step",
    role=KernelRole.UNSEEN,
    description="One optimiser step per parameter, state out of place: Adam (two "
                "moment arrays updated, bias-corrected, a square root and a division; "
                "4 arrays read, 3 written) or SGD with momentum and weight decay (3 "
                "read, 2 written).",
    parameters=("n",),
    variants=tuple(_OPTIMISERS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-large",
    build=_build_optimiser,
    size_cases=u.doubling_lengths,
    default_p=21,
    p_choices=(20, 21, 22),
    make_inputs=partial(_optimiser_inputs, "adam"),
    reference=partial(_optimiser_reference, "adam"),
    variant_make_inputs=_optimiser_inputs,
    variant_reference=_optimiser_reference,
    check_params={"n": 1000},
)

# }}}


# {{{ running maximum along rows

#: Entries per row.
SCAN_COLUMNS = 64
#: variant -> entry c of row i
_SCAN_LAYOUTS: Mapping[str, str] = {"by_rows": "{a}[i, {c}]", "by_columns": "{a}[{c}, i]"}


def _scan_shape(variant: str, n: int | str = "n") -> tuple:
    return (n, SCAN_COLUMNS) if variant == "by_rows" else (SCAN_COLUMNS, n)


def _build_running_max(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, tuple(_SCAN_LAYOUTS), 1)
    at = _SCAN_LAYOUTS[req.variant]
    knl = u.make_kernel(
        f"{{[i, c]: 0 <= i < n and 0 <= c < {SCAN_COLUMNS}}}",
        f"""
        for i
            <> top = {at.format(a='x', c=0)} {{id=first}}
            for c
                top = fmax(top, {at.format(a='x', c='c')}) {{id=step, dep=first}}
                {at.format(a='peak', c='c')} = top {{dep=step}}
            end
        end
        """,
        [u.array("x", req.dtype, _scan_shape(req.variant)),
         u.array("peak", req.dtype, _scan_shape(req.variant)), *u.size_args("n")],
        name="running_max_rows", assumptions="n >= 1")
    return u.split_1d(knl, "i", req.group_size)


def _running_max_inputs(variant: str, params, dtype, rng) -> dict:
    return {"x": u.random_array(rng, _scan_shape(variant, params["n"]), dtype, low=0.1)}


def _running_max_reference(variant: str, inputs, params) -> dict:
    axis = 1 if variant == "by_rows" else 0
    return {"peak": np.maximum.accumulate(inputs["x"], axis=axis)}


RUNNING_MAX_ROWS = KernelSpec(
    name="running_max_rows",
    role=KernelRole.UNSEEN,
    description=f"The running maximum along each row of {SCAN_COLUMNS} entries, one "
                f"work item per row walking it in order (a dependent chain of maxima, "
                f"a store per entry); rows stored by rows (lanes a row apart) or by "
                f"columns (adjacent lanes adjacent).",
    parameters=("n",),
    variants=tuple(_SCAN_LAYOUTS),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_running_max,
    size_cases=u.doubling_lengths,
    default_p=16,
    p_choices=(15, 16, 17),
    make_inputs=partial(_running_max_inputs, "by_rows"),
    reference=partial(_running_max_reference, "by_rows"),
    variant_make_inputs=_running_max_inputs,
    variant_reference=_running_max_reference,
    check_params={"n": 300},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (BLACK_SCHOLES, RGB_TO_YCBCR, BITONIC_STEP, FV_FLUX_UPDATE,
                                 OPTIMIZER_STEP, RUNNING_MAX_ROWS)
