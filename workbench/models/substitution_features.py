"""The chain of a substitution, as a feature of the expression language.

``f_substitution_s`` (a device feature, in seconds): where a kernel writes an array at
each trip of a sequential loop and reads it there at other indices, with loads feeding
the chain (a forward substitution: :func:`workbench.models.parallelism.substitutions`),
each work item's steps run one after another, each waiting for a load and for what an
earlier trip stored.  The feature is

    waves x chained steps per work item x the device's price of a step,

the price being what a step of the substitution microbenchmark
(:func:`workbench.kernels.generators.latency.forward_substitution`, timed by
``benchmarks/substitution_microbench.py``) took at the same precision, layout of the
loads (``adjacent``: a warp's loads of one step share lines, lane stride of one
element at most; ``apart``: each lane's load its own line) and warps per SM in a wave
(``substitution_step_ns`` in the ``serial`` floors of the device description):
linear between the measured warps per SM, and between the measured system sizes
geometric (log price against log size; the size is the trips of the loop the array
is written along), clamped at the ends of both.  It is 0 for a kernel without such a
chain, and for a device without the prices.  Priced by a measurement, not fitted.

The microbenchmark's time is the whole launch's, its loads' traffic included: a model
takes the larger of it and the rest of its sum (``smax(..., f_substitution_s)``,
``models/linear-fp64-sectors-chains2.json``), not their sum.

Issue #34, item 3: ``batched_trsv`` (unseen2) was 55 / 53% under-predicted by every
model; its ``batch_minor`` rows took about 400 ns a step.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.features import SUBSTITUTION_FEATURES
from workbench.models.feature_rows import built_rows


@dataclass(frozen=True)
class SubstitutionChain:
    """What the price of one kernel's substitution reads."""

    steps: object          # chained steps per work item (a polynomial in the sizes)
    size: object           # trips of the loop the array is written along
    layout: str            # "adjacent" or "apart"


def _layout(knl, reader_id: str, loads: tuple[str, ...]) -> str:
    """``adjacent`` where every load of the reader steps at most one element from lane
    to lane, else ``apart``."""
    from loopy.symbolic import WalkMapper

    from workbench.models.local_features import _flat_index, _lane_inames, _lane_strides

    lanes = _lane_inames(knl)
    insn = knl.id_to_insn[reader_id]
    args = {a.name: a for a in knl.args}
    strides: list[int | None] = []

    class Collect(WalkMapper):
        def map_subscript(self, expr, *rest):
            name = getattr(expr.aggregate, "name", None)
            if name in loads:
                strides.extend(_lane_strides(_flat_index(args[name], expr.index), lanes, 1))
            super().map_subscript(expr, *rest)

    Collect()(insn.expression)
    adjacent = strides and all(s is not None and abs(s) <= 1 for s in strides)
    return "adjacent" if adjacent else "apart"


@functools.lru_cache(maxsize=512)
def _chain(spec, request) -> SubstitutionChain | None:
    """The longest substitution with loads of a build (None: none)."""
    from loopy.statistics import count_inames_domain

    from workbench.models.parallelism import _grid, sequential_inames, substitutions

    _, _, knl = _grid(spec, request)
    found = [s for s in substitutions(knl, sequential_inames(knl)) if s.loads]
    if not found:
        return None
    best = max(found, key=lambda s: len(s.steps))
    return SubstitutionChain(count_inames_domain(knl, best.steps),
                             count_inames_domain(knl, best.written_along),
                             _layout(knl, best.reader, best.loads))


def substitution_of(candidate: Candidate) -> tuple[float, float, str] | None:
    """(chained steps per work item, system size, layout) of ``candidate``'s
    substitution; None where it has none."""
    chain = _chain(candidate.spec, candidate.request())
    if chain is None:
        return None
    params = candidate.params_dict
    return (float(chain.steps.eval_with_dict(params)),
            float(chain.size.eval_with_dict(params)), chain.layout)


def _along(points: Sequence[tuple[float, float]], x: float) -> float:
    """Linear between the (x, y) points, clamped at both ends."""
    xs, ys = zip(*sorted(points))
    return float(np.interp(x, xs, ys))


def step_price(table, dtype: str, layout: str, size: float, warps_per_sm: float
               ) -> float | None:
    """Seconds a step of the measured substitution takes (module docstring)."""
    rows = {s: points for d, lay, s, points in table if d == dtype and lay == layout}
    if not rows:
        rows = {s: points for d, lay, s, points in table if lay == layout}
    if not rows:
        return None
    sizes = sorted(rows)
    below = max((s for s in sizes if s <= size), default=sizes[0])
    above = min((s for s in sizes if s >= size), default=sizes[-1])
    low, high = _along(rows[below], warps_per_sm), _along(rows[above], warps_per_sm)
    if above == below:
        return low
    t = (math.log(size) - math.log(below)) / (math.log(above) - math.log(below))
    return math.exp((1 - t) * math.log(low) + t * math.log(high))


def _of_candidate(c: Candidate):
    # module level: the counting processes can be sent it (``built_rows``)
    from workbench.models.parallelism import launch_sizes

    return substitution_of(c), launch_sizes(c)


def substitution_values(candidates: Sequence[Candidate], device: str
                        ) -> dict[str, np.ndarray]:
    """``f_substitution_s`` of every candidate on ``device`` (NaN where a candidate
    cannot be built)."""
    from workbench.models.floors import floors_of_device
    from workbench.models.occupancy_features import limits_of_device, occupancy_values

    candidates = list(candidates)
    out = np.zeros(len(candidates))
    floors = floors_of_device(device)
    table = floors.serial.substitution_step_s if floors and floors.serial else ()
    limits = limits_of_device(device)
    if not table or limits is None:
        return {"f_substitution_s": out}
    waves = None
    for i, c, (found, sizes) in built_rows(candidates, _of_candidate, (out,)):
        if found is None or sizes is None:
            continue
        if waves is None:
            waves = occupancy_values(candidates, device)["f_waves"]
        steps, size, layout = found
        items, groups = sizes
        warps = groups * math.ceil(items / groups / limits.warp_size)
        wave = max(1.0, float(waves[i]))
        price = step_price(table, str(c.dtype), layout, size,
                           warps / limits.compute_units / wave)
        if price is not None:
            out[i] = wave * steps * price
    return {"f_substitution_s": out}


provide_device_features(SUBSTITUTION_FEATURES, substitution_values)
