"""The Lift paper's Table 1 features, and one kernel's values of them.

:class:`IRFeature` names one feature per row of Table 1 (the three grid dimensions
each count as one); :class:`IRFeatureVector` holds a kernel's value of every feature
for one set of sizes and tuning numbers.  The values come from
:mod:`workbench.models.ir_features.extract`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError, UnknownNameError


class IRFeatureKind(enum.Enum):
    """The three groups of Table 1."""

    PARALLELISM = "parallelism"
    MEMORY = "memory"
    CONTROL = "control flow and synchronization"


class IRFeature(enum.Enum):
    """One feature of Table 1; the value is its column name in feature frames."""

    GLOBAL_SIZE_0 = "global_size_0"
    GLOBAL_SIZE_1 = "global_size_1"
    GLOBAL_SIZE_2 = "global_size_2"
    LOCAL_SIZE_0 = "local_size_0"
    LOCAL_SIZE_1 = "local_size_1"
    LOCAL_SIZE_2 = "local_size_2"
    LOCAL_MEMORY_BYTES = "local_memory_bytes"
    GLOBAL_STORES = "global_stores"
    GLOBAL_LOADS = "global_loads"
    LOCAL_STORES = "local_stores"
    LOCAL_LOADS = "local_loads"
    CACHE_LINES_PER_WARP_ACCESS = "cache_lines_per_warp_access"
    BARRIERS = "barriers"
    CONDITIONALS = "conditionals"
    LOOP_BODIES = "loop_bodies"

    @property
    def label(self) -> str:
        """How Table 1 words it, with the unit."""
        return _LABELS[self]

    @property
    def kind(self) -> IRFeatureKind:
        return _KINDS[self]

    @classmethod
    def parse(cls, name: str | IRFeature) -> IRFeature:
        """A feature or its column name (``"global_loads"``)."""
        if isinstance(name, IRFeature):
            return name
        try:
            return cls(name)
        except ValueError:
            raise UnknownNameError("IR feature", str(name),
                                   [f.value for f in cls]) from None


_LABELS = {
    **{getattr(IRFeature, f"GLOBAL_SIZE_{k}"): f"global size, dimension {k} (work items)"
       for k in range(3)},
    **{getattr(IRFeature, f"LOCAL_SIZE_{k}"): f"local size, dimension {k} (work items)"
       for k in range(3)},
    IRFeature.LOCAL_MEMORY_BYTES: "local memory allocated per work group (bytes)",
    IRFeature.GLOBAL_STORES: "global stores per work item",
    IRFeature.GLOBAL_LOADS: "global loads per work item",
    IRFeature.LOCAL_STORES: "local stores per work item",
    IRFeature.LOCAL_LOADS: "local loads per work item",
    IRFeature.CACHE_LINES_PER_WARP_ACCESS:
        "average 128-byte cache lines per global access of a 32-lane warp",
    IRFeature.BARRIERS: "barriers per work item",
    IRFeature.CONDITIONALS: "if statements per work item",
    IRFeature.LOOP_BODIES: "for-loop bodies executed per work item",
}

_KINDS = {f: (IRFeatureKind.PARALLELISM if "SIZE" in f.name else
              IRFeatureKind.CONTROL if f in (IRFeature.BARRIERS, IRFeature.CONDITIONALS,
                                             IRFeature.LOOP_BODIES) else
              IRFeatureKind.MEMORY)
          for f in IRFeature}

#: The order of Table 1, that of feature arrays unless told otherwise.
FEATURE_ORDER: tuple[IRFeature, ...] = tuple(IRFeature)


@dataclass(frozen=True)
class IRFeatureVector(Mapping):
    """A kernel's value of every :class:`IRFeature` for one set of parameter values.

    A read-only mapping from feature to float (Table 1's order); ``as_array`` lays the
    values out in any order, for the model's matrices.
    """

    kernel_name: str
    values: tuple[float, ...]   # in FEATURE_ORDER

    def __post_init__(self):
        if len(self.values) != len(FEATURE_ORDER):
            raise ValueError(f"{len(self.values)} values for {len(FEATURE_ORDER)} features")
        object.__setattr__(self, "values", tuple(float(v) for v in self.values))

    @classmethod
    def from_mapping(cls, kernel_name: str, values: Mapping[IRFeature, float]
                     ) -> IRFeatureVector:
        missing = [f.value for f in FEATURE_ORDER if f not in values]
        if missing:
            raise ModelError(f"no value for IR feature(s) {', '.join(missing)}")
        return cls(kernel_name, tuple(values[f] for f in FEATURE_ORDER))

    def __getitem__(self, feature: IRFeature | str) -> float:
        return self.values[FEATURE_ORDER.index(IRFeature.parse(feature))]

    def __iter__(self) -> Iterator[IRFeature]:
        return iter(FEATURE_ORDER)

    def __len__(self) -> int:
        return len(FEATURE_ORDER)

    def as_array(self, order: Sequence[IRFeature | str] = FEATURE_ORDER) -> np.ndarray:
        """The values as float64, in ``order`` (Table 1's by default)."""
        return np.array([self[f] for f in order], dtype=np.float64)

    @property
    def is_finite(self) -> bool:
        return all(math.isfinite(v) for v in self.values)
