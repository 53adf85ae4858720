"""Conventions shared by every catalog kernel definition.

All catalog kernels map their loop indices onto work groups the same way (work-group
axis 0 carries the index that is contiguous in memory, so that "stride 1" means what
the paper means), keep their size parameters symbolic so that one built kernel serves
every size case, and are checked numerically against numpy. Keeping these rules in
one module makes the kernel definitions read like the paper's descriptions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import loopy as lp
import numpy as np

from workbench.errors import GroupSizeError, UnknownNameError
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec

#: Warnings that every catalog kernel silences. Counting per sub-group uses the
#: (exact, constant) work-group size as an upper bound; loopy warns about this
#: because a kernel *could* contain several device programs, which none of ours do.
BENIGN_WARNINGS: tuple[str, ...] = ("insn_count_subgroups_upper_bound",)

#: Both precisions the paper models; every catalog kernel is meaningful in either.
FLOATS: tuple[DType, ...] = (DType.FLOAT32, DType.FLOAT64)

#: The loopy language version all kernels are written against (no deprecation noise).
LANG_VERSION = (2018, 2)


def make_kernel(domains: str | Sequence[str], instructions: str,
                arguments: Iterable[object], *, name: str, assumptions: str,
                silenced: Iterable[str] = ()) -> lp.TranslationUnit:
    """``lp.make_kernel`` with the catalog's fixed settings.

    The target is PyOpenCL because that is what measurements and numerical checks
    run on; callers may retarget the result.
    """
    return lp.make_kernel(
        domains, instructions, list(arguments),
        name=name,
        assumptions=assumptions,
        lang_version=LANG_VERSION,
        target=lp.PyOpenCLTarget(),
        silenced_warnings=[*BENIGN_WARNINGS, *silenced],
    )


def size_args(*names: str) -> list[lp.ValueArg]:
    """Size parameters: int32 value arguments named as in ``KernelSpec.parameters``."""
    return [lp.ValueArg(n, np.int32) for n in names]


def scalar_args(dtype: DType, consts: Iterable[tuple[str, float]]) -> list[lp.ValueArg]:
    """Named constants as value arguments of the kernel's precision (a float literal
    would turn float32 arithmetic into float64); ``consts``: (name, value) pairs."""
    return [lp.ValueArg(name, dtype.numpy) for name, _ in consts]


def scalar_inputs(dtype: DType, consts: Iterable[tuple[str, float]]) -> dict:
    """The values of :func:`scalar_args`'s arguments, in the kernel's precision."""
    return {name: dtype.numpy.type(v) for name, v in consts}


def array(name: str, dtype: DType, shape: tuple, order: str = "C") -> lp.GlobalArg:
    return lp.GlobalArg(name, dtype.numpy, shape=shape, order=order)


def require(request: BuildRequest, variants: Sequence[str], dims: int) -> None:
    """Reject a request a builder cannot honour (builders may be called directly)."""
    if request.variant not in variants:
        raise UnknownNameError("variant", request.variant, variants)
    if len(request.group_size) != dims:
        raise GroupSizeError(
            f"expected a {dims}-D work-group size, got {request.group_size!r}")


def split_1d(knl: lp.TranslationUnit, iname: str, group_size: tuple[int, ...]
             ) -> lp.TranslationUnit:
    """One work item per value of *iname*: ``<iname>_inner`` -> l.0, ``_outer`` -> g.0."""
    (g0,) = group_size
    return lp.split_iname(knl, iname, g0, outer_tag="g.0", inner_tag="l.0")


def split_2d(knl: lp.TranslationUnit, row: str, col: str, group_size: tuple[int, ...]
             ) -> lp.TranslationUnit:
    """One work item per (row, col): *col* (contiguous in row-major data) goes on axis 0.

    ``group_size = (g0, g1)`` follows the paper's "g0 x g1" notation, so a 16 x 12 group
    has 16 work items along *col* and 12 along *row*. Sizes need not divide the problem:
    loopy guards the partial groups at the edges.
    """
    g0, g1 = group_size
    knl = lp.split_iname(knl, row, g1, outer_tag="g.1", inner_tag="l.1")
    return lp.split_iname(knl, col, g0, outer_tag="g.0", inner_tag="l.0")


def pow2(p: int, steps: Iterable[int], scale: int = 1) -> tuple[int, ...]:
    """The paper's size sequence ``2**(p + scale*t)`` for ``t`` in *steps*."""
    return tuple(2 ** (p + scale * t) for t in steps)


