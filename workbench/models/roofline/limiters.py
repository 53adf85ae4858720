"""The extended roofline of Ernst et al. (section II-A) and the block-size ranking.

Four limiters, each turned into a time for the whole launch; the prediction is the
largest (the limiting level is named):

* **L1** (L1 -> registers): ``T = c_block * blocks / (SMs * clock)`` with
  ``c_block`` the L1 load cycles of one thread block (bank conflicts per half warp,
  :func:`~workbench.models.roofline.l1_loads.l1_load_cycles`), i.e. one half-warp
  load-cycle per SM per clock;
* **L2** (L2 -> L1): ``T = V_block * blocks / B_L2`` with ``V_block`` the
  compulsory per-block L2 <-> L1 traffic at sector granularity (load sectors plus
  write-through stores, :func:`~workbench.models.roofline.metrics.l2_l1_volume`);
* **DRAM** (DRAM <-> L2): ``T = V_dram / B_DRAM`` with ``V_dram`` from waves of
  ``blocks_per_wave`` concurrent blocks (:func:`~workbench.models.roofline.metrics.dram_volume`);
* **FLOP**: ``T = flops / peak``, only when a peak rate is given; otherwise left
  out (the paper also leaves it out: never the limiter for its kernels), and the
  prediction says so in its ``notes``.

Choices made here (documented, not from the paper's text):

* **Representative blocks.** Per-block metrics (L1 cycles, L2 -> L1 volume) come
  from a few *interior* blocks (the grid's centre block and its neighbour along x),
  averaged, as the paper does, so that edge blocks with guards do not dominate.
* **Blocks per SM / per wave.** ``blocks_per_sm = min(32, 2048 // threads)`` (the
  max resident threads (2048) and blocks (32) per SM of Volta/Ampere/Hopper),
  ignoring register and shared-memory limits; pass ``blocks_per_sm`` to override.
  ``blocks_per_wave = compute_units * blocks_per_sm``.
* **Bandwidths** come from the device model with their provenance: for the shipped
  H100 model the L1 and L2 figures are *measured kernel figures* (what one loopy
  sweep reached), not peaks; the DRAM figure is a measured stream copy. The
  prediction's ``notes`` repeat each figure's source.
* **Clock**: ``clock_hz`` argument; defaults to the paper's 1.38 GHz for V100 and the
  H100 SXM boost clock (1.98 GHz, vendor spec) for H100; other devices must pass it.
* **Capacity misses** (paper III-E): where the device description has fitted miss
  functions (:class:`~workbench.hardware.description.MissFunction`), the L2 -> L1
  loads become ``Vcomp + R_L1(O) * (Vup - Vcomp)`` and the DRAM loads use the fitted
  reuse-distance miss ratio (:func:`apply_miss_functions`); without them, volumes
  are compulsory and L2 an ideal LRU cache.
* **L2 reuse across waves** (``reuse="l2"``, the default): a wave may hit on the
  data of any earlier wave, by reuse distance (:mod:`workbench.models.roofline.reuse`); the
  paper's previous-wave-only model is ``reuse="previous"``.  The H100's 50 MB L2
  keeps a stencil's halo planes across many waves, which the previous-wave model
  cannot see.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from workbench.errors import ParameterError
from workbench.models.roofline.address import LaunchConfig, block3
from workbench.models.roofline.l1_loads import l1_load_cycles
from workbench.models.roofline.metrics import (
    DramVolume, L2L1Volume, dram_volume, l2_l1_volume, oversubscription)

MAX_THREADS_PER_SM = 2048
MAX_BLOCKS_PER_SM = 32

#: Default SM clocks (Hz) by a substring of the device model's name.
DEFAULT_CLOCK_HZ = {"V100": 1.38e9,   # Ernst et al., IV-A
                    "H100": 1.98e9}   # H100 SXM5 max boost clock (vendor spec)


class Limiter(enum.Enum):
    L1 = "L1"
    L2 = "L2"
    DRAM = "DRAM"
    FLOP = "FLOP"


@dataclass(frozen=True)
class RooflineInputs:
    """The estimated metrics of one launch that the roofline turns into times."""

    launch: LaunchConfig
    blocks: int                          # thread blocks in the grid
    blocks_per_sm: int
    blocks_per_wave: int
    representative_blocks: tuple[tuple[int, int, int], ...]
    l1_cycles_per_block: float
    l2_l1: L2L1Volume                    # per block (mean over representative blocks)
    dram: DramVolume                     # whole launch
    flops: float | None = None           # whole launch, None when not counted


@dataclass(frozen=True)
class RooflinePrediction:
    """Time per limiter (seconds, ``None`` for a limiter left out), the limiter and
    the predicted time (their maximum). ``lups`` = ``points / time`` when the number
    of lattice/grid points was given."""

    inputs: RooflineInputs
    times: Mapping[Limiter, float | None]
    limiter: Limiter
    time: float
    lups: float | None = None
    points: int | None = None
    clock_hz: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def time_of(self, limiter: Limiter | str) -> float | None:
        return self.times.get(Limiter(limiter))

    def to_dict(self) -> dict:
        i = self.inputs
        return {
            "launch": {"block": list(i.launch.block), "grid": list(i.launch.grid)},
            "blocks": i.blocks, "blocks_per_sm": i.blocks_per_sm,
            "blocks_per_wave": i.blocks_per_wave,
            "representative_blocks": [list(b) for b in i.representative_blocks],
            "l1_cycles_per_block": i.l1_cycles_per_block,
            "l2_l1_per_block": {
                "load_sectors_bytes": i.l2_l1.load_sectors_bytes,
                "load_lines_bytes": i.l2_l1.load_lines_bytes,
                "store_bytes": i.l2_l1.store_bytes,
                "sectors_bytes": i.l2_l1.sectors_bytes,
                "requested_bytes": i.l2_l1.load_requested_bytes,
                "lines_bytes": i.l2_l1.lines_bytes},
            "dram": {"load_bytes": i.dram.load_bytes, "store_bytes": i.dram.store_bytes,
                     "total_bytes": i.dram.total_bytes, "waves": i.dram.waves,
                     "exact": i.dram.exact,
                     "reuse": "l2" if i.dram.load_profiles else "previous"},
            "flops": i.flops,
            "times_s": {lim.value: t for lim, t in self.times.items()},
            "limiter": self.limiter.value,
            "time_s": self.time,
            "points": self.points,
            "lups": self.lups,
            "clock_hz": self.clock_hz,
            "notes": list(self.notes),
        }


# {{{ helpers

def default_blocks_per_sm(threads_per_block: int) -> int:
    """``min(32, 2048 // threads)``: resident blocks per SM from thread/block limits."""
    if threads_per_block > 1024:
        raise ParameterError(f"{threads_per_block} threads per block exceeds 1024")
    return max(1, min(MAX_BLOCKS_PER_SM, MAX_THREADS_PER_SM // threads_per_block))


def representative_blocks(launch: LaunchConfig, count: int = 2
                          ) -> tuple[tuple[int, int, int], ...]:
    """A few interior blocks: the grid's centre block, then its neighbours along x, y."""
    grid = tuple(launch.grid) + (1,) * (3 - len(launch.grid))
    centre = tuple(g // 2 for g in grid)
    out = [centre]
    for d in range(3):
        for step in (1, -1):
            b = list(centre)
            b[d] += step
            if 0 <= b[d] < grid[d] and tuple(b) not in out:
                out.append(tuple(b))
            if len(out) >= count:
                return tuple(out)
    return tuple(out)


def default_clock_hz(device_model) -> float:
    for key, hz in DEFAULT_CLOCK_HZ.items():
        if key.lower() in device_model.name.lower():
            return hz
    raise ParameterError(f"no default clock for device {device_model.name!r}: "
                         f"pass clock_hz")


def count_flops(program, params: Mapping[str, int]) -> float:
    """Floating-point operations of the launch from the unified-model properties."""
    from workbench.properties import extract_properties
    values = extract_properties(program).evaluate_named(params)
    return float(sum(v for k, v in values.items() if k.startswith("f_op_float")))


def _bw(device_model, level: str) -> float:
    try:
        return device_model.bandwidth_GBps[level].value * 1e9
    except KeyError:
        raise ParameterError(f"device model {device_model.name!r} has no {level} "
                             f"bandwidth") from None

# }}}


def estimate_inputs(program, params: Mapping[str, int], device_model, *,
                    blocks_per_sm: int | None = None, rep_blocks: int = 2,
                    count_flops_too: bool = False, flops: float | None = None,
                    reuse: str = "l2", method: str = "auto") -> RooflineInputs:
    """The estimated metrics (L1 cycles, L2 -> L1 and DRAM volumes) of ``program``."""
    from workbench.models.roofline.from_loopy import accesses_from_loopy
    params = dict(params)
    accesses, launch = accesses_from_loopy(program, params)
    bps = blocks_per_sm or default_blocks_per_sm(launch.threads_per_block)
    bpw = int(device_model.compute_units.value) * bps
    reps = representative_blocks(launch, rep_blocks)
    cycles = l1_load_cycles(accesses, launch, list(reps), params,
                            banks=int(device_model.l1_banks.value),
                            bank_width=int(device_model.l1_bank_bytes.value))
    sector = int(device_model.sector_bytes.value)
    line = int(device_model.line_bytes.value)
    if method not in ("auto", "intervals", "enumerate", "isl"):
        raise ParameterError(f"unknown footprint method {method!r}")
    if method in ("enumerate", "isl"):
        reuse = "previous"        # reuse distances need the intervals method
    l2 = l2_l1_volume(accesses, launch, list(reps), params, sector=sector, line=line,
                      method=method)
    try:
        dram = dram_volume(accesses, launch, bpw, params, sector=sector,
                           l2_bytes=device_model.l2_bytes.value, reuse=reuse,
                           method=method)
    except ValueError:
        if reuse != "l2":
            raise
        # an access that is not contiguous along any coordinate: the paper's
        # previous-wave reuse, counted by enumeration or ISL
        dram = dram_volume(accesses, launch, bpw, params, sector=sector,
                           l2_bytes=device_model.l2_bytes.value, reuse="previous")
    if flops is None and count_flops_too:
        flops = count_flops(program, params)
    return RooflineInputs(launch, launch.blocks, bps, bpw, reps, float(cycles), l2, dram,
                          None if flops is None else float(flops))


def l1_oversubscription(inputs: RooflineInputs, device_model) -> float:
    """``O``: 128 B lines the loads of a SM's resident blocks allocate / L1 bytes."""
    return oversubscription(inputs.l2_l1.load_lines_bytes, inputs.blocks_per_sm,
                            device_model.l1_bytes.value)


def apply_miss_functions(inputs: RooflineInputs, device_model
                         ) -> tuple[RooflineInputs, list[str]]:
    """The device's fitted capacity-miss functions applied to compulsory volumes.

    Without a fitted ``l1_capacity`` function the L2 -> L1 volume stays compulsory
    (no capacity misses); without ``l2_reuse`` the DRAM volume keeps what it was
    computed with (an ideal LRU L2 for ``reuse="l2"``).
    """
    from dataclasses import replace
    notes = []
    l1 = device_model.miss_function("l1_capacity")
    if l1 is not None:
        ratio = float(l1(l1_oversubscription(inputs, device_model)))
        inputs = replace(inputs, l2_l1=inputs.l2_l1.with_capacity_misses(ratio))
        notes.append("L1 capacity misses: fitted R(O)" + (f", {l1.note}" if l1.note else ""))
    else:
        notes.append("L1 capacity misses left out (no fitted R(O) for this device)")
    l2 = device_model.miss_function("l2_reuse")
    if inputs.dram.load_profiles:
        if l2 is not None:
            inputs = replace(inputs, dram=inputs.dram.with_miss_ratio(l2))
            notes.append("L2 reuse misses: fitted R(distance)"
                         + (f", {l2.note}" if l2.note else ""))
        else:
            notes.append("L2 reuse: ideal LRU cache (no fitted miss function)")
    return inputs, notes


def roofline(inputs: RooflineInputs, device_model, *, clock_hz: float | None = None,
             flop_rate: float | None = None, points: int | None = None
             ) -> RooflinePrediction:
    """Times per limiter from estimated metrics; the largest is the prediction."""
    clock = clock_hz or default_clock_hz(device_model)
    sms = device_model.compute_units.value
    inputs, notes = apply_miss_functions(inputs, device_model)
    times: dict[Limiter, float | None] = {
        Limiter.L1: inputs.l1_cycles_per_block * inputs.blocks / (sms * clock),
        Limiter.L2: inputs.l2_l1.sectors_bytes * inputs.blocks / _bw(device_model, "l2"),
        Limiter.DRAM: inputs.dram.total_bytes / _bw(device_model, "dram"),
        Limiter.FLOP: None,
    }
    for level in ("l1", "l2", "dram"):
        fig = device_model.bandwidth_GBps.get(level)
        if fig is not None:
            kind = ("measured: what a benchmark kernel reached, not a peak"
                    if fig.source == "measured" else fig.source)
            notes.append(f"{level} bandwidth {fig.value:g} GB/s ({kind})")
    if flop_rate and inputs.flops is not None:
        times[Limiter.FLOP] = inputs.flops / flop_rate
    else:
        notes.append("FLOP limiter left out: " + (
            "no peak flop rate given" if not flop_rate else "flops not counted"))
    limiter = max((lim for lim, t in times.items() if t is not None),
                  key=lambda lim: times[lim])
    time = times[limiter]
    lups = points / time if (points and time > 0) else None
    return RooflinePrediction(inputs, times, limiter, time, lups, points, clock,
                              tuple(notes))


def predict_block(program, params: Mapping[str, int], block, device_model, *,
                  blocks_per_sm: int | None = None, clock_hz: float | None = None,
                  flop_rate: float | None = None, flops: float | None = None,
                  points: int | None = None, rep_blocks: int = 2,
                  reuse: str = "l2", method: str = "auto") -> RooflinePrediction:
    """Extended-roofline prediction of ``program`` (built for thread block ``block``).

    ``flop_rate`` is the peak in flop/s; without it the FLOP limiter is left out.
    ``flops`` overrides the counted floating-point operations; ``points`` (grid or
    lattice points updated) enables ``lups``. ``blocks_per_sm`` defaults to
    ``min(32, 2048 // threads)``.
    """
    inputs = estimate_inputs(program, params, device_model, blocks_per_sm=blocks_per_sm,
                             rep_blocks=rep_blocks, count_flops_too=bool(flop_rate),
                             flops=flops, reuse=reuse, method=method)
    if block is not None and block3(block) != block3(inputs.launch.block):
        raise ParameterError(f"block {tuple(block)} does not match the program's "
                             f"work-group size {inputs.launch.block}")
    return roofline(inputs, device_model, clock_hz=clock_hz, flop_rate=flop_rate,
                    points=points)
