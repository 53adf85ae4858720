"""Timing the time model's microbenchmarks on a device, into the measurement store.

The kernels are :mod:`workbench.kernels.timetiled.microbench`; here they are built
and launched as an exploration's points are (:mod:`workbench.tuning.live`), a
launch sequence by the stencils' driver (:mod:`workbench.tuning.sequence`), which is
why this sits in the tuning layer.  The parameters are derived from the stored rows by
:func:`workbench.models.tiling.calibrate.calibration_from_measurements`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from workbench.kernels.space import LaunchSequence
from workbench.kernels.timetiled.microbench import Microbenchmark, microbenchmarks
from workbench.kernels.timetiled.stencils import STENCILS
from workbench.measure.store import ConfigKey, Measurement, Status
from workbench.tuning.live import compile_code, launcher, prepare_point
from workbench.tuning.sequence import run_sequence


@dataclass(frozen=True)
class MicroTiming:
    bench: Microbenchmark
    raw_times_s: tuple[float, ...]
    build_log: str = ""


def time_microbenchmark(bench: Microbenchmark, queue, *, runs: int = 5,
                        build_options: Sequence[str] = ()) -> MicroTiming:
    """Warm up once, then ``runs`` timed runs (profiling events; of a sequence, the
    mean gap between its launches)."""
    import pyopencl.array as cla

    prepared = prepare_point(_OneKernel(bench), None, queue.context)
    if prepared.failure is not None:
        raise RuntimeError(prepared.failure)
    _, failure, log, program = compile_code(queue.context, prepared.code,
                                            tuple(build_options))
    if failure is not None:
        raise RuntimeError(failure)
    launch = launcher(prepared, program)
    rng = np.random.default_rng(0)
    args = {n: cla.to_device(queue, rng.random(s, dtype=np.float64).astype(np.float32))
            for n, s in bench.arrays.items()}
    raw = []
    for _ in range(runs + 1):
        if bench.launches > 1:
            scratch = (args["out"], args["out"].copy())
            sequence = LaunchSequence(lambda p: bench.launches, "u", "out")
            evt, _ = run_sequence(launch, queue, args, sequence, bench.launches, scratch)
            evt.wait()
            raw.append(evt.gap_s)
        else:
            evt, _ = launch(queue, **args)
            evt.wait()
            raw.append((evt.profile.end - evt.profile.start) * 1e-9)
    return MicroTiming(bench, tuple(raw[1:]), log)


class _OneKernel:
    """What :func:`~workbench.tuning.live.prepare_point` needs of a space."""

    def __init__(self, bench: Microbenchmark):
        self.bench = bench

    def build(self, point):
        return self.bench.build()


def measure_microbenchmarks(queue, device, store, *, stencils: Sequence[str] | None = None,
                            runs: int = 5, build_options: Sequence[str] = (),
                            name: str = "timetiling-microbenchmarks",
                            benches: Sequence[Microbenchmark] | None = None,
                            on_progress: Callable[[int, int, str], None] | None = None
                            ) -> int:
    """Time every microbenchmark on ``queue`` and record it in ``store`` (one
    campaign, resumable: benchmarks already stored are skipped).  Returns the
    campaign id.  ``benches``: another set than :func:`microbenchmarks` (smaller,
    for a CPU)."""
    n_SM = int(queue.device.max_compute_units)
    benches = list(benches if benches is not None else microbenchmarks(n_SM, stencils))
    campaign = store.start_campaign(name, device, {"runs": runs, "n_SM": n_SM,
                                                   "stencils": list(stencils or STENCILS)})
    done = store.done_keys(campaign)
    for i, bench in enumerate(benches):
        key = ConfigKey.make(bench.what.kernel_name, bench.variant, "float32", {},
                             bench.group_size, device)
        if key in done:
            continue
        if on_progress is not None:
            on_progress(i, len(benches), f"{bench.what.value} {bench.variant}")
        start = time.perf_counter()
        extra = {"facts": dict(bench.facts), "n_SM": n_SM}
        try:
            timing = time_microbenchmark(bench, queue, runs=runs,
                                         build_options=build_options)
        except Exception as err:  # noqa: BLE001 - a failing benchmark is recorded
            store.record(Measurement.failed(key, Status.BUILD_FAILED, str(err)[-4000:],
                                            device=device, campaign=campaign,
                                            extra=extra))
            continue
        extra["build_log"] = timing.build_log[-4000:]
        extra["wall_s"] = time.perf_counter() - start
        store.record(Measurement.ok(key, timing.raw_times_s, device=device,
                                    discard_first=0, campaign=campaign, extra=extra))
    store.finish_campaign(campaign)
    return campaign
