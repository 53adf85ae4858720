"""The two kernels of the block-size study of Ernst et al. (analytical data-volume
estimation for GPUs, section IV), for comparing predicted and measured data volumes
over many 3-D thread-block shapes.

* :func:`star_stencil_3d`: the range-4 3D25pt star stencil (section IV-C).
* :func:`lbm_like`: a simplified stand-in for the multi-phase LBM interface-tracking
  kernel (section IV-D): D3Q15 pull streaming with a cheap collision, plus a 3D7pt
  finite-difference stencil on a phase field.
* :func:`study_block_sizes`: the block shapes of the paper's eq. (9).

Both kernels use the paper's "straight forward 3D mapping": x (contiguous in memory)
on ``l.0``/``g.0``, y on ``l.1``/``g.1``, z on ``l.2``/``g.2``, with block shape
``block = (X, Y, Z)``, and read global memory directly (no local memory). "Thread
folding" ``fold = (fx, fy, fz)`` makes each work item compute ``fx * fy * fz``
consecutive grid points (``fy`` consecutive y values times ``fz`` consecutive z
values; ``fx`` is allowed but unused by the study), as an unrolled inner loop: a
block then covers ``X*fx x Y*fy x Z*fz`` points. Sizes need not be multiples of the
block or the fold: loopy guards the partial blocks and the folded iterations.

Inputs are padded instead of special-casing boundaries (as in ``defs/stencil.py``):
the stencil's ``u`` is ``(nz+8, ny+8, nx+8)`` and output point ``(z, y, x)`` is
centred on ``u[z+4, y+4, x+4]``; the LBM arrays carry one ghost layer.

The specs (:func:`star_stencil_spec`, :func:`lbm_spec`) are *not* registered in the
catalog: the study sweeps block shapes of its own, so they are built on demand. Their
variants are ``"nofold"``, ``"fold_y"`` (2 points in y) and ``"fold_z"`` (2 in z);
``spec.request(variant, dtype, (X, Y, Z))`` accepts any 3-D block, and without a
size the spec's ``fixed_group_size`` (32, 4, 8) is used.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.errors import GroupSizeError, ParameterError
from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec

#: Fold of each study variant, (fx, fy, fz).
FOLDS: Mapping[str, tuple[int, int, int]] = {
    "nofold": (1, 1, 1),
    "fold_y": (1, 2, 1),
    "fold_z": (1, 1, 2),
}
VARIANTS = tuple(FOLDS)

#: Default block when a request names none (32 x 4 x 8 = 1024 work items).
DEFAULT_BLOCK = (32, 4, 8)

_SIZES = ("nx", "ny", "nz")
_ASSUMPTIONS = "nx >= 1 and ny >= 1 and nz >= 1"
_DOMAIN = "{[x, y, z]: 0 <= x < nx and 0 <= y < ny and 0 <= z < nz}"


# {{{ block sizes and thread mapping

def study_block_sizes(total: int) -> tuple[tuple[int, int, int], ...]:
    """All block shapes (X, Y, Z) of eq. (9) with ``X*Y*Z == total``.

    X, Y range over {1, 2, 4, ..., 512}, Z over {1, 2, ..., 64}. Ordered by X, then Y,
    then Z. ``total`` is 1024 for the stencil (54 shapes) and 512 for the LBM kernel
    (49 shapes); a total that no shape reaches gives an empty tuple.
    """
    if int(total) < 1:
        raise ParameterError(f"block size total must be positive, got {total}")
    xy = [2 ** k for k in range(10)]
    zs = [2 ** k for k in range(7)]
    return tuple((x, y, z) for x, y, z in itertools.product(xy, xy, zs)
                 if x * y * z == total)


def _check_shape(name: str, value, minimum: int = 1) -> tuple[int, int, int]:
    value = tuple(int(v) for v in value)
    if len(value) != 3 or any(v < minimum for v in value):
        raise GroupSizeError(f"{name} must be three positive integers, got {value!r}")
    return value  # type: ignore[return-value]


def map_threads_3d(knl: lp.TranslationUnit, block, fold=(1, 1, 1)
                   ) -> lp.TranslationUnit:
    """x/y/z -> l.0/l.1/l.2 (blocks g.0/g.1/g.2), each work item doing ``fold`` points.

    For a folded axis ``a``: ``a = (a_outer_outer * B + a_outer_inner) * f + a_inner``
    with ``a_inner`` (unrolled) the fold, ``a_outer_inner`` the work item and
    ``a_outer_outer`` the block. Unfolded axes are split once: ``a_inner`` on ``l.*``.
    """
    block = _check_shape("block", block)
    fold = _check_shape("fold", fold)
    for axis, (iname, b, f) in enumerate(zip(("x", "y", "z"), block, fold)):
        if f == 1:
            knl = lp.split_iname(knl, iname, b, outer_tag=f"g.{axis}",
                                 inner_tag=f"l.{axis}")
        else:
            knl = lp.split_iname(knl, iname, f, inner_tag="unr")
            knl = lp.split_iname(knl, f"{iname}_outer", b, outer_tag=f"g.{axis}",
                                 inner_tag=f"l.{axis}")
    return knl


def _fold_of(request: BuildRequest) -> tuple[int, int, int]:
    u.require(request, VARIANTS, 3)
    return FOLDS[request.variant]

# }}}


# {{{ 3D25pt star stencil

#: Stencil range (half width) and the weights c0 (centre) .. c4 (distance 4).
R = 4
WEIGHTS = (0.25, 0.125, 0.0625, 0.03125, 0.015625)


def _star_insn() -> str:
    c = f"u[z+{R}, y+{R}, x+{R}]"
    terms = [f"{WEIGHTS[0]!r} * {c}"]
    for d in range(1, R + 1):
        ring = [f"u[z+{R}, y+{R}, x+{R - d}]", f"u[z+{R}, y+{R}, x+{R + d}]",
                f"u[z+{R}, y+{R - d}, x+{R}]", f"u[z+{R}, y+{R + d}, x+{R}]",
                f"u[z+{R - d}, y+{R}, x+{R}]", f"u[z+{R + d}, y+{R}, x+{R}]"]
        terms.append(f"{WEIGHTS[d]!r} * ({' + '.join(ring)})")
    return "out[z, y, x] = (" + "\n    + ".join(terms) + ")"


def star_stencil_3d(block: tuple[int, int, int], fold: tuple[int, int, int] = (1, 1, 1),
                    dtype: str | DType = "float64") -> lp.TranslationUnit:
    """Range-4 3D25pt star stencil, ``out`` (nz, ny, nx) from padded ``u`` (+8 each).

    ``out[z,y,x] = c0*u_c + sum_d c_d * (six points at distance d along +-x, +-y,
    +-z)``: 25 global loads, 1 store, 5 multiplications and 24 additions per point.
    """
    return map_threads_3d(_star_base(DType.parse(dtype)), block, fold)


@functools.lru_cache(maxsize=8)
def _star_base(dt: DType) -> lp.TranslationUnit:
    """The unmapped stencil (parsing its 25-term statement is the costly part of a
    build; a block-size sweep maps this one kernel many times)."""
    return u.make_kernel(
        _DOMAIN, _star_insn(),
        [u.array("u", dt, (f"nz+{2 * R}", f"ny+{2 * R}", f"nx+{2 * R}")),
         u.array("out", dt, ("nz", "ny", "nx")), *u.size_args(*_SIZES)],
        name="star_stencil_3d", assumptions=_ASSUMPTIONS)


def _star_inputs(params, dtype: DType, rng) -> dict:
    nx, ny, nz = (params[k] for k in _SIZES)
    return {"u": u.random_array(rng, (nz + 2 * R, ny + 2 * R, nx + 2 * R), dtype)}


def star_reference(inputs: Mapping[str, np.ndarray], params) -> dict:
    nx, ny, nz = (params[k] for k in _SIZES)
    v = inputs["u"].astype(np.float64)

    def at(dz, dy, dx):
        return v[R + dz: R + dz + nz, R + dy: R + dy + ny, R + dx: R + dx + nx]

    res = WEIGHTS[0] * at(0, 0, 0)
    for d in range(1, R + 1):
        res = res + WEIGHTS[d] * (at(0, 0, -d) + at(0, 0, d) + at(0, -d, 0)
                                  + at(0, d, 0) + at(-d, 0, 0) + at(d, 0, 0))
    return {"out": u.as_dtype_of(res, inputs["u"])}

# }}}


# {{{ LBM-like kernel: D3Q15 pull streaming + 3D7pt phase-field stencil

#: D3Q15 lattice velocities (cx, cy, cz) and weights: rest, 6 faces, 8 corners.
D3Q15 = ((0, 0, 0),
         (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1),
         *((cx, cy, cz) for cz in (1, -1) for cy in (1, -1) for cx in (1, -1)))
D3Q15_WEIGHTS = (2 / 9, *([1 / 9] * 6), *([1 / 72] * 8))
Q = len(D3Q15)


def _lbm_insn() -> str:
    lines = []
    for q, (cx, cy, cz) in enumerate(D3Q15):
        # Pull: the value arriving at x came from x - c_q (ghost layer offset +1).
        lines.append(f"<> f{q} = f[{q}, z+{1 - cz}, y+{1 - cy}, x+{1 - cx}]")
    lines.append("<> rho = " + " + ".join(f"f{q}" for q in range(Q)))
    lines.append("<> lap = phi[z+1, y+1, x] + phi[z+1, y+1, x+2] + phi[z+1, y, x+1]"
                 " + phi[z+1, y+2, x+1] + phi[z, y+1, x+1] + phi[z+2, y+1, x+1]"
                 " - 6 * phi[z+1, y+1, x+1]")
    for q, w in enumerate(D3Q15_WEIGHTS):
        lines.append(f"f_new[{q}, z, y, x] = f{q} + omega * ({w!r} * rho - f{q})"
                     f" + kappa * {w!r} * lap")
    return "for x, y, z\n" + "\n".join(f"    {line}" for line in lines) + "\nend"


def lbm_like(block: tuple[int, int, int], fold: tuple[int, int, int] = (1, 1, 1),
             dtype: str | DType = "float64") -> lp.TranslationUnit:
    """A simplified multi-phase LBM interface-tracking update (paper section IV-D).

    Simplification (the data movement is the paper's, the physics is not): the 15
    D3Q15 populations live in one SoA array ``f`` of shape (15, nz+2, ny+2, nx+2)
    (one ghost layer; equivalent to 15 separate arrays) and are *pulled* from the
    neighbour at ``-c_q`` (unaligned loads, aligned stores); the collision is a BGK
    relaxation toward the rest equilibrium ``w_q * rho`` with rate ``omega``; the
    conservative Allen-Cahn interface term is replaced by ``kappa * w_q * lap(phi)``,
    with ``lap`` the 3D7pt Laplacian of the phase field ``phi`` (nz+2, ny+2, nx+2).
    Per point: 15 + 7 loads, 15 stores (240 B + phase field in float64).
    """
    return map_threads_3d(_lbm_base(DType.parse(dtype)), block, fold)


@functools.lru_cache(maxsize=8)
def _lbm_base(dt: DType) -> lp.TranslationUnit:
    padded = ("nz+2", "ny+2", "nx+2")
    return u.make_kernel(
        _DOMAIN, _lbm_insn(),
        [u.array("f", dt, (Q, *padded)), u.array("phi", dt, padded),
         u.array("f_new", dt, (Q, "nz", "ny", "nx")),
         lp.ValueArg("omega", dt.numpy), lp.ValueArg("kappa", dt.numpy),
         *u.size_args(*_SIZES)],
        name="lbm_like", assumptions=_ASSUMPTIONS)


def _lbm_inputs(params, dtype: DType, rng) -> dict:
    nx, ny, nz = (params[k] for k in _SIZES)
    padded = (nz + 2, ny + 2, nx + 2)
    return {"f": u.random_array(rng, (Q, *padded), dtype),
            "phi": u.random_array(rng, padded, dtype),
            "omega": dtype.numpy.type(0.6),
            "kappa": dtype.numpy.type(0.01)}


def lbm_reference(inputs: Mapping[str, np.ndarray], params) -> dict:
    nx, ny, nz = (params[k] for k in _SIZES)
    f = inputs["f"].astype(np.float64)
    phi = inputs["phi"].astype(np.float64)
    omega, kappa = float(inputs["omega"]), float(inputs["kappa"])

    def shift(a, dz, dy, dx):
        return a[..., 1 + dz: 1 + dz + nz, 1 + dy: 1 + dy + ny, 1 + dx: 1 + dx + nx]

    pulled = np.stack([shift(f[q], -cz, -cy, -cx) for q, (cx, cy, cz) in enumerate(D3Q15)])
    rho = pulled.sum(axis=0)
    lap = (shift(phi, 0, 0, -1) + shift(phi, 0, 0, 1) + shift(phi, 0, -1, 0)
           + shift(phi, 0, 1, 0) + shift(phi, -1, 0, 0) + shift(phi, 1, 0, 0)
           - 6 * shift(phi, 0, 0, 0))
    w = np.asarray(D3Q15_WEIGHTS)[:, None, None, None]
    res = pulled + omega * (w * rho - pulled) + kappa * w * lap
    return {"f_new": u.as_dtype_of(res, inputs["f"])}

# }}}


# {{{ specs

def _grid_cases(p: int) -> tuple[dict[str, int], ...]:
    """The paper's 640 x 512 x 512 grid at p = 9 (nx = 5 * 2**(p-2), ny = nz = 2**p)."""
    return ({"nx": 5 * 2 ** (p - 2), "ny": 2 ** p, "nz": 2 ** p},)


def star_stencil_spec() -> KernelSpec:
    return KernelSpec(
        name="star_stencil_3d",
        role=KernelRole.TEST,
        description="Range-4 3D25pt star stencil on a padded nz x ny x nx grid, "
                    "3-D blocks, optional 2x thread folding in y or z (Ernst et al.).",
        parameters=_SIZES,
        variants=VARIANTS,
        dtypes=u.FLOATS,
        group_dims=3,
        default_group_size_set="",  # no 3-D set exists; see fixed_group_size
        build=lambda req: star_stencil_3d(req.group_size, _fold_of(req), req.dtype),
        size_cases=_grid_cases,
        default_p=9,
        p_choices=(7, 8, 9),
        make_inputs=_star_inputs,
        reference=star_reference,
        check_params={"nx": 16, "ny": 16, "nz": 16},
        fixed_group_size=DEFAULT_BLOCK,
    )


def lbm_spec() -> KernelSpec:
    return KernelSpec(
        name="lbm_like",
        role=KernelRole.TEST,
        description="Simplified multi-phase LBM: D3Q15 pull streaming, BGK-like "
                    "collision, 3D7pt phase-field Laplacian; 3-D blocks, optional 2x "
                    "thread folding in y or z (Ernst et al.).",
        parameters=_SIZES,
        variants=VARIANTS,
        dtypes=u.FLOATS,
        group_dims=3,
        default_group_size_set="",  # no 3-D set exists; see fixed_group_size
        build=lambda req: lbm_like(req.group_size, _fold_of(req), req.dtype),
        size_cases=_grid_cases,
        default_p=8,
        p_choices=(7, 8),
        make_inputs=_lbm_inputs,
        reference=lbm_reference,
        check_params={"nx": 16, "ny": 16, "nz": 16},
        fixed_group_size=DEFAULT_BLOCK,
    )

# }}}
