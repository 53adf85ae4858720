"""Physical floors: the least time a kernel can take on a device, whatever a model says.

Three bounds, each a true lower bound of the time the campaign protocol measures:

* **launch**: no kernel ends sooner than the fastest kernel the protocol ever timed on
  the device (an empty kernel);
* **flops**: the kernel's floating-point operations at the device's peak rate (adds
  and multiplies counted apart, so a fused multiply-add is two, as the peak counts it;
  divisions and special functions count one);
* **DRAM traffic**: every distinct element the kernel touches either lives in L2 or
  crosses the DRAM interface during the kernel, and at most the L2's capacity can
  stay behind in L2; so at least ``footprint - L2 bytes`` cross it, at the peak DRAM
  bandwidth.  A kernel whose footprint fits in L2 (timed again and again, its data
  can stay there) has no DRAM floor.

and, for a launch of fewer work items than the device has lanes, a calibrated fourth:

* **serial work**: the launch takes at least one work item's own work, priced at what
  one work item reaches on the device (the latency microbenchmarks of
  :mod:`workbench.kernels.generators.latency`, ``benchmarks/latency_microbench.py``):
  its global loads at the time per load of a one-work-item loop (from cache, or from
  DRAM when the footprint exceeds L2), its stores at the cached time, and its
  arithmetic as a chain of dependent fused multiply-adds, whichever is longest; the
  longest work item's, where items differ (a triangular loop: the average item's share
  times :func:`workbench.models.work_imbalance.longest_item_ratio`, as the next bound).
  Measured, not physical: a work item with much independent work per trip can go
  faster, which is why it binds only where the launch cannot fill the lanes
  (:mod:`workbench.models.parallelism`);
* **loads in flight** (Little's law), for the same launches when their data come
  from DRAM: a warp keeps a bounded number of loads in flight, so it streams at most
  ``r_warp`` bytes a second whatever the bandwidth left idle, and the launch's loads
  take at least ``bytes / (warps x r_warp)``.  ``r_warp`` is measured: the column sum
  of the latency microbenchmarks by one warp alone on the device, the most a warp
  loaded (one load stream a trip, the pattern of a column loop).

* **L1 wavefronts**: an SM's L1 serves one 128-byte line of a warp's load a cycle (a
  load whose 32 lanes touch 32 lines takes 32 cycles; a broadcast or a coalesced
  row, one), so the SM that runs the busiest work group spends at least that group's
  lines in cycles (:func:`workbench.models.work_imbalance.busiest_sm_wavefronts`), at
  the clock of the float32 peak.  Like the serial bound, only for launches that cannot
  fill the lanes: it counts loopy's loads, one request each, and a compiler that
  loads a repeated subscript once (nearest_center_dist's ``cx[c]`` twice in one
  expression; row_peak_to_peak's max and min of one element) or merges a lane's
  consecutive loads of a fully unrolled loop into vector loads (batched_small_gemm
  ``direct``) issues fewer: there the count exceeded the measured time by up to 1.9x,
  all in launches of at least 2^18 work items.  It binds on loads with lanes a row
  apart in few groups (a lower-triangular product by rows, heldout6) and comes within
  3-9% of matmul_naive's broadcast loads (not bound: that launch fills the lanes).

* **trig calls** (issue #34, round 16): a call of sin, cos or tan takes at least what the
  cheapest trig round of the ``trig_chain`` calibration microbenchmark took a warp with
  every SM full (``sin_small``: no range reduction beyond 2 and no other operation), an
  atan2 its own round, a sine and a cosine of one kernel less what the two took together
  in one round (``sincos``, its multiply-add out): the special-function pipes and the
  instructions of the library's sequences are then busy, whatever else the kernel does.
  Round 15 priced these as a bound inside a model (``chains31``, ``chains32``), which
  moved the fit; as a floor it moves no weight and holds for every model.

The floor is the largest of them.  :func:`workbench.models.prediction.predict` lifts
any prediction below it to it and says which bound the model broke.  The figures come
from the device description (``floors`` in :mod:`workbench.hardware` data), each with
its source; a device without them has no floors.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.candidate_features import (
    GLOBAL_ACCESS_DTYPES,
    ARRAY_BYTES,
    FOOTPRINT_BYTES,
    ArrayBytesRef,
    FootprintRef,
    candidate_feature_values,
)
from workbench.models.expressions.feature_values import (
    group_size_tuple,
    parse_params_text,
    provide_row_feature,
)
from workbench.models.expressions.features import FLOOR, StandardFeature
from workbench.models.work_imbalance import busiest_sm_wavefronts, longest_item_ratio
from workbench.properties import parse_feature

FLOAT_KINDS = ("add", "mul", "div", "pow", "special")


class Bound(enum.Enum):
    LAUNCH = "launch"
    FLOPS = "flops"
    DRAM = "DRAM traffic"
    SERIAL = "serial work"
    IN_FLIGHT = "loads in flight"
    L1 = "L1 wavefronts"
    TRIG = "trig calls"


@dataclass(frozen=True)
class SerialPrices:
    """One work item's prices (``serial`` in a description's ``floors``)."""

    lanes: int                        # compute units x lanes per compute unit
    load_s: float                     # a global load of a one-item loop, from cache
    dram_load_s: float                # ... from DRAM
    store_s: float
    dependent_fma_s: tuple[tuple[str, float], ...]   # dtype -> seconds
    warp_size: int = 32
    warp_load_Bps: tuple[tuple[str, float], ...] = ()   # dtype -> one warp's loads
    # dtype -> a trip of a column loop with one warp per scheduler (running sums)
    column_trip_s: tuple[tuple[str, float], ...] = ()
    # (dtype, layout, system size, ((warps per SM, seconds), ...)): a substitution's step
    substitution_step_s: tuple[tuple[str, str, int, tuple[tuple[float, float], ...]], ...] = ()

    @classmethod
    def of(cls, description, doc: dict) -> SerialPrices | None:
        serial = doc.get("serial")
        if not serial:
            return None
        ns = 1e-9
        sms = int(description.compute_units.value)
        occupancy = getattr(description, "occupancy", None) or {}
        return cls(sms * int(serial["lanes_per_sm"]["value"]),
                   float(serial["load_ns"]["value"]) * ns,
                   float(serial["dram_load_ns"]["value"]) * ns,
                   float(serial["store_ns"]["value"]) * ns,
                   tuple((k, float(v["value"]) * ns)
                         for k, v in serial["dependent_fma_ns"].items()),
                   int(occupancy.get("warp_size", {}).get("value", 32)),
                   tuple((k, float(v["value"]) * 1e9)
                         for k, v in serial.get("warp_load_GBps", {}).items()),
                   tuple((k, float(v["value"]) * ns)
                         for k, v in serial.get("column_trip_ns", {}).items()),
                   tuple((dtype, layout, int(size), tuple((float(w), float(t) * ns)
                                                          for w, t in points))
                         for dtype, v in serial.get("substitution_step_ns", {}).items()
                         for layout, sizes in v["value"].items()
                         for size, points in sizes.items()))


@dataclass(frozen=True)
class DeviceFloors:
    """The figures the floors read, for one device."""

    device: str
    launch_s: float
    dram_peak_Bps: float
    l2_bytes: float
    flop_peak: tuple[tuple[str, float], ...]    # dtype -> flop/s
    serial: SerialPrices | None = None
    sms: int = 0
    clock_hz: float = 0.0       # a lane's fused multiply-adds a second (the peak's clock)
    # (dtype, "trig" | "atan2" | "sin_cos_mix") -> seconds a sub-group's call
    trig_call_s: tuple[tuple[tuple[str, str], float], ...] = ()

    @property
    def lanes(self) -> int:
        return self.serial.lanes if self.serial is not None else 0

    @classmethod
    def of(cls, description) -> DeviceFloors | None:
        doc = description.floors
        if not doc:
            return None
        peak = tuple((k, float(v["value"]) * 1e9)
                     for k, v in doc.get("flop_peak_GFLOPs", {}).items())
        serial = SerialPrices.of(description, doc)
        f32 = dict(peak).get("float32", 0.0)
        clock = f32 / (2 * serial.lanes) if serial is not None and serial.lanes else 0.0
        trig = tuple(((dtype, kind), float(v["value"]) * 1e-12)
                     for dtype, kinds in doc.get("trig_call_ps", {}).items()
                     for kind, v in kinds.items())
        return cls(description.name, float(doc["launch_s"]["value"]),
                   float(doc["dram_peak_GBps"]["value"]) * 1e9,
                   float(description.l2_bytes.value), peak, serial,
                   int(description.compute_units.value), clock, trig)


@dataclass(frozen=True)
class Floor:
    """A candidate's floor: the binding bound, its time, and every bound's time."""

    seconds: float
    bound: Bound
    parts: tuple[tuple[Bound, float], ...]
    # bounds not counted, with what they could at most be (the DRAM bound, when the
    # arrays' whole sizes already put it below the prediction)
    uncounted: tuple[tuple[Bound, float], ...] = ()

    def says(self) -> str:
        return f"{self.bound.value}: at least {self.seconds * 1e3:.4g} ms"

    def to_json(self) -> dict:
        return {"seconds": self.seconds, "bound": self.bound.value,
                "parts": {b.value: s for b, s in self.parts},
                "at_most": {b.value: s for b, s in self.uncounted}}


def floors_of_device(name: str) -> DeviceFloors | None:
    """The floors of a device by its OpenCL name, from the shipped descriptions."""
    return _floors_named(name)


@functools.lru_cache(maxsize=16)
def _floors_named(name: str) -> DeviceFloors | None:
    from workbench.hardware.description import SHIPPED, load_device_model

    for shipped in SHIPPED:
        description = load_device_model(shipped)
        if description.name == name:
            return DeviceFloors.of(description)
    return None


def model_floors(model) -> DeviceFloors | None:
    """The floors of the device a model was fitted on or describes, where known."""
    described = getattr(model, "device_model", None)
    if described is not None and getattr(described, "floors", None):
        return DeviceFloors.of(described)
    name = getattr(described, "name", None) or dict(getattr(model, "device", {}) or {}).get(
        "device", "")
    return _floors_named(name) if name else None


def _flop_refs():
    names = [f"f_op_{dtype}_{kind}" for dtype in ("float32", "float64")
             for kind in FLOAT_KINDS]
    return [StandardFeature(n, parse_feature(n)) for n in names]


_ACCESS_DTYPES = GLOBAL_ACCESS_DTYPES   # what every counted factory point carries


def _access_refs():
    from workbench.models.expressions.features import parse_feature_ref

    return [parse_feature_ref(f"f_mem_access_global_{d}_{k}") for d in _ACCESS_DTYPES
            for k in ("load", "store")]


def _serial_seconds(values, i: int, items: int, beyond_l2: bool,
                    prices: SerialPrices) -> float:
    """One work item's serial work (module docstring), its share of the counts."""
    def total(kind):
        return sum(float(values[f"f_mem_access_global_{d}_{kind}"][i])
                   for d in _ACCESS_DTYPES)

    load = prices.dram_load_s if beyond_l2 else prices.load_s
    memory = (total("load") * load + total("store") * prices.store_s) / items
    fma = dict(prices.dependent_fma_s)
    chain = sum((float(values[f"f_op_{d}_add"][i]) + float(values[f"f_op_{d}_mul"][i]))
                / 2 * fma.get(d, 0.0) for d in ("float32", "float64")) / items
    return max(memory, chain)


