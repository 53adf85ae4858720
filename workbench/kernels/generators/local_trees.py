"""Local-memory trees, scans, barriers with few active lanes, and barrier-free local
streams: microbenchmarks that separate what a barrier costs from what a local access
costs, and what a tree level costs when most of a group's lanes sit idle (issue #34,
item 3).

Every kernel gives ``n`` work items (1-D, ``n`` a multiple of the group size ``G``, a
power of two) one local array per group and an ``iters``-trip loop, so that the
per-trip cost separates from launch and per-group costs:

* :func:`local_tree`: a reduction tree over the group's ``G`` values, ``log2 G``
  levels, the active lanes halving at each level (``G/2``, ..., 1), a barrier between
  levels.  Variant ``sequential``: lane ``k`` adds ``buf[k + s]`` into ``buf[k]``
  (contiguous, free of bank conflicts); variant ``interleaved``: at the level of
  half-width ``h`` (1, 2, ..., G/2) lane ``k < G/2h`` adds ``buf[2hk + h - 1]`` into
  ``buf[2hk + 2h - 1]``, the addressing of a Blelloch scan's up-sweep (a stride of
  ``2h`` words between lanes: bank conflicts grow with ``h``).
* :func:`local_scan`: the Hillis-Steele inclusive scan of the group's ``G`` values,
  ``log2 G`` steps, every lane active; each step reads two values into a second
  array, a barrier, writes one back, a barrier (as ``block_scan`` does per element).
* :func:`local_stream`: barrier-free local loads and stores, four independent rows
  per lane and trip; only the first ``act`` lanes of each group work (``act`` a
  runtime size): what a local access costs per active warp, without barriers.  Each
  trip reads a row another lane wrote (lane ``l`` reads lane ``l xor x``, ``x`` a
  runtime zero, so no compiler can keep the value in a register), and the kernel
  tells loopy that no barrier is wanted: the values race, the timing does not.

The barrier-only kernel is the 2019 set's :func:`~workbench.kernels.generators.
barrier_kernels.barriers`.  None of these is in the calibration catalog; they resolve
by name (:mod:`workbench.kernels.derived`) so that their measurements can join a fit,
and ``benchmarks/local_trees_microbench.py`` measures them.
"""

from __future__ import annotations

import functools

import loopy as lp
import numpy as np

from workbench.errors import GroupSizeError
from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec
from workbench.kernels.generators.common import LOCAL_MEMORY_LIMIT

#: the local-memory microbenchmarks and what each exposes
LOCAL_TREE_KERNELS: dict[str, str] = {
    "local_tree": "a reduction tree in local memory, active lanes halving per level",
    "local_scan": "a Hillis-Steele scan in local memory, two barriers per step",
    "local_stream": "barrier-free local loads and stores by the first act lanes",
}
TREE_VARIANTS = ("sequential", "interleaved")
#: rows of local_stream's array each lane loads and stores per trip
STREAM_ROWS = 4


def _power_of_two_group(req: BuildRequest) -> int:
    if len(req.group_size) != 1:
        raise GroupSizeError(f"expected a 1-D work-group size, got {req.group_size}")
    (group,) = req.group_size
    if group < 2 or group & (group - 1):
        raise GroupSizeError(f"the local-memory trees need a power-of-two group of at "
                             f"least 2 work items, got {group}")
    return group


def _local(name: str, req: BuildRequest, shape: tuple[int, ...]) -> lp.TemporaryVariable:
    nbytes = int(np.prod(shape)) * req.dtype.numpy.itemsize
    if nbytes > LOCAL_MEMORY_LIMIT:
        raise GroupSizeError(f"{nbytes} bytes of local memory exceed the "
                             f"{LOCAL_MEMORY_LIMIT}-byte limit")
    return lp.TemporaryVariable(name, req.dtype.numpy, shape=shape,
                                address_space=lp.AddressSpace.LOCAL)


def _levels(group: int) -> tuple[int, ...]:
    """The strides of a tree over ``group`` values: G/2, G/4, ..., 1."""
    return tuple(group >> (d + 1) for d in range(group.bit_length() - 1))


def _finish(knl: lp.TranslationUnit, lanes: list[str]) -> lp.TranslationUnit:
    knl = lp.tag_inames(knl, {"g": "g.0", **{name: "l.0" for name in lanes}})
    # the level loops name no g: each group runs them for its own array
    return lp.add_inames_for_unused_hw_axes(knl)


def _build_tree(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, TREE_VARIANTS, 1)
    group = _power_of_two_group(req)
    strides = _levels(group)
    lanes = [f"t{d}" for d in range(len(strides))]
    domain = (f"{{[g, l, k, {', '.join(lanes)}]: 0 <= l < {group} and 0 <= g and "
              f"{group}*g + l < n and 0 <= k < iters and "
              + " and ".join(f"0 <= {t} < {s}" for t, s in zip(lanes, strides)) + "}")
    lines = [f"<int32> v = {group}*g + l", "buf[l] = v {id=init}"]
    prev = "init"
    for d, (t, s) in enumerate(zip(lanes, strides)):
        if req.variant == "sequential":
            dst, src = t, f"{t} + {s}"
        else:  # a Blelloch up-sweep's addressing: s lanes, a stride of G/s words
            h = group // (2 * s)
            dst, src = f"{2 * h}*{t} + {2 * h - 1}", f"{2 * h}*{t} + {h - 1}"
        lines.append(f"buf[{dst}] = buf[{dst}] + buf[{src}] {{id=lv{d}, dep={prev}}}")
        prev = f"lv{d}"
    lines.append(f"out[{group}*g + l] = buf[l] {{dep={prev}}}")
    insns = "for g, l\n" + lines[0] + "\n" + lines[1] + "\nend\nfor k\n" + \
        "\n".join(lines[2:-1]) + "\nend\nfor g, l\n" + lines[-1] + "\nend"
    knl = u.make_kernel(
        domain, insns,
        [u.array("out", req.dtype, ("n",)), _local("buf", req, (group,)),
         *u.size_args("n", "iters")],
        name="local_tree", assumptions=f"n >= {group} and iters >= 1 and n mod {group} = 0")
    return _finish(knl, ["l", *lanes])


