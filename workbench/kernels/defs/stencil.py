"""Stencil-type test kernels of paper section 5: finite differences and convolution.

Boundaries are handled by padding the input instead of special-casing edge points,
so that every work item does the same work and loopy's counts stay simple:

* ``finite_diff``: the input ``u`` is (n+2) x (n+2) (one ghost layer), the output
  ``out`` n x n; output (i, j) is centred on ``u[i+1, j+1]``.
* ``convolution``: the images are (n+6) x (n+6) (a w = 3 frame), the output n x n,
  so the paper's formula applies unchanged with its ``w + x - xi`` indexing.
"""

from __future__ import annotations

from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


# {{{ finite differences

# One Jacobi step for the nonlinear Poisson problem -lap(u) = u^2 on a grid with
# spacing h (h2 = h^2): the 5-point stencil plus the quadratic source term. All terms
# are positive for positive u, so the result is well conditioned in float32. The
# centre value goes through a temporary so that it is loaded (and counted) once.
_FD_INSN = """
for i, j
    <> centre = u[i+1, j+1]
    out[i, j] = 0.25 * (u[i, j+1] + u[i+2, j+1] + u[i+1, j] + u[i+1, j+2]
                        + h2 * centre * centre)
end
"""


def _build_fd(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 2)
    knl = u.make_kernel(
        "{[i, j]: 0 <= i, j < n}", _FD_INSN,
        [u.array("u", req.dtype, ("n+2", "n+2")), u.array("out", req.dtype, ("n", "n")),
         lp.ValueArg("h2", req.dtype.numpy), *u.size_args("n")],
        name="finite_diff", assumptions="n >= 1")
    knl = u.split_2d(knl, "i", "j", req.group_size)
    # The group's tile plus a one-element halo: (g1+2) x (g0+2). The bounding box
    # also covers the four unused corners, which keeps the fetch rectangular.
    return lp.add_prefetch(knl, "u", ["i_inner", "j_inner"], fetch_bounding_box=True,
                           default_tag="l.auto")


def _fd_inputs(params, dtype, rng) -> dict:
    n = params["n"]
    return {"u": u.random_array(rng, (n + 2, n + 2), dtype),
            "h2": dtype.numpy.type(1.0 / (n + 1) ** 2)}


def _fd_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    centre = v[1:-1, 1:-1]
    res = 0.25 * (v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:]
                  + float(inputs["h2"]) * centre * centre)
    return {"out": u.as_dtype_of(res, inputs["u"])}


def _square(p: int) -> tuple[dict[str, int], ...]:
    return tuple({"n": n} for n in u.pow2(p, range(4)))


FINITE_DIFF = KernelSpec(
    name="finite_diff",
    role=KernelRole.TEST,
    description="5-point stencil with a quadratic source term on an n x n row-major "
                "grid (padded input), tile plus halo prefetched to local memory.",
    parameters=("n",),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_fd,
    size_cases=_square,
    default_p=10,
    p_choices=(10, 11),
    make_inputs=_fd_inputs,
    reference=_fd_reference,
    check_params={"n": 70},
)

# }}}


# {{{ convolution

#: Filter half-width: filters are (2w+1) x (2w+1) = 7 x 7.
W = 3
#: Images, filters and colour channels ("three 7x7 filters on three RGB images").
NIMAGES = NFILTERS = NCOLORS = 3

_CONV_INSN = f"""
r[i, j, x, y] = sum((xi, eta, c),
                    m[i, {W} + x - xi, {W} + y - eta, c] * f[j, {W} + xi, {W} + eta, c])
"""


def _build_conv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 2)
    g0, g1 = req.group_size
    padded = f"n+{2 * W}"
    knl = u.make_kernel(
        f"{{[i, j, x, y, xi, eta, c]: 0 <= i < {NIMAGES} and 0 <= j < {NFILTERS} "
        f"and 0 <= x, y < n and -{W} <= xi, eta <= {W} and 0 <= c < {NCOLORS}}}",
        _CONV_INSN,
        [u.array("m", req.dtype, (NIMAGES, padded, padded, NCOLORS)),
         u.array("f", req.dtype, (NFILTERS, 2 * W + 1, 2 * W + 1, NCOLORS)),
         u.array("r", req.dtype, (NIMAGES, NFILTERS, "n", "n")),
         *u.size_args("n")],
        name="convolution", assumptions="n >= 1")
    # Work item (x, y) of image i (grid axis 2) computes all three filter responses:
    # the group fetches its image tile once and reuses it for every filter.
    knl = u.split_2d(knl, "x", "y", req.group_size)
    knl = lp.tag_inames(knl, {"i": "g.2"})
    knl = lp.add_prefetch(knl, "f", ["j", "xi", "eta", "c"], default_tag="l.auto")
    # Image tile plus frame, (g1+6) x (g0+6) x 3. Lanes run along y, one colour
    # channel per pass: stride-3 reads that together use the whole tile (rather than
    # 'l.auto', which would put the 3-long channel axis on l.0 and idle most lanes).
    knl = lp.add_prefetch(knl, "m", ["x_inner", "y_inner", "xi", "eta", "c"],
                          dim_arg_names=["m_img", "m_x", "m_y", "m_c"], default_tag=None)
    knl = lp.split_iname(knl, "m_x", g1, inner_tag="l.1")
    knl = lp.split_iname(knl, "m_y", g0, inner_tag="l.0")
    knl = lp.tag_inames(knl, {"m_c": "unr"})
    knl = lp.prioritize_loops(knl, "m_c,m_x_outer,m_y_outer")
    return lp.add_inames_for_unused_hw_axes(knl)


def _conv_inputs(params, dtype, rng) -> dict:
    side = params["n"] + 2 * W
    return {"m": u.random_array(rng, (NIMAGES, side, side, NCOLORS), dtype),
            "f": u.random_array(rng, (NFILTERS, 2 * W + 1, 2 * W + 1, NCOLORS), dtype)}


def _conv_reference(inputs: Mapping[str, np.ndarray], params) -> dict:
    n = params["n"]
    m = inputs["m"].astype(np.float64)
    f = inputs["f"].astype(np.float64)
    res = np.zeros((NIMAGES, NFILTERS, n, n))
    for xi in range(-W, W + 1):
        for eta in range(-W, W + 1):
            window = m[:, W - xi: W - xi + n, W - eta: W - eta + n, :]
            res += np.einsum("ixyc,jc->ijxy", window, f[:, W + xi, W + eta, :])
    return {"r": u.as_dtype_of(res, inputs["m"])}


CONVOLUTION = KernelSpec(
    name="convolution",
    role=KernelRole.TEST,
    description="Three 7x7 filters applied to three n x n RGB images (padded by 3), "
                "image tiles and filters prefetched to local memory.",
    parameters=("n",),
    variants=("default",),
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_conv,
    size_cases=_square,
    default_p=7,
    p_choices=(6, 7, 8),
    make_inputs=_conv_inputs,
    reference=_conv_reference,
    check_params={"n": 40},
)

# }}}

#: This module's catalog entries, in catalog order.
SPECS: tuple[KernelSpec, ...] = (FINITE_DIFF, CONVOLUTION)
