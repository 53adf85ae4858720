"""Kernel properties as frozen records, and the one grammar of their names.

The names are what model expressions refer to (the 2019 paper's ``f_`` prefix)::

    f_op_<dtype>_<kind>                          kind: add mul div pow special
    f_mem_access_global_<dtype>_<load|store>_<afr>
    f_mem_access_global_<dtype>_minls_<afr>      min(loads, stores) of one access class
    f_mem_access_local_<dtype>_<load|store>
    f_sync_barrier_local                         barriers met by all work items together
    f_thread_groups                              work groups launched
    f_sync_kernel_launch                         1 per launch (the constant)

``<afr>`` is the amortized stride fraction of the unified-model paper (section 2.1):
``stride0``, ``stride1``, ``frac<k>of<s>`` for strides s = 2..4 and
``frac<k>ofgt4`` for larger (or symbolic) strides, k being the quantized per-array
utilization in 1..s (1..4 for ``gt4``). ``frac1of2`` therefore reads "stride 2, at most
half of the touched span used" and ``frac4ofgt4`` "large stride, data fully used".
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import ClassVar

from workbench.errors import UnknownNameError


class OpKind(enum.Enum):
    ADD = "add"          # addition and subtraction
    MUL = "mul"
    DIV = "div"
    POW = "pow"
    SPECIAL = "special"  # rsqrt, exp, sqrt, sin, ... (every other float function)


class Direction(enum.Enum):
    LOAD = "load"
    STORE = "store"


class Granularity(enum.Enum):
    """How often an operation counts (2019 paper, section 'count granularity').

    WORKITEM: every count is a total over work items (the 2018 unified model).
    SUBGROUP: arithmetic, local accesses and uniform global accesses count once per
    sub-group; non-uniform global accesses and barriers once per work item.
    """

    WORKITEM = "workitem"
    SUBGROUP = "subgroup"


@dataclass(frozen=True, order=True)
class StrideFraction:
    """Amortized stride fraction: ``stride`` (None meaning '>4') and utilization k."""

    stride: int | None
    used: int = 0

    MAX_EXPLICIT_STRIDE: ClassVar[int] = 4

    def __post_init__(self):
        if self.stride in (0, 1):
            if self.used:
                raise ValueError("strides 0 and 1 carry no utilization")
        else:
            denom = self.stride or self.MAX_EXPLICIT_STRIDE
            if self.stride is not None and not 2 <= self.stride <= self.MAX_EXPLICIT_STRIDE:
                raise ValueError(f"explicit strides are 2..4, got {self.stride}")
            if not 1 <= self.used <= denom:
                raise ValueError(f"utilization class {self.used} outside 1..{denom}")

    @property
    def denominator(self) -> int:
        return self.stride if self.stride is not None else self.MAX_EXPLICIT_STRIDE

    @property
    def token(self) -> str:
        if self.stride in (0, 1):
            return f"stride{self.stride}"
        return f"frac{self.used}of{self.stride if self.stride is not None else 'gt4'}"

    @property
    def label(self) -> str:
        """The paper's notation: '0', '1', '1/2', '3/>4'."""
        if self.stride in (0, 1):
            return str(self.stride)
        return f"{self.used}/{self.stride if self.stride is not None else '>4'}"

    @classmethod
    def parse_token(cls, token: str) -> StrideFraction:
        m = re.fullmatch(r"stride([01])|frac(\d)of(\d|gt4)", token)
        if not m:
            raise ValueError(f"not a stride fraction: {token!r}")
        if m.group(1) is not None:
            return cls(int(m.group(1)))
        stride = None if m.group(3) == "gt4" else int(m.group(3))
        return cls(stride, int(m.group(2)))

    @classmethod
    def all(cls) -> tuple[StrideFraction, ...]:
        out = [cls(0), cls(1)]
        for s in (2, 3, 4, None):
            out += [cls(s, k) for k in range(1, (s or 4) + 1)]
        return tuple(out)


class Feature:
    """Base of the property records; ``name`` follows the module's grammar."""

    __slots__ = ()

    @property
    def name(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, order=True)
class OpCount(Feature):
    dtype: str
    kind: OpKind

    @property
    def name(self) -> str:
        return f"f_op_{self.dtype}_{self.kind.value}"


@dataclass(frozen=True, order=True)
class GlobalAccess(Feature):
    dtype: str
    direction: Direction
    fraction: StrideFraction

    @property
    def name(self) -> str:
        return f"f_mem_access_global_{self.dtype}_{self.direction.value}_{self.fraction.token}"


