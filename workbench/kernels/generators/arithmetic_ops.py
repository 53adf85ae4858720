"""Arithmetic kernels of the 2019 measurement set (after SHOC's MaxFlops).

:func:`arithmetic` updates 32 private variables by one kind of operation in a loop of
64 inner trips, unrolled 64 times (fewer for division, pow and float64 rsqrt, see
:func:`default_unroll`), ordered as in SHOC's MaxFlops so that no update depends on
the four before it (:func:`update_schedule`). :func:`arithmetic_op_counts` gives the
designed operation counts; the numpy reference replays the recurrence in float64.
"""

from __future__ import annotations

from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.errors import ParameterError, UnknownNameError
from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec
from workbench.kernels.generators.common import (
    SET_1D,
    _check_items,
    _loop_assumptions,
    _loop_domain,
    _loop_items,
    _require_group,
    _tag_grid,
)

# {{{ arithmetic

#: Private variables updated round-robin (paper: enough for full SIMD use without
#: spilling registers).
N_PRIVATE = 32
#: Unroll factor of the inner loop (paper, after SHOC's MaxFlops).
UNROLL = 64
#: Update ``j`` reads variable ``(j + PARTNER_OFFSET) % N_PRIVATE``, last written
#: ``PARTNER_OFFSET`` updates earlier; itself was written ``N_PRIVATE`` updates earlier.
PARTNER_OFFSET = 16
#: The paper's rule: no update reads a variable written by the four updates before it.
MIN_DEPENDENCY_DISTANCE = 4

#: op -> the loopy expression of update j (``{p}``: partner, ``{j}``: itself,
#: ``{s}``: the runtime scalar of update j's half) and the op kinds it performs.
_UPDATES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "add": ("r{p} - r{j}", ("add",)),
    "mul": ("r{p} * r{j}", ("mul",)),
    "madd": ("r{p} * {s} + r{j}", ("mul", "add")),
    "div": ("r{p} / r{j}", ("div",)),
    "rsqrt": ("rsqrt(r{p})", ("special",)),
    "pow": ("r{p} ** {s}", ("pow",)),
}

#: Accepted spellings of the ops (the paper's special-function feature is rsqrt here).
ARITHMETIC_OPS: tuple[str, ...] = tuple(_UPDATES)
_ALIASES: Mapping[str, str] = {"special": "rsqrt", "fma": "madd", "sub": "add"}

#: Runtime scalars (alpha: updates 0..15, beta: 16..31) of the ops that take them.
#: Passed as arguments so the compiler cannot specialize them (pow(x, 2) -> x*x...).
#: madd: a' = a + 0.5 b, b' = b - 4 a' has period 4 (trace 0, determinant 1): values
#: stay small dyadic rationals, exact in any float type. pow: (b**1.25)**0.8 ~ b.
_SCALARS: Mapping[str, tuple[float, float]] = {"madd": (0.5, -4.0), "pow": (1.25, 0.8)}


#: Unroll factors below 64 for ops that compile to long library sequences rather than
#: one instruction. On an H100 (NVIDIA OpenCL) a 64x unrolled float32 pow kernel (2048
#: inlined pow calls) took 240 s to compile; unrolled once it took 1.4 s and ran 15%
#: faster, and 4x unrolled divisions ran 20% faster than 64x: large bodies of long
#: sequences miss the instruction cache, a cost no real kernel's few such ops pay. The
#: count of updates per iteration (64 x 32) does not depend on the unroll factor.
_HEAVY_UNROLL: Mapping[tuple[str, str | None], int] = {
    ("pow", None): 1, ("div", None): 4, ("rsqrt", "float64"): 4}


def default_unroll(op: str, dtype: str | DType = "float32") -> int:
    """How many of the 64 inner trips :func:`arithmetic` writes out by default: all 64
    (the paper's factor) except for ops that are long instruction sequences."""
    op, dt = _canonical_op(op), DType.parse(dtype).value
    return _HEAVY_UNROLL.get((op, dt), _HEAVY_UNROLL.get((op, None), UNROLL))


def _partner(j: int) -> int:
    return (j + PARTNER_OFFSET) % N_PRIVATE


