"""A residency penalty on a fitted model's predictions: few resident groups cost more
(issue #33).

A count-based model (the 2018 linear sum) sees a large work group's savings (fewer
loads of a larger tile, a smaller halo, fewer groups) and not what it costs: a
multiprocessor keeps a group's slots until its last warp ends, and a barrier holds
every warp of the group until the slowest arrives.  With ``k`` groups resident on a
multiprocessor the others cover one group's stalls; with ``k = 2`` (1024-item groups)
half the multiprocessor waits whenever one group does.  The exposed share falls as
``1 / k``, so the prediction is multiplied by ::

    1 + strength / k

where ``k`` is the groups resident per multiprocessor by its thread slots, group slots
and shared memory (:func:`workbench.hardware.occupancy.occupancy`, the limits of the
model's device from its shipped description), from what a point declares: its group
shape and, for a tuning space's point, the space's ``local_bytes(point)``.  Nothing is
built or counted for it (registers would need a build, which costs as much as a
measurement: they are left unbound).  A point that fits no group on a multiprocessor is
not predicted.

``strength`` = 1 was chosen on the six design spaces of ``examples/spaces/``
(0.25, 0.5, 1 and 2 tried: ``sample_data/h100/structure-ranking.md`` section 13) and
then checked on the held-out ones.  The penalty only reorders: a space's time scale is
the correction's business (``model-ei`` learns it), and every factor is at least 1, so
the device's floors stay floors.

Wrap a fitted model: ``ResidencyPenalty(load_model(path))`` predicts, ranks and
explains through :func:`workbench.models.prediction.predict` like any model; each
breakdown gains the factor as a ``residency_factor`` term.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate

#: the penalty's weight on 1 / (groups resident per multiprocessor)
STRENGTH = 1.0


def _device_name(model) -> str:
    described = getattr(model, "device_model", None)
    return getattr(described, "name", None) or dict(
        getattr(model, "device", {}) or {}).get("device", "")


def _shared_bytes(candidate: Candidate) -> float:
    """What the point declares (a tuning space's ``local_bytes``); NaN: unknown."""
    space = candidate.space
    if space is None or candidate.point is None:
        return float("nan")
    return float(space.local_bytes(candidate.point))


def residency_factors(candidates: Sequence[Candidate], device: str,
                      strength: float = STRENGTH) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate: the factor ``1 + strength / k`` and ``k``, the groups resident per
    multiprocessor of ``device`` (an OpenCL device name with a shipped description);
    ``k = 0`` (the group does not fit) gives an infinite factor."""
    from workbench.hardware.occupancy import occupancy
    from workbench.models.occupancy_features import limits_of_device

    limits = limits_of_device(device)
    if limits is None:
        raise ModelError(f"the residency penalty needs the residency limits of "
                         f"{device!r}: no shipped device description of that name has an "
                         "'occupancy' section")
    threads = np.array([math.prod(c.group_size) if c.group_size else 1
                        for c in candidates], dtype=np.float64)
    shared = np.array([_shared_bytes(c) for c in candidates], dtype=np.float64)
    resident = occupancy(limits, threads, np.ones_like(threads),
                         shared_bytes_per_group=shared).groups_per_sm
    with np.errstate(divide="ignore"):
        factors = np.where(resident > 0, 1.0 + strength / resident, np.inf)
    return factors, resident


@dataclasses.dataclass(frozen=True, eq=False)
class ResidencyPenalty:
    """A fitted model whose predictions carry the residency penalty (module docstring).
    ``on_device``: the OpenCL name of the device whose limits apply (default: the one
    the model was fitted on or describes).  It has no ``device`` of a model's: the
    wrapped model's prediction already has its floors and caveats, and a factor of at
    least 1 keeps them."""

    model: object
    strength: float = STRENGTH
    on_device: str | None = None

    def __post_init__(self):
        if not (self.strength >= 0 and math.isfinite(self.strength)):
            raise ModelError(f"the residency penalty's strength must be a non-negative "
                             f"number, not {self.strength!r}")
        if not self.device_name:
            raise ModelError("the residency penalty needs a device: the model was fitted "
                             "on (or describes) none, and none was given")

    @property
    def family(self) -> str:
        return f"{getattr(self.model, 'family', 'model')}+residency"

    @property
    def device_name(self) -> str:
        return self.on_device or _device_name(self.model)

    def predict_candidates(self, candidates, **context):
        from workbench.models.prediction import Term, TermKind, predict

        inner = predict(self.model, candidates, **context)
        factors, _ = residency_factors(inner.candidates, self.device_name, self.strength)
        seconds = np.asarray(inner.seconds, dtype=float) * factors
        breakdowns = tuple(
            None if b is None else dataclasses.replace(
                b, terms=(*b.terms, Term("residency_factor", TermKind.COUNT, float(f))))
            for b, f in zip(inner.breakdowns, factors))
        return dataclasses.replace(inner, seconds=seconds, breakdowns=breakdowns)
