"""What a catalog kernel is: a loopy builder plus the facts a campaign needs.

A :class:`KernelSpec` builds a loopy kernel for one :class:`BuildRequest` (variant,
dtype, work-group size), knows its size cases (as a function of the per-device
exponent ``p`` of the unified-model paper, section 4.1), the work-group size sets
it is measured with, how to make inputs, and how to compute the expected output
with numpy so that every kernel can be checked numerically.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from workbench.errors import GroupSizeError, ParameterError, SizeError, UnknownNameError


class KernelRole(enum.Enum):
    """Measurement kernels calibrate a model; test kernels judge it (paper, 4.1 and 5).

    ``UNSEEN`` kernels are never used in any fit: they are measured and reported
    apart from both the measurement and the paper's test kernels, to judge a
    model's accuracy on code it was not shaped around.
    """

    MEASUREMENT = "measurement"
    TEST = "test"
    UNSEEN = "unseen"


class DType(enum.Enum):
    FLOAT32 = "float32"
    FLOAT64 = "float64"

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(self.value)

    @classmethod
    def parse(cls, text: str | DType | np.dtype | type) -> DType:
        if isinstance(text, DType):
            return text
        name = np.dtype(text).name if not isinstance(text, str) else text
        try:
            return cls(name)
        except ValueError:
            raise UnknownNameError("dtype", str(name), [d.value for d in cls]) from None


GroupSize = tuple[int, ...]


def entry_kernel(program) -> object:
    """The one kernel of a loopy translation unit (the workbench builds one per unit)."""
    return program[next(iter(program.entrypoints))]


def grid_size_exprs(program, *, realized: bool = False) -> tuple[tuple, tuple]:
    """(groups, work items per group) of a translation unit, as expressions of its
    size parameters.  ``realized``: after loopy realizes the reductions (a reduction
    over a local axis tags an iname no instruction runs within before).  A kernel
    loopy 2025 cannot size before that (a reduction assigning several results, an
    argmax) is sized after it whatever ``realized`` says."""
    import loopy as lp

    if not realized:
        try:
            return entry_kernel(program).get_grid_size_upper_bounds_as_exprs(
                program.callables_table)
        except AttributeError:
            pass
    prepared = lp.preprocess_program(program)
    return entry_kernel(prepared).get_grid_size_upper_bounds_as_exprs(
        prepared.callables_table)


def check_parameters(kernel: str, names, params: Mapping[str, object]) -> None:
    """Every parameter given, and none unknown; the message says which."""
    unknown = set(params) - set(names)
    if unknown:
        raise UnknownNameError(f"parameter of {kernel!r}", sorted(unknown)[0], names)
    missing = [p for p in names if p not in params]
    if missing:
        raise ParameterError(
            f"kernel {kernel!r} needs a value for parameter(s) "
            f"{', '.join(missing)} (e.g. --param {missing[0]}=1024)")


def parse_group_size(text: str | GroupSize) -> GroupSize:
    """``"16x16"`` -> ``(16, 16)``; ``"256"`` -> ``(256,)``. Axis 0 first."""
    if isinstance(text, tuple):
        sizes = text
    else:
        if not re.fullmatch(r"\s*\d+(\s*[xX,]\s*\d+){0,2}\s*", str(text)):
            raise GroupSizeError(
                f"malformed group size {text!r}: expected e.g. '256', '16x16' or '8x8x4'")
        sizes = tuple(int(s) for s in re.split(r"[xX,]", str(text).replace(" ", "")))
    if not sizes or any(s <= 0 for s in sizes):
        raise GroupSizeError(f"group size {text!r} must be positive integers")
    return tuple(int(s) for s in sizes)


def format_group_size(size: GroupSize) -> str:
    return "x".join(str(s) for s in size)


def parse_parameters(text: str) -> dict[str, int]:
    """``"n=1024, m=512"`` -> ``{"n": 1024, "m": 512}``; empty text -> ``{}``."""
    params: dict[str, int] = {}
    for part in (p for p in str(text).split(",") if p.strip()):
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*", part)
        if not m:
            raise ParameterError(
                f"malformed parameter {part.strip()!r}: expected NAME=INTEGER, e.g. n=1024")
        params[m.group(1)] = int(m.group(2))
    return params


@dataclass(frozen=True)
class GroupSizeSet:
    """A named set of work-group sizes (the paper's '2-D Med' etc.)."""

    name: str
    sizes: tuple[GroupSize, ...]

    @property
    def dims(self) -> int:
        return len(self.sizes[0])


# The paper's sets (section 4.1). Sizes are (axis 0, axis 1): "16 x 12" is l.0=16, l.1=12.
GROUP_SIZE_SETS: Mapping[str, GroupSizeSet] = {
    s.name: s for s in (
        GroupSizeSet("1d-small", ((192,), (224,), (256,))),
        GroupSizeSet("1d-med", ((128,), (256,), (384,))),
        GroupSizeSet("1d-large", ((256,), (384,), (512,))),
        GroupSizeSet("2d-small", ((16, 12), (16, 14), (16, 16))),
        GroupSizeSet("2d-med", ((16, 12), (16, 16), (32, 16))),
        GroupSizeSet("2d-large", ((16, 16), (24, 16), (32, 16))),
        # not the paper's: six shapes each, a heatmap's worth (quick campaigns measure
        # the test kernels and the dashboard's chosen kernel at these; 256 is in both)
        GroupSizeSet("1d-grid", ((64,), (128,), (192,), (256,), (384,), (512,))),
        GroupSizeSet("2d-grid", ((8, 8), (16, 8), (32, 8), (8, 16), (16, 16), (32, 16))),
    )
}


def grid_group_set(dims: int) -> str:
    """The name of the six-shape set of ``dims``-D groups ("1d-grid", "2d-grid")."""
    name = f"{dims}d-grid"
    if name not in GROUP_SIZE_SETS:
        raise GroupSizeError(f"no grid of {dims}-D work-group shapes")
    return name


@dataclass(frozen=True)
class BuildRequest:
    """Everything that selects one concrete loopy kernel from a catalog entry."""

    variant: str
    dtype: DType
    group_size: GroupSize


class KeptBuilds:
    """A spec's ``build`` that keeps its last programs per request.  It pickles as the
    function it wraps (the prebuild workers get specs by value), without what it kept."""

    KEEP = 32

    def __init__(self, build: Callable[[BuildRequest], object]):
        self.build = build
        self._kept: dict[BuildRequest, object] = {}

    def __call__(self, request: BuildRequest):
        kept = self._kept.get(request)
        if kept is None:
            kept = self.build(request)
            if len(self._kept) >= self.KEEP:
                self._kept.pop(next(iter(self._kept)), None)
            self._kept[request] = kept
        return kept

    def __reduce__(self):
        return (KeptBuilds, (self.build,))


@dataclass(frozen=True, eq=False)   # one object per kernel: compared and hashed by identity
class KernelSpec:
    """One catalog entry.

    ``build(request)`` returns a loopy ``TranslationUnit`` whose size parameters stay
    symbolic. ``size_cases(p)`` returns the parameter sets of the paper's size cases
    for exponent ``p`` (:meth:`cases` gives those of one variant); ``default_p`` is a
    sensible exponent for a desktop GPU and ``p_choices`` the range the paper allows.
    ``make_inputs(params, dtype, rng)`` returns the kernel's array and scalar
    arguments (host numpy data) and ``reference(inputs, params)`` the expected
    outputs keyed by argument name.
    """

    name: str
    role: KernelRole
    description: str
    parameters: tuple[str, ...]
    variants: tuple[str, ...]
    dtypes: tuple[DType, ...]
    group_dims: int
    default_group_size_set: str
    build: Callable[[BuildRequest], object]
    size_cases: Callable[[int], tuple[Mapping[str, int], ...]]
    default_p: int
    p_choices: tuple[int, ...]
    make_inputs: Callable[[Mapping[str, int], DType, np.random.Generator], dict]
    reference: Callable[[Mapping[str, np.ndarray], Mapping[str, int]], dict]
    check_params: Mapping[str, int] = field(default_factory=dict)
    rtol: float = 1e-4
    fixed_group_size: GroupSize | None = None  # a user kernel's built-in group size
    # Per-variant hooks, for kernels whose variants differ in sizes, arguments or
    # results. When set they take precedence; the plain callables above then describe
    # the default variant. Use :meth:`cases`, :meth:`inputs` and :meth:`expected`,
    # which work for every spec.
    variant_size_cases: Callable[[str, int], tuple[Mapping[str, int], ...]] | None = None
    variant_make_inputs: Callable[[str, Mapping[str, int], DType, np.random.Generator],
                                  dict] | None = None
    variant_reference: Callable[[str, Mapping[str, np.ndarray], Mapping[str, int]],
                                dict] | None = None

    def __post_init__(self):
        # one build per request and spec: counting, occupancy, the local-memory
        # analysis and the launch-size caveats all read the same (immutable) program
        if not isinstance(self.build, KeptBuilds):
            object.__setattr__(self, "build", KeptBuilds(self.build))

    @property
    def default_variant(self) -> str:
        return self.variants[0]

    def _variant(self, variant: str | None) -> str:
        variant = variant or self.default_variant
        if variant not in self.variants:
            raise UnknownNameError(f"variant of {self.name!r}", variant, self.variants)
        return variant

    def cases(self, p: int, variant: str | None = None) -> tuple[Mapping[str, int], ...]:
        """The size cases of one variant.

        Most kernels' variants share ``size_cases(p)``. Where the variants *are* shape
        cases (the paper's tiled matrix multiplication: n=m=l, l=n/2, ...), the same
        built kernel is measured at different parameter sets per variant.
        """
        variant = self._variant(variant)
        if self.variant_size_cases is None:
            return self.size_cases(p)
        return self.variant_size_cases(variant, p)

    def inputs(self, params: Mapping[str, int], dtype: DType, rng: np.random.Generator,
               variant: str | None = None) -> dict:
        """Host arguments of one variant (the copy kernel takes one array, sum4 four)."""
        variant = self._variant(variant)
        if self.variant_make_inputs is None:
            return self.make_inputs(params, dtype, rng)
        return self.variant_make_inputs(variant, params, dtype, rng)

    def expected(self, inputs: Mapping[str, np.ndarray], params: Mapping[str, int],
                 variant: str | None = None) -> dict:
        """Reference outputs of one variant (e.g. each arithmetic variant differs)."""
        variant = self._variant(variant)
        if self.variant_reference is None:
            return self.reference(inputs, params)
        return self.variant_reference(variant, inputs, params)

    def group_sizes(self, set_name: str | None = None) -> tuple[GroupSize, ...]:
        if self.fixed_group_size is not None and set_name is None:
            return (self.fixed_group_size,)
        name = set_name or self.default_group_size_set
        try:
            gset = GROUP_SIZE_SETS[name]
        except KeyError:
            raise UnknownNameError("group size set", name, GROUP_SIZE_SETS) from None
        if gset.dims != self.group_dims:
            raise GroupSizeError(
                f"kernel {self.name!r} takes {self.group_dims}-D work groups; "
                f"set {name!r} is {gset.dims}-D")
        return gset.sizes

    @property
    def default_dtype(self) -> DType:
        """The kernel's own precision: the first it supports (float32 for the catalog,
        the arrays' type for a user kernel)."""
        return self.dtypes[0]

    def request(self, variant: str | None = None, dtype: str | DType | None = None,
                group_size: str | GroupSize | None = None) -> BuildRequest:
        """Validate user input and turn it into a :class:`BuildRequest`."""
        variant = variant or self.default_variant
        if variant not in self.variants:
            raise UnknownNameError(f"variant of {self.name!r}", variant, self.variants)
        dt = self.default_dtype if dtype is None else DType.parse(dtype)
        if dt not in self.dtypes and len(self.dtypes) == 1:
            # a user kernel's precision is its arrays' declared type: "did you mean
            # float32?" read as if float64 were a typo
            only = self.dtypes[0].value
            raise UnknownNameError(
                f"dtype of {self.name!r}", dt.value, [only], said=(
                    f"kernel {self.name!r} computes in {only} only (the type its arrays "
                    f"are declared with), not {dt.value}: leave out --dtype, or write a "
                    f"{dt.value} version of the kernel with its arrays declared "
                    f"{dt.value}"))
        if dt not in self.dtypes:
            raise UnknownNameError(f"dtype of {self.name!r}", dt.value,
                                   [d.value for d in self.dtypes])
        gs = parse_group_size(group_size) if group_size is not None \
            else self.group_sizes()[-1]
        if len(gs) != self.group_dims:
            raise GroupSizeError(
                f"kernel {self.name!r} takes a {self.group_dims}-D work-group size, "
                f"got {format_group_size(gs)!r}")
        return BuildRequest(variant, dt, gs)

    def check_parameter_names(self, params: Mapping[str, int]) -> dict[str, int]:
        check_parameters(self.name, self.parameters, params)
        values = {k: int(v) for k, v in params.items()}
        # every kernel's parameters are sizes; a catalog kernel's assumptions refuse 0
        # and below in words of isl, and a user kernel rarely states any: saxpy with n=0
        # was predicted (a bare launch, "limiter: launch floor") as if that were news
        if empty := [(k, v) for k, v in values.items() if v <= 0]:
            name, value = empty[0]
            # (no "--param": the dashboard's sizes box says it in the same words)
            raise SizeError(f"kernel {self.name!r}: the size {name} must be at least 1, "
                            f"got {value}" + (" (a size of 0 leaves the kernel no work to "
                                              "do)" if value == 0 else ""))
        return values