_ITEM_BYTES = {"float32": 4, "float64": 8, "int32": 4}


def _in_flight_seconds(values, i: int, groups: float, group_items: int,
                       prices: SerialPrices) -> float:
    """The loads' bytes at what the launch's warps keep in flight (module docstring);
    0 without the figures."""
    rates = dict(prices.warp_load_Bps)
    warps = groups * math.ceil(group_items / prices.warp_size)
    if not rates or warps <= 0:
        return 0.0
    seconds = 0.0
    for d in _ACCESS_DTYPES:
        loaded = float(values[f"f_mem_access_global_{d}_load"][i]) * _ITEM_BYTES[d]
        rate = rates.get(d, rates.get("float32"))
        if loaded and rate:
            seconds += loaded / (warps * rate)
    return seconds


def _trig_seconds(candidate: Candidate, prices: dict) -> float:
    """The trig calls' floor (module docstring); 0 where the kernel cannot be read."""
    from workbench.models.function_calls import typed_function_calls

    try:
        calls = typed_function_calls(candidate)
    except Exception:  # noqa: BLE001 - a kernel that cannot be built: no trig floor
        return 0.0
    seconds = 0.0
    for dtype in ("float32", "float64"):
        trig = sum(calls.get((dtype, fn), 0.0) for fn in ("sin", "cos", "tan"))
        seconds += trig * prices.get((dtype, "trig"), 0.0)
        seconds += calls.get((dtype, "atan2"), 0.0) * prices.get((dtype, "atan2"), 0.0)
        seconds += min(calls.get((dtype, "sin"), 0.0), calls.get((dtype, "cos"), 0.0)) \
            * prices.get((dtype, "sin_cos_mix"), 0.0)
    return max(0.0, seconds)


