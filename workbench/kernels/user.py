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

from workbench.errors import GroupSizeError, UnknownNameError, WorkbenchError
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec, entry_kernel
from workbench.kernels.catalog import get_kernel


def _group_size(kernel: lp.TranslationUnit) -> tuple[int, ...]:
    try:
        _, lsize = entry_kernel(kernel).get_grid_size_upper_bounds_as_exprs(
            kernel.callables_table)
    except AttributeError:
        # loopy 2025 cannot size a kernel whose reduction assigns several results
        # (argmax) before the reduction is realized
        kernel = lp.preprocess_kernel(kernel)
        _, lsize = entry_kernel(kernel).get_grid_size_upper_bounds_as_exprs(
            kernel.callables_table)
    knl = entry_kernel(kernel)
    if not all(isinstance(s, (int, np.integer)) for s in lsize):
        raise GroupSizeError(f"kernel {knl.name!r} has a non-constant work-group size")
    return tuple(int(s) for s in lsize) or (1,)


def spec_from_loopy(kernel: lp.TranslationUnit, name: str | None = None) -> KernelSpec:
    knl = entry_kernel(kernel)
    name = name or knl.name
    params = tuple(sorted(a.name for a in knl.args
                          if isinstance(a, lp.ValueArg) and a.name in knl.all_params()))
    float_dtypes = {np.dtype(a.dtype.numpy_dtype).name for a in knl.args
                    if isinstance(a, lp.ArrayArg) and a.dtype not in (None, lp.auto)}
    dtypes = tuple(d for d in DType if d.value in float_dtypes) or (DType.FLOAT32,)
    group = _group_size(kernel)

    def build(request: BuildRequest) -> lp.TranslationUnit:
        if request.group_size != group:
            raise GroupSizeError(
                f"kernel {name!r} has its work-group size {group} built in; "
                f"got {request.group_size}")
        return kernel

    def make_inputs(values, dtype, rng) -> dict:
        from pymbolic import evaluate

        out = {}
        for arg in knl.args:
            if isinstance(arg, lp.ArrayArg) and arg.shape not in (None, lp.auto):
                shape = tuple(int(evaluate(e, dict(values))) for e in arg.shape)
                dt = np.dtype(arg.dtype.numpy_dtype)
                out[arg.name] = (rng.random(shape).astype(dt) if dt.kind == "f"
                                 else np.zeros(shape, dt))
            elif isinstance(arg, lp.ValueArg) and arg.name not in params:
                out[arg.name] = np.dtype(arg.dtype.numpy_dtype).type(1)
        return out

    return KernelSpec(
        name=name, role=KernelRole.TEST, description=f"user kernel {knl.name}",
        parameters=params, variants=("default",), dtypes=dtypes, group_dims=len(group),
        default_group_size_set="", build=build, size_cases=lambda p: (),
        default_p=0, p_choices=(0,), make_inputs=make_inputs,
        reference=lambda inputs, values: {}, fixed_group_size=group)


def load_user_object(ref: str, what: str = "user kernel"):
    """``path/to/file.py:variable`` -> the object bound to ``variable`` there.

    The one place the workbench runs a user's Python file, as ``python FILE`` would.
    """
    path, _, var = ref.rpartition(":")
    if not path or not var:
        raise WorkbenchError(f"a {what} is named FILE.py:VARIABLE, got {ref!r}")
    if not Path(path).is_file():
        raise WorkbenchError(f"no such file: {path}")
    try:
        namespace = runpy.run_path(path)
    except Exception as err:  # noqa: BLE001 - the user's file, any error is theirs
        raise WorkbenchError(f"error while loading {path}: {type(err).__name__}: {err}"
                             ) from None
    if var not in namespace:
        raise UnknownNameError(f"variable in {path}", var,
                               [k for k in namespace if not k.startswith("_")])
    return namespace[var]


def load_user_kernel(ref: str) -> KernelSpec:
    """``path/to/file.py:variable`` -> the loopy kernel bound to ``variable`` there."""
    kernel = load_user_object(ref)
    if isinstance(kernel, lp.LoopKernel):
        kernel = lp.make_program(kernel)
    if not isinstance(kernel, lp.TranslationUnit):
        raise WorkbenchError(f"{ref} is a {type(kernel).__name__}, not a loopy kernel")
    return spec_from_loopy(kernel, name=ref.rpartition(":")[2])


def resolve_kernel(name: str) -> KernelSpec:
    """A catalog name, or ``FILE.py:VARIABLE`` for a user's kernel."""
    if ":" in name or name.endswith(".py"):
        return load_user_kernel(name)
    return get_kernel(name)