@dataclass(frozen=True, order=True)
class GlobalMinLoadStore(Feature):
    """min(loads, stores) of one access class: the roofline-like load/store pairing."""

    dtype: str
    fraction: StrideFraction

    @property
    def name(self) -> str:
        return f"f_mem_access_global_{self.dtype}_minls_{self.fraction.token}"


@dataclass(frozen=True, order=True)
class LocalAccess(Feature):
    dtype: str
    direction: Direction

    @property
    def name(self) -> str:
        return f"f_mem_access_local_{self.dtype}_{self.direction.value}"


@dataclass(frozen=True)
class LocalBarriers(Feature):
    @property
    def name(self) -> str:
        return "f_sync_barrier_local"


@dataclass(frozen=True)
class ThreadGroups(Feature):
    @property
    def name(self) -> str:
        return "f_thread_groups"


@dataclass(frozen=True)
class KernelLaunch(Feature):
    @property
    def name(self) -> str:
        return "f_sync_kernel_launch"


_DT = r"(float32|float64|int8|int16|int32|int64|uint8|uint16|uint32|uint64|complex64|complex128)"
_AFR = r"(stride[01]|frac\dof(?:\d|gt4))"


def parse_feature(name: str) -> Feature:
    """Inverse of ``Feature.name``; raises :class:`UnknownNameError` for other text."""
    fixed = {f.name: f for f in (LocalBarriers(), ThreadGroups(), KernelLaunch())}
    if name in fixed:
        return fixed[name]
    if m := re.fullmatch(rf"f_op_{_DT}_(\w+)", name):
        kinds = {k.value: k for k in OpKind}
        if m.group(2) in kinds:
            return OpCount(m.group(1), kinds[m.group(2)])
    if m := re.fullmatch(rf"f_mem_access_global_{_DT}_(load|store)_{_AFR}", name):
        return GlobalAccess(m.group(1), Direction(m.group(2)),
                            StrideFraction.parse_token(m.group(3)))
    if m := re.fullmatch(rf"f_mem_access_global_{_DT}_minls_{_AFR}", name):
        return GlobalMinLoadStore(m.group(1), StrideFraction.parse_token(m.group(2)))
    if m := re.fullmatch(rf"f_mem_access_local_{_DT}_(load|store)", name):
        return LocalAccess(m.group(1), Direction(m.group(2)))
    raise UnknownNameError("property", name, fixed)


def feature_sort_key(feature: Feature) -> tuple:
    order = (OpCount, GlobalAccess, GlobalMinLoadStore, LocalAccess, LocalBarriers,
             ThreadGroups, KernelLaunch)
    return (order.index(type(feature)), feature.name)


_KIND_LABELS = {OpKind.ADD: "Addition/Subtraction", OpKind.MUL: "Multiplication",
                OpKind.DIV: "Division", OpKind.POW: "Exponentiation",
                OpKind.SPECIAL: "Other Ops (special functions)"}


def _dt_label(dtype: str) -> str:
    return {"float32": "F32", "float64": "F64"}.get(dtype, dtype)


def _afr_label(fraction: StrideFraction) -> str:
    if fraction.stride == 0:
        return "Stride-0 (uniform)"
    if fraction.stride == 1:
        return "Stride-1"
    pct = round(100 * fraction.used / fraction.denominator)
    if fraction.stride is None:
        return f"Uncoalesced ({pct}%)"
    return f"Stride-{fraction.stride} ({pct}%)"


def feature_label(feature: Feature) -> str:
    """The unified-model paper's wording, as in its Table 2."""
    if isinstance(feature, OpCount):
        return f"{_dt_label(feature.dtype)} {_KIND_LABELS[feature.kind]}"
    if isinstance(feature, GlobalAccess):
        d = "Loads" if feature.direction is Direction.LOAD else "Stores"
        return f"{_dt_label(feature.dtype)} {_afr_label(feature.fraction)} {d}"
    if isinstance(feature, GlobalMinLoadStore):
        a = _afr_label(feature.fraction)
        return f"{_dt_label(feature.dtype)} Min({a} Loads, {a} Stores)"
    if isinstance(feature, LocalAccess):
        d = "Loads" if feature.direction is Direction.LOAD else "Stores"
        return f"Local {_dt_label(feature.dtype)} {d}"
    return {LocalBarriers: "Barriers", ThreadGroups: "Thread Groups",
            KernelLaunch: "Const(1)"}[type(feature)]