def candidate_floors(candidates: Sequence[Candidate], floors: DeviceFloors,
                     predicted: Sequence[float] | None = None) -> list[Floor | None]:
    """The floor of every candidate (None where its kernel cannot be read).

    The DRAM bound needs the footprint, an ISL count per kernel; with ``predicted``
    given it is counted only where the prediction lies below what the arrays' whole
    sizes would allow, the only candidates it could bind."""
    candidates = list(candidates)
    serial = floors.serial
    refs = [*_flop_refs(), ArrayBytesRef(),
            *([*_access_refs(), StandardFeature("f_thread_groups",
                                                parse_feature("f_thread_groups"))]
              if serial else ())]
    flops, errors = candidate_feature_values(candidates, refs)
    whole = np.maximum(0.0, flops[ARRAY_BYTES] - floors.l2_bytes) / floors.dram_peak_Bps
    footprint = np.full(len(candidates), np.nan)
    # a launch that cannot fill the lanes gets the serial bound, which needs to know
    # whether its data come from DRAM: its footprint is counted
    items = [None] * len(candidates)
    if serial is not None:
        for i, c in enumerate(candidates):
            launched = float(flops["f_thread_groups"][i]) * math.prod(c.group_size or (1,))
            if errors[i] is None and 0 < launched < serial.lanes:
                items[i] = int(launched)
    may_bind = [i for i in range(len(candidates))
                if predicted is None or not np.isfinite(whole[i]) or items[i]
                or not np.isfinite(predicted[i]) or predicted[i] < whole[i]]
    binding = set(may_bind)
    if may_bind:
        counted, _ = candidate_feature_values([candidates[i] for i in may_bind],
                                              [FootprintRef()])
        footprint[may_bind] = counted[FOOTPRINT_BYTES]
    peak = dict(floors.flop_peak)
    trig_prices = dict(floors.trig_call_s)
    out: list[Floor | None] = []
    for i, c in enumerate(candidates):
        parts = [(Bound.LAUNCH, floors.launch_s)]
        if errors[i] is None:
            flop_s = 0.0
            for dtype in ("float32", "float64"):
                n = sum(float(flops[f"f_op_{dtype}_{k}"][i]) for k in FLOAT_KINDS)
                if n and dtype in peak:
                    flop_s += n / peak[dtype]
            parts.append((Bound.FLOPS, flop_s))
        touched = float(footprint[i])
        if np.isfinite(touched):          # unknown or not counted: no DRAM floor
            beyond_l2 = max(0.0, touched - floors.l2_bytes)
            parts.append((Bound.DRAM, beyond_l2 / floors.dram_peak_Bps))
        if items[i]:
            from_dram = bool(np.isfinite(touched) and touched > floors.l2_bytes)
            # the launch ends with its longest work item, not its average one
            longest = longest_item_ratio(c)
            parts.append((Bound.SERIAL, longest * _serial_seconds(
                flops, i, items[i], from_dram, serial)))
            if from_dram:
                parts.append((Bound.IN_FLIGHT, longest * _in_flight_seconds(
                    flops, i, float(flops["f_thread_groups"][i]),
                    math.prod(c.group_size or (1,)), serial)))
        if items[i] and floors.clock_hz > 0:
            parts.append((Bound.L1, busiest_sm_wavefronts(c, floors.sms)
                          / floors.clock_hz))
        if trig_prices and errors[i] is None:
            parts.append((Bound.TRIG, _trig_seconds(c, trig_prices)))
        bound, seconds = max(parts, key=lambda p: p[1])
        uncounted = ((Bound.DRAM, float(whole[i])),) if not np.isfinite(touched) \
            and np.isfinite(whole[i]) and i not in binding else ()
        out.append(Floor(seconds, bound, tuple(parts), uncounted))
    return out


