"""A user's own loopy kernel, wrapped so it goes everywhere a catalog kernel goes.

``spec_from_loopy(kernel)`` gives a :class:`KernelSpec` whose one build is the kernel
as written (its work-group size already applied), with random inputs made from the
argument shapes.  ``resolve_kernel("file.py:name")`` loads one from a Python file.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import loopy as lp
import numpy as np
from loopy.symbolic import get_dependencies

from workbench.errors import GroupSizeError, ParameterError, UnknownNameError, WorkbenchError
from workbench.kernels.base import (
    BuildRequest,
    DType,
    KernelRole,
    KernelSpec,
    entry_kernel,
    format_group_size,
    grid_size_exprs,
)
from workbench.kernels.catalog import get_kernel


def _group_size(kernel: lp.TranslationUnit) -> tuple[int, ...]:
    _, lsize = grid_size_exprs(kernel)
    knl = entry_kernel(kernel)
    if not all(isinstance(s, (int, np.integer)) for s in lsize):
        raise GroupSizeError(f"kernel {knl.name!r} has a non-constant work-group size")
    return tuple(int(s) for s in lsize) or (1,)


def sequential_hint(spec: KernelSpec, request: BuildRequest) -> str | None:
    """What to do about a user's kernel that tags no iname ``g.*`` or ``l.*``: it runs
    as one work item, which a newcomer reads as a slow GPU rather than as a missing
    ``split_iname``.  None for any other kernel."""
    if spec.fixed_group_size != (1,):
        return None
    gsize, lsize = grid_size_exprs(spec.build(request))
    if gsize or lsize:
        return None
    return ("the kernel tags no iname g.* or l.*, so it runs as ONE work item; spread "
            "a loop over the GPU, e.g. lp.split_iname(knl, \"i\", 256, "
            "outer_tag=\"g.0\", inner_tag=\"l.0\")")


def _index_bounds(knl) -> dict[str, list]:
    """Integer arrays used only as an axis index of other arrays, directly
    (``a[k[i]]``) or through a temporary loaded from them (``<> c = k[i]`` ...
    ``a[c]``): name -> the sizes of the axes they index, so that their inputs can be
    valid indices.  An array used any other way (``a[k[i] + 1]``, arithmetic) is left
    out: its inputs stay zeros, always in bounds."""
    from pymbolic import primitives as prim

    ints = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)
            and a.dtype not in (None, lp.auto) and np.dtype(a.dtype.numpy_dtype).kind in "iu"}
    shapes = {a.name: a.shape for a in (*knl.args, *knl.temporary_variables.values())
              if isinstance(getattr(a, "shape", None), tuple) and a.shape}
    loaded = {}
    for insn in knl.instructions:
        value, targets = getattr(insn, "expression", None), insn.assignee_var_names()
        if (isinstance(value, prim.Subscript) and len(targets) == 1
                and getattr(value.aggregate, "name", None) in ints):
            loaded[targets[0]] = value.aggregate.name
    bounds: dict[str, list] = {}
    uses: dict[str, int] = {}      # every appearance of an index array or its temporary
    bare: dict[str, int] = {}      # those that are a whole axis index (or the load)

    def named(expr):
        if isinstance(expr, prim.Subscript) and getattr(expr.aggregate, "name", None) in ints:
            return expr.aggregate.name
        if isinstance(expr, prim.Variable) and expr.name in loaded:
            return expr.name
        return None

    def nodes(expr):
        # every node, repeats included (a cached walk would see a repeated
        # subexpression once, and a second use of an index array would go unseen)
        yield expr
        if isinstance(expr, tuple):
            for child in expr:
                yield from nodes(child)
        elif isinstance(expr, prim.ExpressionNode):
            for attr in expr.init_arg_names:
                yield from nodes(getattr(expr, attr))

    for insn in knl.instructions:
        # a variable assigned to is a definition, not a use
        for expr in (getattr(insn, "expression", None), *insn.assignees):
            if expr is None or isinstance(expr, prim.Variable):
                continue
            for node in nodes(expr):
                name = named(node)
                if name is not None:
                    uses[name] = uses.get(name, 0) + 1
                target = getattr(getattr(node, "aggregate", None), "name", None)
                if not isinstance(node, prim.Subscript) or target not in shapes:
                    continue
                index = node.index if isinstance(node.index, tuple) else (node.index,)
                for axis, size in zip(index, shapes[target]):
                    inner = named(axis)
                    if inner is not None:
                        bare[inner] = bare.get(inner, 0) + 1
                        bounds.setdefault(loaded.get(inner, inner), []).append(size)
        targets = insn.assignee_var_names()
        if len(targets) == 1 and targets[0] in loaded:   # the load into the temporary
            name = loaded[targets[0]]
            bare[name] = bare.get(name, 0) + 1
    unsafe = {loaded.get(n, n) for n in uses if bare.get(n, 0) != uses[n]}
    return {k: v for k, v in bounds.items() if k not in unsafe}


def spec_from_loopy(kernel: lp.TranslationUnit, name: str | None = None) -> KernelSpec:
    knl = entry_kernel(kernel)
    name = name or knl.name
    # a loop bound named nowhere (an argument list without ``...`` leaves it out): said
    # here, since later it would read as an unknown --param or a data-dependent bound
    undeclared = sorted(set(knl.all_params()) - {a.name for a in knl.args}
                        - set(knl.temporary_variables))
    if undeclared:
        raise ParameterError(
            f"kernel {name!r} uses {', '.join(undeclared)} in its loop bounds but does not "
            f"declare it as an argument: add lp.ValueArg({undeclared[0]!r}, np.int32) "
            "(or `...`) to its argument list")
    # the sizes of the loop domains, and an integer size that only an ``if`` reads
    # (``if i < m``): the counts follow an affine condition, so they depend on it too
    guarded = set().union(*(get_dependencies(p) for insn in knl.instructions
                            for p in insn.predicates))
    params = tuple(sorted(
        a.name for a in knl.args if isinstance(a, lp.ValueArg)
        and (a.name in knl.all_params()
             or (a.name in guarded and a.dtype not in (None, lp.auto)
                 and a.dtype.numpy_dtype.kind in "iu"))))
    float_dtypes = {np.dtype(a.dtype.numpy_dtype).name for a in knl.args
                    if isinstance(a, lp.ArrayArg) and a.dtype not in (None, lp.auto)}
    dtypes = tuple(d for d in DType if d.value in float_dtypes) or (DType.FLOAT32,)
    group = _group_size(kernel)

    def build(request: BuildRequest) -> lp.TranslationUnit:
        if request.group_size != group:
            raise GroupSizeError(
                f"kernel {name!r} has its work-group size "
                f"{format_group_size(group)} built in (its l.* inames); got "
                f"{format_group_size(request.group_size)}: ask for no group size, or "
                "split the kernel's inames by other sizes")
        return kernel

    index_bounds = _index_bounds(knl)

    def make_inputs(values, dtype, rng) -> dict:
        from pymbolic import evaluate

        out = {}
        for arg in knl.args:
            if isinstance(arg, lp.ArrayArg) and arg.shape not in (None, lp.auto):
                shape = tuple(int(evaluate(e, dict(values))) for e in arg.shape)
                dt = np.dtype(arg.dtype.numpy_dtype)
                if dt.kind == "f":
                    out[arg.name] = rng.random(shape).astype(dt)
                elif arg.name in index_bounds:
                    # an index array: random valid indices, so that a gather is timed
                    # as one (zeros would read one element with every lane)
                    top = min(int(evaluate(e, dict(values))) for e in index_bounds[arg.name])
                    top = min(top, int(np.iinfo(dt).max) + 1)
                    out[arg.name] = rng.integers(0, max(top, 1), shape).astype(dt)
                else:
                    out[arg.name] = np.zeros(shape, dt)
            elif isinstance(arg, lp.ValueArg) and arg.name not in params:
                out[arg.name] = np.dtype(arg.dtype.numpy_dtype).type(1)
        return out

    return KernelSpec(
        name=name, role=KernelRole.TEST,
        # by the name the user gave it (an unnamed make_kernel is "loopy_kernel")
        description=f"user kernel {name}" + (f" (loopy's name {knl.name})"
                                             if knl.name not in (name, "loopy_kernel") else ""),
        parameters=params, variants=("default",), dtypes=dtypes, group_dims=len(group),
        default_group_size_set="", build=build, size_cases=lambda p: (),
        default_p=0, p_choices=(0,), make_inputs=make_inputs,
        reference=lambda inputs, values: {}, fixed_group_size=group)


def load_user_object(ref: str, what: str = "user kernel", offers=None):
    """``path/to/file.py:variable`` -> the object bound to ``variable`` there.

    The one place the workbench runs a user's Python file, as ``python FILE`` would.
    ``offers(value)`` picks the variables a misspelt name is matched against, so that a
    kernel's list names kernels, not the file's imports.
    """
    path, _, var = ref.rpartition(":")
    if not path or not var:
        named = f"a {what} is named FILE.py:VARIABLE, got {ref!r}"
        if not ref.endswith(".py"):
            raise WorkbenchError(named)
        if not Path(ref).is_file():
            raise WorkbenchError(f"no such file: {ref}")
        # a file alone: say which names it offers (the first try of most newcomers)
        known = _offered(_run_user_file(ref), offers)
        raise WorkbenchError(named + (f"; it defines {', '.join(known)} (e.g. "
                                      f"{ref}:{known[0]})" if known else ""))
    if not Path(path).is_file():
        raise WorkbenchError(f"no such file: {path}")
    namespace = _run_user_file(path)
    if var not in namespace:
        raise UnknownNameError(f"variable in {path}", var, _offered(namespace, offers))
    return namespace[var]


#: the module name a user's file runs under: its ``if __name__ == "__main__"`` block
#: stays out, and the functions it defines carry it (so they can be told from imports)
USER_FILE_MODULE = "<run_path>"


def _run_user_file(path: str) -> dict:
    try:
        return runpy.run_path(path, run_name=USER_FILE_MODULE)
    except Exception as err:  # noqa: BLE001 - the user's file, any error is theirs
        raise WorkbenchError(f"error while loading {path}: {type(err).__name__}: {err}"
                             ) from None


def _offered(namespace: dict, offers) -> list[str]:
    return sorted(k for k, v in namespace.items() if not k.startswith("_")
                  and (offers is None or offers(v)))


def load_user_kernel(ref: str) -> KernelSpec:
    """``path/to/file.py:variable`` -> the loopy kernel bound to ``variable`` there."""
    kernel = load_user_object(
        ref, offers=lambda v: isinstance(v, (lp.LoopKernel, lp.TranslationUnit)))
    if isinstance(kernel, lp.LoopKernel):
        kernel = lp.make_program(kernel)
    if not isinstance(kernel, lp.TranslationUnit):
        raise WorkbenchError(f"{ref} is {type(kernel).__name__!r}, not a loopy kernel "
                             "(lp.make_kernel's result, transformed or not)")
    return spec_from_loopy(kernel, name=ref.rpartition(":")[2])


def resolve_kernel(name: str) -> KernelSpec:
    """A catalog name, or ``FILE.py:VARIABLE`` for a user's kernel."""
    if ":" in name or name.endswith(".py"):
        return load_user_kernel(name)
    return get_kernel(name)
