"""One evaluation of a point, with what it cost, and how it is stored.

Every cost a tuner pays for a point is kept apart, in seconds of wall time:
``transform`` (building the loopy kernel for the point), ``codegen`` (loopy's code
generation), ``build`` (the OpenCL compiler) and ``run`` (every launch of the
timing protocol, warm-up included); ``verify`` (comparing the result with the
reference) is recorded but not a tuning cost, since a tuner need not do it.

Evaluations go into the measurement store as ordinary rows (schema unchanged): the
kernel is ``tune.<space>``, the variant the point's label, the parameters the
space's problem sizes, and ``extra`` holds the point, the costs and the order of
the evaluation within its exploration.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from workbench.errors import TuningError
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.store import ConfigKey, Measurement, Status
from workbench.tuning.space import Point, TuningSpace

KERNEL_PREFIX = "tune."


class Cost(enum.Enum):
    TRANSFORM = "transform"
    CODEGEN = "codegen"
    BUILD = "build"
    RUN = "run"
    VERIFY = "verify"

    @property
    def counted(self) -> bool:
        """Whether a tuner pays it (verification is the workbench's own check)."""
        return self is not Cost.VERIFY


@dataclass(frozen=True)
class Evaluation:
    """A point's measured kernel time (None when it failed) and its costs."""

    point: Point
    status: Status
    time_s: float | None
    costs: Mapping[Cost, float] = field(default_factory=dict)
    raw_times_s: tuple[float, ...] = ()
    log: str = ""
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK and self.time_s is not None

    @property
    def cost_s(self) -> float:
        """Wall time a tuner pays for this point."""
        return float(sum(v for k, v in self.costs.items() if k.counted))


def space_kernel_name(space: TuningSpace | str) -> str:
    return KERNEL_PREFIX + (space if isinstance(space, str) else space.name)


def config_key(space: TuningSpace, point: Point, device: DeviceIdentity) -> ConfigKey:
    return ConfigKey.make(space_kernel_name(space), point.label, space.dtype,
                          dict(space.problem), space.group_size(point), device)


def to_measurement(space: TuningSpace, evaluation: Evaluation, device: DeviceIdentity, *,
                   campaign: int | None, discard_first: int, sequence: int,
                   extra: Mapping | None = None) -> Measurement:
    key = config_key(space, evaluation.point, device)
    info = {"point": evaluation.point.as_dict(),
            "costs_s": {k.value: v for k, v in evaluation.costs.items()},
            "sequence": sequence, **dict(evaluation.extra), **dict(extra or {})}
    if evaluation.status is Status.OK:
        return Measurement.ok(key, evaluation.raw_times_s, device=device,
                              discard_first=discard_first, campaign=campaign,
                              log=evaluation.log, extra=info)
    return Measurement.failed(key, evaluation.status, evaluation.log or "failed",
                              device=device, raw_times_s=evaluation.raw_times_s,
                              discard_first=discard_first, campaign=campaign, extra=info)


def from_measurement(space: TuningSpace, m: Measurement) -> Evaluation:
    """The evaluation a stored row records (its point read in the space's types)."""
    costs = {Cost(k): float(v) for k, v in dict(m.extra.get("costs_s", {})).items()}
    time_s = m.time_s if m.time_s is not None and math.isfinite(m.time_s) else None
    extra = {k: v for k, v in m.extra.items() if k not in ("point", "costs_s")}
    return Evaluation(space.point(m.key.variant), m.status, time_s, costs,
                      tuple(m.raw_times_s), m.log, extra)


def evaluations_by_label(space: TuningSpace, rows: Iterable[Measurement]
                         ) -> dict[str, Evaluation]:
    """The stored rows as evaluations keyed by their point's label in ``space`` (a label
    stored before a parameter was added reads with its ``added_params`` value); rows of
    points outside the space, one narrowed by ``where()``, are left out."""
    out: dict[str, Evaluation] = {}
    for m in rows:
        try:
            evaluation = from_measurement(space, m)
        except TuningError:
            continue
        out[evaluation.point.label] = evaluation
    return out
