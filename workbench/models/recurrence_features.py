"""The serial chain of a running sum, as a feature of the expression language.

``f_recurrence_s`` (a device feature, in seconds): where a kernel carries a value along
sequential loops and stores it to memory at every trip (a running sum down a column; since
round 11 of #34 a value written only to registers is none:
:func:`workbench.models.parallelism.running_sums`), each work item's trips run one
after another, whatever the bandwidth left idle.  The feature is

    waves x trips of the carried loops per work item x the device's price of a trip,

the price being what a trip of the latency microbenchmarks' column loop took a warp
with one warp per scheduler (``column_trip_ns`` in the ``serial`` floors of the device
description, per precision: 42.1 ns in float32 and 57.5 ns in float64 on the H100).
It is 0 for a kernel without a running sum, and for a device without the price.
Priced by a measurement, not fitted: no calibration kernel has a running sum, so a
model adds the feature with no weight (``... + f_recurrence_s``).

Issue #34 items 1 and 3 (serial dependence along an axis): ``column_cumsum`` of the
unseen2 set, one work item per column walking 8,192 rows, took 39 to 105 ns a trip
where the linear sectors model priced it at 2.5 to 34 ns.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import RECURRENCE_FEATURES
from workbench.models.feature_rows import built_rows


@functools.lru_cache(maxsize=512)
def _carried_trips(spec, request):
    """The trip counts (polynomials in the size parameters) of each running sum's
    carried loops per work item; empty where the kernel has none."""
    from loopy.statistics import count_inames_domain

    from workbench.models.parallelism import _grid, running_sums, sequential_inames

    _, _, knl = _grid(spec, request)
    return tuple(count_inames_domain(knl, found.loops)
                 for found in running_sums(knl, sequential_inames(knl)))


def recurrence_trips(candidate: Candidate) -> float:
    """Trips of the longest running sum one work item of ``candidate`` walks (0: no
    running sum)."""
    polys = _carried_trips(candidate.spec, candidate.request())
    params = candidate.params_dict
    return max((float(p.eval_with_dict(params)) for p in polys), default=0.0)


def recurrence_values(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
    """``f_recurrence_s`` of every candidate on ``device`` (NaN where a candidate
    cannot be built)."""
    from workbench.models.floors import floors_of_device
    from workbench.models.occupancy_features import occupancy_values

    candidates = list(candidates)
    out = np.zeros(len(candidates))
    floors = floors_of_device(device)
    prices = dict(floors.serial.column_trip_s) if floors and floors.serial else {}
    if not prices:
        return {"f_recurrence_s": out}
    waves = None
    for i, c, trips in built_rows(candidates, recurrence_trips, (out,)):
        if trips <= 0:
            continue
        if waves is None:
            waves = occupancy_values(candidates, device)["f_waves"]
        price = prices.get(str(c.dtype), max(prices.values()))
        out[i] = max(1.0, float(waves[i])) * trips * price
    return {"f_recurrence_s": out}


provide_device_features(RECURRENCE_FEATURES, recurrence_values)