def doubling_lengths(p: int) -> tuple[dict[str, int], ...]:
    """Four size cases of a 1-D kernel, ``n = 2**p`` to ``2**(p + 3)``."""
    return tuple({"n": n} for n in pow2(p, range(4)))


def doubling_rectangles(p: int) -> tuple[dict[str, int], ...]:
    """Four size cases of an ``m x n`` grid with ``m <= n <= 2 m``, from ``2**p``
    squared: the entry count doubles from case to case."""
    return tuple({"m": 2 ** (p + t // 2), "n": 2 ** (p + (t + 1) // 2)} for t in range(4))


def unseen_1d(**fields) -> dict:
    """The :class:`KernelSpec` fields every 1-D held-out kernel shares (role, both
    precisions, the large 1-D group sizes, :func:`doubling_lengths`); *fields* add to
    them."""
    return dict(role=KernelRole.UNSEEN, dtypes=FLOATS, group_dims=1,
                default_group_size_set="1d-large", size_cases=doubling_lengths, **fields)


def unseen_2d(**fields) -> dict:
    """The :class:`KernelSpec` fields every 2-D held-out kernel shares (``m x n``, both
    precisions, the large 2-D group sizes, :func:`doubling_rectangles` from ``2**11``);
    *fields* add to them or override the default size exponent."""
    fields = {"default_p": 11, "p_choices": (10, 11, 12), **fields}
    return dict(role=KernelRole.UNSEEN, parameters=("m", "n"), dtypes=FLOATS, group_dims=2,
                default_group_size_set="2d-large", size_cases=doubling_rectangles,
                check_params={"m": 45, "n": 70}, **fields)


def as_float64(inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    """Every input as float64: the precision a kernel's numpy reference computes in."""
    return {k: np.asarray(v, dtype=np.float64) for k, v in inputs.items()}


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: DType,
                 order: str = "C", low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """Uniform data in ``[low, high)``, in the exact dtype and memory order of the kernel.

    Positive data keeps float32 sums well conditioned, so a relative tolerance of
    about 1e-4 is meaningful for every catalog kernel.
    """
    data = low + (high - low) * rng.random(shape, dtype=np.float64)
    return np.asarray(data, dtype=dtype.numpy, order=order)


def as_dtype_of(value: np.ndarray, like: np.ndarray | DType) -> np.ndarray:
    """Cast a float64 reference result to the kernel's dtype."""
    dt = like.numpy if isinstance(like, DType) else like.dtype
    return np.asarray(value, dtype=dt)


def measurement_spec(name: str, description: str, variants: tuple[str, ...], build,
                     parameters: tuple[str, ...], cases, check: dict, inputs, reference,
                     variant_inputs=None, variant_reference=None, *, default_p: int,
                     p_choices: tuple[int, ...]) -> KernelSpec:
    """A one-dimensional microbenchmark's spec in both precisions (role measurement,
    found by name, not listed in the catalog)."""
    return KernelSpec(
        name=name, role=KernelRole.MEASUREMENT, description=description,
        parameters=parameters, variants=variants, dtypes=FLOATS, group_dims=1,
        default_group_size_set="1d-med", build=build, size_cases=cases,
        default_p=default_p, p_choices=p_choices, make_inputs=inputs,
        reference=reference, variant_make_inputs=variant_inputs,
        variant_reference=variant_reference, check_params=check)


def redraw_until_good(values, draw, is_bad, *, tries: int, axis: int = 0):
    """Redraw, in place, the entries of *values* that ``is_bad`` flags, until none is
    flagged or *tries* rounds have passed; returns *values*.

    Held-out input generators keep their data away from thresholds where float32 and
    float64 would take different arms.  *values* is one array or a tuple/list of arrays
    indexed alike; ``is_bad(*values)`` (or ``is_bad(values)`` for one array) gives a
    boolean mask over *values*' axis *axis* onward, and ``draw(k)`` returns *k* fresh
    entries in the layout of *values*.  Each round calls ``is_bad``, then ``draw`` once
    with the count of flagged entries, so that the random stream is the same as the
    hand-written loops this replaces (every check input depends on it).  After the
    last round the values are returned as they stand, as those loops did.
    """
    several = isinstance(values, (tuple, list))
    for _ in range(tries):
        bad = is_bad(*values) if several else is_bad(values)
        if not bad.any():
            break
        where = (slice(None),) * axis + (bad,)
        fresh = draw(bad.sum())
        if several:
            for array, new in zip(values, fresh, strict=True):
                array[where] = new
        else:
            values[where] = fresh
    return values
