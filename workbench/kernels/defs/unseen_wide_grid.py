"""The wider unseen set's grid kernels: a 5 x 5 convolution, a 27-point stencil, a scan.

What the set is for is said in :mod:`.unseen_wide`.

* ``conv2d_5x5``: a 5 x 5 filter (a kernel argument in global memory, the same for
  every work item) over an n x n image padded by two: 25 image and 25 filter loads
  per output point from global memory (cache reuse), or the image tile plus a
  two-element halo from local memory.
* ``box27_3d``: the 27-point box stencil on an nx x ny x nz grid padded by one, four
  weights (centre, faces, edges, corners); 27 global loads per point, reused through
  L1 and L2. One point per work item with z on grid axis 2, or each item marching
  through ``BOX_Z_CHUNK`` planes.
* ``block_scan``: inclusive prefix sums within blocks of ``SCAN_BLOCK`` elements, one
  work group per block, in local memory (Hillis-Steele: log2 of the block steps,
  barriers between reads and writes); 12 or 24 KiB of local memory per group.
"""

from __future__ import annotations

import itertools

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec


def _scaled(p: int) -> tuple[int, ...]:
    return u.pow2(p, range(4))


# {{{ 5 x 5 convolution

CONV_RADIUS = 2
_CONV_VARIANTS = ("direct", "prefetch")


def _build_conv(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _CONV_VARIANTS, 2)
    w = 2 * CONV_RADIUS + 1
    knl = u.make_kernel(
        f"{{[i, j, di, dj]: 0 <= i, j < n and 0 <= di, dj < {w}}}",
        "out[i, j] = sum((di, dj), f[di, dj] * img[i + di, j + dj])",
        [u.array("img", req.dtype, (f"n+{2 * CONV_RADIUS}", f"n+{2 * CONV_RADIUS}")),
         u.array("f", req.dtype, (w, w)), u.array("out", req.dtype, ("n", "n")),
         *u.size_args("n")],
        name="conv2d_5x5", assumptions="n >= 1")
    knl = u.split_2d(knl, "i", "j", req.group_size)
    if req.variant == "prefetch":
        # (g1+4) x (g0+4) image elements per group, read once into local memory
        knl = lp.add_prefetch(knl, "img", ["i_inner", "j_inner", "di", "dj"],
                              fetch_bounding_box=True, default_tag="l.auto")
    return knl


def _conv_inputs(params, dtype, rng) -> dict:
    n, w = params["n"], 2 * CONV_RADIUS + 1
    return {"img": u.random_array(rng, (n + w - 1, n + w - 1), dtype),
            "f": u.random_array(rng, (w, w), dtype)}


def _conv_reference(inputs, params) -> dict:
    img, f = inputs["img"].astype(np.float64), inputs["f"].astype(np.float64)
    n, w = params["n"], f.shape[0]
    res = sum(f[a, b] * img[a:a + n, b:b + n] for a in range(w) for b in range(w))
    return {"out": u.as_dtype_of(res, inputs["img"])}


CONV2D_5X5 = KernelSpec(
    name="conv2d_5x5",
    role=KernelRole.UNSEEN,
    description="5 x 5 filter (from global memory, shared by all work items) over an "
                "n x n image padded by two; image read from global memory, or its "
                "tile plus halo prefetched to local memory.",
    parameters=("n",),
    variants=_CONV_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-large",
    build=_build_conv,
    # (n+4)**2 stays below 2**31 for p up to 12
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p)),
    default_p=10,
    p_choices=(9, 10, 11),
    make_inputs=_conv_inputs,
    reference=_conv_reference,
    check_params={"n": 70},
)

# }}}


# {{{ 27-point box stencil

BOX_Z_CHUNK = 8
_BOX_VARIANTS = ("flat", "zmarch")
_BOX_WEIGHTS = (("c0", 0.25), ("c1", 0.0625), ("c2", 0.03125), ("c3", 0.015625))


def _box_insn() -> str:
    # the 27 neighbours grouped by how many coordinates differ from the centre
    classes: dict[int, list[str]] = {0: [], 1: [], 2: [], 3: []}
    for dz, dy, dx in itertools.product((0, 1, 2), repeat=3):
        far = sum(d != 1 for d in (dz, dy, dx))
        classes[far].append(f"u[z+{dz}, y+{dy}, x+{dx}]")
    terms = " + ".join(f"c{k}*({' + '.join(v)})" for k, v in classes.items())
    return f"out[z, y, x] = {terms}"


def _build_box27(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, _BOX_VARIANTS, 2)
    knl = u.make_kernel(
        "{[x, y, z]: 0 <= x < nx and 0 <= y < ny and 0 <= z < nz}", _box_insn(),
        [u.array("u", req.dtype, ("nz+2", "ny+2", "nx+2")),
         u.array("out", req.dtype, ("nz", "ny", "nx")),
         *(lp.ValueArg(w, req.dtype.numpy) for w, _ in _BOX_WEIGHTS),
         *u.size_args("nx", "ny", "nz")],
        name="box27_3d", assumptions="nx >= 1 and ny >= 1 and nz >= 1")
    knl = u.split_2d(knl, "y", "x", req.group_size)
    if req.variant == "flat":
        return lp.tag_inames(knl, {"z": "g.2"})
    return lp.split_iname(knl, "z", BOX_Z_CHUNK, outer_tag="g.2")


def _box27_inputs(params, dtype, rng) -> dict:
    shape = (params["nz"] + 2, params["ny"] + 2, params["nx"] + 2)
    return {"u": u.random_array(rng, shape, dtype),
            **{w: dtype.numpy.type(v) for w, v in _BOX_WEIGHTS}}