def update_schedule(op: str = "madd") -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The 32 updates of one loop iteration in order: (variable written, variables read).

    Sequence position ``k`` writes ``r[k % 32]`` and reads its partner ``r[(k+16) % 32]``
    (and, except for rsqrt and pow, itself): the nearest read is 16 updates back, well
    beyond the paper's four, so up to 16 independent updates can be in flight. Each
    pair (j, j+16) forms a two-variable recurrence chosen to keep values bounded for
    any trip count (see the op notes in :func:`arithmetic`).
    """
    reads_self = "{j}" in _UPDATES[_canonical_op(op)][0]
    return tuple((j, (_partner(j), j) if reads_self else (_partner(j),))
                 for j in range(N_PRIVATE))


def _canonical_op(op: str) -> str:
    op = _ALIASES.get(op, op)
    if op not in _UPDATES:
        raise UnknownNameError("arithmetic op", op, (*_UPDATES, *_ALIASES))
    return op


def arithmetic_op_counts(op: str, dtype: str, iters: int) -> dict[str, int]:
    """Designed float operations of one work item, by property name.

    ``iters * 64 * 32`` updates of the op's kind(s), plus the 31 additions of the
    final sum of the 32 variables.
    """
    op = _canonical_op(op)
    dt = DType.parse(dtype).value
    updates = iters * UNROLL * N_PRIVATE
    counts: dict[str, int] = {}
    for kind in _UPDATES[op][1]:
        counts[f"f_op_{dt}_{kind}"] = counts.get(f"f_op_{dt}_{kind}", 0) + updates
    counts[f"f_op_{dt}_add"] = counts.get(f"f_op_{dt}_add", 0) + N_PRIVATE - 1
    return counts


def _initial_values(op: str, w: np.ndarray) -> np.ndarray:
    """Initial r[j] of work items w, shape (32, len(w)); mirrors the kernel's ints."""
    j = np.arange(N_PRIVATE)[:, None]
    if op == "mul":
        # +-1: the only magnitudes products keep bounded; partners differ in sign.
        return (1 - 2 * ((w[None, :] + j + j // PARTNER_OFFSET) % 2)).astype(np.float64)
    return ((w[None, :] + j) % 8 + 2).astype(np.float64)


def _initial_int_expr(op: str, j: int, w: str) -> str:
    if op == "mul":
        return f"1 - 2*(({w} + {j + j // PARTNER_OFFSET}) % 2)"
    return f"({w} + {j}) % 8 + 2"


def _simulate(op: str, r: np.ndarray, updates_per_var: int,
              scalars: tuple[float, float] | None) -> np.ndarray:
    """Run the kernel's recurrence in float64 (r: (32, items), updated in place)."""
    for _ in range(updates_per_var):
        for j in range(N_PRIVATE):
            p = _partner(j)
            s = None if scalars is None else scalars[0 if j < PARTNER_OFFSET else 1]
            if op == "add":
                r[j] = r[p] - r[j]
            elif op == "mul":
                r[j] = r[p] * r[j]
            elif op == "madd":
                r[j] = r[p] * s + r[j]
            elif op == "div":
                r[j] = r[p] / r[j]
            elif op == "rsqrt":
                r[j] = 1.0 / np.sqrt(r[p])
            else:
                r[j] = r[p] ** s
    return r


def arithmetic(op: str, dtype: str = "float32", unroll: int | None = None) -> KernelSpec:
    """A SHOC-MaxFlops-style kernel: 32 private variables, 64x unrolled updates.

    Each work item initializes ``r0 .. r31`` from its index, then runs ``iters``
    iterations of a loop over 64 inner trips, each of which updates every variable
    once in the order of :func:`update_schedule` (``r_j`` from its partner
    ``r_{j+16}``). The inner loop is unrolled ``unroll`` times in the source: 64 (the
    paper) by default, fewer for long library sequences (see :func:`default_unroll`;
    a name then says e.g. ``arith32x64_unroll4_div_float32``). Finally each work item
    stores ``r0 + ... + r31`` (31 additions), which keeps all updates alive. No global
    loads; one store per work item; :func:`arithmetic_op_counts` gives the counts.

    Ops and why the values stay finite for any ``iters`` (each pair a, b = r_j, r_{j+16}):

    * ``add``: ``a' = b - a``, ``b' = a' - b``: period 3, small integers (exact);
    * ``mul``: ``a' = b * a``: values are +-1 (the only bounded choice for products);
    * ``madd``: ``a' = b*alpha + a`` (alpha = 0.5, beta = -4 for b): period 4, exact;
    * ``div``: ``a' = b / a``: period 3 in log space, values in [1/9, 9];
    * ``rsqrt`` (alias ``special``): ``a' = rsqrt(b)``: converges to 1, no error growth;
    * ``pow``: ``a' = b ** alpha`` (alpha = 1.25, beta = 0.8): returns to ``b``.

    The reference replays the recurrence in float64.
    """
    op = _canonical_op(op)
    dt = DType.parse(dtype)
    unroll = default_unroll(op, dt) if unroll is None else int(unroll)
    if unroll < 1 or UNROLL % unroll:
        raise ParameterError(f"unroll must divide {UNROLL}, got {unroll!r}")
    tag = "" if unroll == UNROLL else f"_unroll{unroll}"
    name = f"arith{N_PRIVATE}x{UNROLL}{tag}_{op}_{dt.value}"
    expr_fmt, kinds = _UPDATES[op]
    scalars = _SCALARS.get(op)

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        if req.dtype is not dt:
            raise UnknownNameError(f"dtype of {name!r}", req.dtype.value, (dt.value,))
        (group,) = req.group_size
        w = f"{group}*g + l"
        lines = ["for g, l"]
        for j in range(N_PRIVATE):
            lines.append(f"<int32> k{j} = {_initial_int_expr(op, j, w)}")
            lines.append(f"<{dt.value}> r{j} = k{j} {{id=init{j}}}")
        lines.append("for it, u")
        inits = ":".join(f"init{j}" for j in range(N_PRIVATE))
        for j, (p, *_) in update_schedule(op):
            s = "alpha" if j < PARTNER_OFFSET else "beta"
            # A chain of scheduling dependencies fixes the order within the body.
            dep = inits if j == 0 else f"upd{j - 1}"
            lines.append(f"r{j} = {expr_fmt.format(p=p, j=j, s=s)} {{id=upd{j}, dep={dep}}}")
        lines.append("end")
        total = " + ".join(f"r{j}" for j in range(N_PRIVATE))
        lines.append(f"out[{w}] = {total} {{dep=upd{N_PRIVATE - 1}}}")
        lines.append("end")
        args = [u.array("out", dt, ("n",))]
        if scalars is not None:
            args += [lp.ValueArg("alpha", dt.numpy), lp.ValueArg("beta", dt.numpy)]
        knl = u.make_kernel(
            _loop_domain(group, "it, u", f"0 <= it < iters and 0 <= u < {UNROLL}"),
            "\n".join(lines), [*args, *u.size_args("n", "iters")],
            name=f"arith_{op}", assumptions=_loop_assumptions(group))
        if unroll == UNROLL:
            knl = lp.prioritize_loops(knl, "it,u")
            knl = lp.tag_inames(knl, {"u": "unr"})
        else:  # the same 64 inner trips, `unroll` of them per source copy
            knl = lp.split_iname(knl, "u", unroll, inner_tag="unr")
            knl = lp.prioritize_loops(knl, "it,u_outer,u_inner")
        return _tag_grid(knl)

    def make_inputs(params, dtype_, rng) -> dict:
        if scalars is None:
            return {}
        return {"alpha": dt.numpy.type(scalars[0]), "beta": dt.numpy.type(scalars[1])}

    def reference(inputs, params) -> dict:
        w = np.arange(params["n"])
        used = None if scalars is None else \
            (float(inputs["alpha"]), float(inputs["beta"]))  # the dtype-rounded values
        r = _simulate(op, _initial_values(op, w), params["iters"] * UNROLL, used)
        return {"out": r.sum(axis=0)}

    per_update = " and ".join(kinds)
    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{N_PRIVATE} private {dt.value} variables, each updated by one "
                    f"{per_update} per iteration of a loop unrolled {UNROLL} times "
                    f"(no update depends on the {MIN_DEPENDENCY_DISTANCE} before it); "
                    "the sum is stored once per work item.",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=(dt,),
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 2)}
                                   for t in range(4)),
        default_p=15,
        p_choices=(13, 14, 15, 16, 17),
        make_inputs=make_inputs,
        reference=reference,
        check_params={"n": _check_items(), "iters": 1},
        rtol=1e-4,
    )

# }}}

# vim: foldmethod=marker