def _row_candidates(rows) -> list[Candidate]:
    return [Candidate(k, v, group_size_tuple(g), tuple(sorted(parse_params_text(p).items())), d)
            for k, v, d, g, p in rows[["kernel", "variant", "dtype", "group_size",
                                       "params"]].itertuples(index=False)]


def floor_of_rows(data) -> np.ndarray:
    """Each measurement row's physical floor on its device (0 where the device has none):
    the values of the expression feature ``f_floor_s``."""
    if "device" not in data.columns:
        raise ModelError(f"{FLOOR} needs each row's device (a 'device' column)")
    out = np.zeros(len(data))
    devices = data["device"].astype(str).to_numpy()
    for device in np.unique(devices):
        floors = floors_of_device(device)
        rows = np.flatnonzero(devices == device)
        if floors is None:
            continue
        out[rows] = [f.seconds if f is not None else 0.0
                     for f in candidate_floors(_row_candidates(data.iloc[rows]), floors)]
    return out


def model_row_floors(model, data, predicted) -> np.ndarray:
    """Each measurement row's floor on the device ``model`` predicts (0 where none is
    known: a row of another device, a device without floors, a kernel that cannot be
    read), counting the DRAM bound only where ``predicted`` could break it."""
    floors = model_floors(model)
    out = np.zeros(len(data))
    if floors is None or not len(data) or "device" not in data.columns:
        return out
    rows = np.flatnonzero(data["device"].astype(str).to_numpy() == floors.device)
    if rows.size:
        found = candidate_floors(_row_candidates(data.iloc[rows]), floors,
                                 np.asarray(predicted, dtype=float)[rows])
        out[rows] = [f.seconds if f is not None else 0.0 for f in found]
    return out


provide_row_feature(FLOOR, floor_of_rows)