def _build_scan(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("hillis_steele",), 1)
    group = _power_of_two_group(req)
    offsets = tuple(2 ** d for d in range(group.bit_length() - 1))
    reads = [f"r{d}" for d in range(len(offsets))]
    writes = [f"w{d}" for d in range(len(offsets))]
    names = [*reads, *writes]
    domain = (f"{{[g, l, k, z, {', '.join(names)}]: 0 <= l < {group} and 0 <= g and "
              f"{group}*g + l < n and 0 <= k < iters and 0 <= z < {group} and "
              + " and ".join(f"0 <= {x} < {group}" for x in names) + "}")
    # buf[0:G] stays zero, so lane l reads buf[G + l - off] without a guard
    lines = [f"<int32> v = {group}*g + l", f"buf[{group} + l] = v {{id=init}}",
             "buf[z] = 0 {id=zero}"]
    body = []
    prev = "init:zero"
    for d, (off, r, w) in enumerate(zip(offsets, reads, writes)):
        body.append(f"tmp[{r}] = buf[{group} + {r}] + buf[{group} + {r} - {off}] "
                    f"{{id=rd{d}, dep={prev}}}")
        body.append(f"buf[{group} + {w}] = tmp[{w}] {{id=wr{d}, dep=rd{d}}}")
        prev = f"wr{d}"
    insns = ("for g, l\n" + "\n".join(lines[:2]) + "\nend\n" + lines[2] + "\nfor k\n"
             + "\n".join(body) + f"\nend\nfor g, l\nout[{group}*g + l] = buf[{group} + l] "
             f"{{dep={prev}}}\nend")
    knl = u.make_kernel(
        domain, insns,
        [u.array("out", req.dtype, ("n",)), _local("buf", req, (2 * group,)),
         _local("tmp", req, (group,)), *u.size_args("n", "iters")],
        name="local_scan", assumptions=f"n >= {group} and iters >= 1 and n mod {group} = 0")
    return _finish(knl, ["l", "z", *names])


def _build_stream(req: BuildRequest) -> lp.TranslationUnit:
    u.require(req, ("default",), 1)
    group = _power_of_two_group(req)
    rows = STREAM_ROWS
    domain = (f"{{[g, l, k, j, j0]: 0 <= l < {group} and 0 <= g and {group}*g + l < n "
              f"and l < act and 0 <= k < iters and 0 <= j, j0 < {rows}}}")
    insns = f"""
    for g, l
        for j0
            <int32> v = {group}*g + l + j0
            buf[j0, l] = v {{id=init}}
        end
        for k
            for j
                buf[j, l] = buf[j, l ^ x] + 1 {{id=move, dep=init, nosync=move:init}}
            end
        end
        out[{group}*g + l] = {" + ".join(f"buf[{r}, l]" for r in range(rows))} \
            {{dep=move, nosync=move}}
    end
    """
    knl = u.make_kernel(
        domain, insns,
        [u.array("out", req.dtype, ("n",)), _local("buf", req, (rows, group)),
         lp.ValueArg("x", np.int32), *u.size_args("n", "iters", "act")],
        name="local_stream",
        assumptions=f"n >= {group} and iters >= 1 and act >= 1 and n mod {group} = 0")
    knl = lp.prioritize_loops(knl, "k,j")
    knl = lp.tag_inames(knl, {"j": "unr", "j0": "unr"})
    return lp.tag_inames(knl, {"g": "g.0", "l": "l.0"})


def _no_inputs(params, dtype, rng) -> dict:
    return {}


def _stream_inputs(params, dtype, rng) -> dict:
    return {"x": np.int32(0)}


def _unchecked(inputs, params) -> dict:
    # timing kernels: the values race (local_stream) or overflow (the trees repeat)
    return {}


def _spec(name: str, variants: tuple[str, ...], build, parameters: tuple[str, ...],
          cases, check: dict, inputs=_no_inputs) -> KernelSpec:
    return KernelSpec(
        name=name, role=KernelRole.MEASUREMENT, description=LOCAL_TREE_KERNELS[name],
        parameters=parameters, variants=variants, dtypes=u.FLOATS, group_dims=1,
        default_group_size_set="1d-large", build=build, size_cases=cases,
        default_p=20, p_choices=(18, 19, 20, 21), make_inputs=inputs,
        reference=_unchecked, check_params=check)


def _loop_cases(p: int) -> tuple[dict[str, int], ...]:
    return tuple({"n": 2 ** p, "iters": 2 ** (t + 4)} for t in range(3))


@functools.lru_cache(maxsize=1)
def local_tree_specs() -> tuple[KernelSpec, ...]:
    """The three microbenchmark specs (measurement role; not in the catalog)."""
    return (
        _spec("local_tree", TREE_VARIANTS, _build_tree, ("n", "iters"), _loop_cases,
              {"n": 1024, "iters": 3}),
        _spec("local_scan", ("hillis_steele",), _build_scan, ("n", "iters"), _loop_cases,
              {"n": 1024, "iters": 3}),
        _spec("local_stream", ("default",), _build_stream, ("n", "iters", "act"),
              lambda p: tuple({"n": 2 ** p, "iters": 2 ** (t + 4), "act": 256}
                              for t in range(3)),
              {"n": 1024, "iters": 3, "act": 100}, inputs=_stream_inputs),
    )