def _box27_reference(inputs, params) -> dict:
    v = inputs["u"].astype(np.float64)
    nz, ny, nx = (s - 2 for s in v.shape)
    res = np.zeros((nz, ny, nx))
    for dz, dy, dx in itertools.product((0, 1, 2), repeat=3):
        far = sum(d != 1 for d in (dz, dy, dx))
        res += float(inputs[f"c{far}"]) * v[dz:dz + nz, dy:dy + ny, dx:dx + nx]
    return {"out": u.as_dtype_of(res, inputs["u"])}


def _box27_cases(p: int) -> tuple[dict[str, int], ...]:
    # the point count doubles from case to case: x, then y, then z
    return tuple({"nx": 2 ** (p + (t + 2) // 3), "ny": 2 ** (p + (t + 1) // 3),
                  "nz": 2 ** (p + t // 3)} for t in range(4))


BOX27_3D = KernelSpec(
    name="box27_3d",
    role=KernelRole.UNSEEN,
    description=f"27-point box stencil (four weights) on an nx x ny x nz grid "
                f"(padded input), 27 global loads per point reused through the caches; "
                f"one point per work item, or each marching through {BOX_Z_CHUNK} "
                f"z planes.",
    parameters=("nx", "ny", "nz"),
    variants=_BOX_VARIANTS,
    dtypes=u.FLOATS,
    group_dims=2,
    default_group_size_set="2d-med",
    build=_build_box27,
    size_cases=_box27_cases,
    default_p=7,
    p_choices=(6, 7, 8),
    make_inputs=_box27_inputs,
    reference=_box27_reference,
    check_params={"nx": 37, "ny": 19, "nz": 11},
)

# }}}


# {{{ block-wise inclusive scan

#: Elements per block, i.e. per work group (whatever the group's size).
SCAN_BLOCK = 1024
_SCAN_OFFSETS = tuple(2 ** s for s in range(SCAN_BLOCK.bit_length() - 1))


def _build_scan(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("hillis_steele",), 1)
    (g,) = req.group_size
    s = SCAN_BLOCK
    # buf[0:s] stays zero, so element k reads buf[s + k - off] without a guard; each
    # step reads into tmp and writes back, and every phase is a loop of its own over
    # the block (iname k<phase>), so that loopy puts barriers between phases
    lines = ["buf[kz] = 0 {id=zero}", f"buf[{s} + k0] = a[{s}*b + k0] {{id=w0}}"]
    prev = "w0:zero"
    for step, off in enumerate(_SCAN_OFFSETS, start=1):
        r, w = f"kr{step}", f"k{step}"
        lines.append(f"tmp[{r}] = buf[{s} + {r}] + buf[{s} + {r} - {off}] "
                     f"{{id=r{step}, dep={prev}}}")
        lines.append(f"buf[{s} + {w}] = tmp[{w}] {{id=w{step}, dep=r{step}}}")
        prev = f"w{step}"
    lines.append(f"out[{s}*b + kout] = buf[{s} + kout] {{dep={prev}}}")
    phases = ["kz", "k0", *(f"k{i}" for i in range(1, len(_SCAN_OFFSETS) + 1)),
              *(f"kr{i}" for i in range(1, len(_SCAN_OFFSETS) + 1)), "kout"]
    knl = u.make_kernel(
        f"{{[b, {', '.join(phases)}]: 0 <= b and {s}*b < n and "
        + " and ".join(f"0 <= {k} < {s}" for k in phases) + "}",
        "\n".join(lines),
        [u.array("a", req.dtype, ("n",)), u.array("out", req.dtype, ("n",)),
         lp.TemporaryVariable("buf", req.dtype.numpy, shape=(2 * s,),
                              address_space=lp.AddressSpace.LOCAL),
         lp.TemporaryVariable("tmp", req.dtype.numpy, shape=(s,),
                              address_space=lp.AddressSpace.LOCAL),
         *u.size_args("n")],
        name="block_scan", assumptions=f"n >= {s} and n mod {s} = 0")
    knl = lp.tag_inames(knl, {"b": "g.0"})
    # the local-memory phases name no b: each group does them for its own block
    knl = lp.add_inames_for_unused_hw_axes(knl)
    # lane l handles elements l, l + g, ... of the block (guarded where g does not
    # divide it)
    for k in phases:
        knl = lp.split_iname(knl, k, g, inner_tag="l.0")
    return knl


def _scan_inputs(params, dtype, rng) -> dict:
    return {"a": u.random_array(rng, (params["n"],), dtype)}


def _scan_reference(inputs, params) -> dict:
    a = inputs["a"].astype(np.float64)
    return {"out": u.as_dtype_of(np.cumsum(a.reshape(-1, SCAN_BLOCK), axis=1).ravel(),
                                 inputs["a"])}


BLOCK_SCAN = KernelSpec(
    name="block_scan",
    role=KernelRole.UNSEEN,
    description=f"Inclusive prefix sums within blocks of {SCAN_BLOCK} elements, one "
                f"work group per block, in local memory (Hillis-Steele: "
                f"{len(_SCAN_OFFSETS)} steps, each a read and a write separated by "
                f"barriers; {3 * SCAN_BLOCK} elements of local memory per group).",
    parameters=("n",),
    variants=("hillis_steele",),
    dtypes=u.FLOATS,
    group_dims=1,
    default_group_size_set="1d-med",
    build=_build_scan,
    size_cases=lambda p: tuple({"n": n} for n in _scaled(p)),
    default_p=20,
    p_choices=(19, 20, 21),
    make_inputs=_scan_inputs,
    reference=_scan_reference,
    check_params={"n": 3 * SCAN_BLOCK},
)

# }}}

#: This module's kernels, in catalog order.
SPECS: tuple[KernelSpec, ...] = (CONV2D_5X5, BOX27_3D, BLOCK_SCAN)
