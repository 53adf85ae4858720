"""A calibration campaign: every catalog configuration, timed and stored durably.

The order follows the unified-model paper (section 4.2): the empty kernel first, to
learn the launch overhead; then, per kernel and variant, the smallest size exponent
``p`` whose smallest case runs clearly longer than that overhead (chosen on this
device, not taken from a table); then every size case and work-group size.  Each
configuration is committed on its own, so a killed campaign resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from workbench.errors import ParameterError
from workbench.kernels import (
    BuildRequest,
    DType,
    KernelRole,
    KernelSpec,
    all_kernels,
    get_kernel,
)
from workbench.kernels.base import entry_kernel, grid_group_set
from workbench.measure.devices import DeviceInfo
from workbench.measure.runner import (
    INT32_MAX,
    ConfigurationFailed,
    KernelRunner,
    TimingProtocol,
    array_bytes,
    launch_facts,
)
from workbench.measure.store import ConfigKey, Measurement, MeasurementStore, Status

OVERHEAD_KERNEL = "empty"


@dataclass(frozen=True)
class CampaignSettings:
    """What a campaign measures and how; stored with the campaign for provenance."""

    protocol: TimingProtocol = TimingProtocol()
    kernels: tuple[str, ...] = ()           # empty: the whole catalog
    dtypes: tuple[str, ...] = ("float32",)
    min_time_factor: float = 10.0           # smallest case >= factor x launch overhead
    min_groups_per_unit: float = 1.0        # smallest case >= this x compute units groups
    size_cases: int | None = None           # first k size cases only (quick runs)
    group_sizes: str = "set"                # "set": the kernel's set; "one": the largest
    # kernels measured at six group shapes (the "1d-grid"/"2d-grid" sets, with their
    # own set's shapes) whatever ``group_sizes`` says: a heatmap per shape for them
    grid_kernels: tuple[str, ...] = ()
    memory_fraction: float = 0.4            # of device memory, for one configuration
    p_search_below: int = 4                 # exponents tried below the paper's range
    p_search_above: int = 3
    probe_runs: int = 3

    def __post_init__(self):
        if self.min_time_factor <= 0 or not 0 < self.memory_fraction <= 1:
            raise ParameterError("min_time_factor must be > 0 and memory_fraction in (0, 1]")
        if self.group_sizes not in ("set", "one"):
            raise ParameterError("group_sizes is 'set' or 'one'")

    @classmethod
    def quick(cls, kernels: tuple[str, ...] = (), grid_kernels: tuple[str, ...] = ()
              ) -> CampaignSettings:
        """A few-minute campaign for CI and first looks: fewer runs, cases and groups.

        The measurement kernels get one group size (256 work items); the test kernels
        and ``grid_kernels`` (say, the kernel a user has chosen) six shapes, so that
        their predicted and measured times can be seen per work-group shape."""
        tests = tuple(s.name for s in all_kernels(KernelRole.TEST))
        grid = tuple(dict.fromkeys((*tests, *grid_kernels)))
        return cls(protocol=TimingProtocol(runs=8, discard_first=2), kernels=kernels,
                   min_time_factor=3.0, size_cases=2, group_sizes="one",
                   grid_kernels=grid, p_search_below=6, p_search_above=2, probe_runs=2)

    def to_dict(self) -> dict:
        return {"runs": self.protocol.runs, "discard_first": self.protocol.discard_first,
                "kernels": list(self.kernels), "dtypes": list(self.dtypes),
                "min_time_factor": self.min_time_factor,
                "min_groups_per_unit": self.min_groups_per_unit, "size_cases": self.size_cases,
                "group_sizes": self.group_sizes, "memory_fraction": self.memory_fraction,
                **({"grid_kernels": list(self.grid_kernels)} if self.grid_kernels else {}),
                "p_search_below": self.p_search_below,
                "p_search_above": self.p_search_above, "probe_runs": self.probe_runs}


@dataclass(frozen=True)
class Progress:
    """One event of a running campaign, for progress bars and live plots."""

    done: int
    planned: int
    key: ConfigKey | None
    status: Status | None
    time_s: float | None
    message: str = ""
    elapsed_s: float = 0.0


@dataclass
class CampaignTimings:
    """Where the wall time went: building (loopy + OpenCL compile) vs running."""

    build_s: float = 0.0
    run_s: float = 0.0
    probe_s: float = 0.0
    measured: int = 0
    skipped: int = 0
    failed: int = 0
    stopped: bool = False   # ended early by ``should_stop``; the campaign stays resumable


def time_configuration(runner: KernelRunner, spec: KernelSpec, request: BuildRequest,
                       params: Mapping[str, int], device: DeviceInfo,
                       protocol: TimingProtocol, *, args=None, campaign: int | None = None,
                       extra: Mapping | None = None,
                       timings: CampaignTimings | None = None) -> tuple[Measurement, object]:
    """Allocate (unless ``args`` are given), build, first-touch and time one configuration.

    Every way of measuring (campaign, explicit list, one-off) goes through here, so
    they all follow the same protocol and record failures the same way.
    """
    timings = timings if timings is not None else CampaignTimings()
    key = ConfigKey.make(spec.name, request.variant, request.dtype.value, params,
                         request.group_size, device.identity)
    extra = dict(extra or {})
    try:
        if args is None:
            args = runner.allocate(spec, request, params)
        start = time.perf_counter()
        runner.run_once(spec, request, args)  # build and first touch
        built = time.perf_counter()
        raw = runner.time(spec, request, args, protocol)
        timings.build_s += built - start
        timings.run_s += time.perf_counter() - built
        timings.measured += 1
        return Measurement.ok(key, raw, device=device.identity,
                              discard_first=protocol.discard_first, campaign=campaign,
                              extra=extra), args
    except ConfigurationFailed as failure:
        timings.failed += 1
        return _failed(key, failure, device, protocol, campaign, extra), args


def _failed(key: ConfigKey, failure: ConfigurationFailed, device: DeviceInfo,
            protocol: TimingProtocol, campaign: int | None, extra: Mapping) -> Measurement:
    status = Status.BUILD_FAILED if failure.stage == "build" else Status.LAUNCH_FAILED
    return Measurement.failed(key, status, failure.log, device=device.identity,
                              discard_first=protocol.discard_first, campaign=campaign,
                              extra=dict(extra))


class Campaign:
    """Runs (or resumes) a named campaign on one device into a store."""

    def __init__(self, store: MeasurementStore, device: DeviceInfo, queue,
                 settings: CampaignSettings = CampaignSettings(), name: str = "calibration",
                 specs: tuple[KernelSpec, ...] | None = None, prebuilder=None):
        self.store = store
        self._explicit_specs = specs
        # a LocalPrebuilder (or None): builds the kernels ahead on other cores
        self.prebuilder = prebuilder
        self.device = device
        self.settings = settings
        self.runner = KernelRunner(queue)
        self.campaign_id = store.start_campaign(name, device.identity, settings.to_dict())
        self.timings = CampaignTimings()
        self._done = store.done_keys(self.campaign_id)
        self._p_recorded = self._recorded_exponents()

    # -- planning -------------------------------------------------------------------

    def specs(self) -> list[KernelSpec]:
        if self._explicit_specs is not None:
            specs = list(self._explicit_specs)
        elif self.settings.kernels:
            specs = [get_kernel(k) for k in self.settings.kernels]
        else:
            specs = list(all_kernels(KernelRole.MEASUREMENT)) + \
                list(all_kernels(KernelRole.TEST))
        # the overhead kernel goes first, always
        overhead = get_kernel(OVERHEAD_KERNEL)
        return [overhead] + [s for s in specs if s.name != OVERHEAD_KERNEL]

    def group_sizes(self, spec: KernelSpec) -> tuple[tuple[int, ...], ...]:
        sizes = tuple(g for g in spec.group_sizes()
                      if _prod(g) <= self.device.max_work_group_size)
        if spec.name in self.settings.grid_kernels and spec.fixed_group_size is None:
            grid = tuple(g for g in spec.group_sizes(grid_group_set(spec.group_dims))
                         if _prod(g) <= self.device.max_work_group_size)
            # the grid, then the kernel's own set; 256 work items last, since the
            # size search picks the sizes with the last shape, as a one-group run does
            extra = sizes if self.settings.group_sizes == "set" else ()
            shapes = tuple(dict.fromkeys((*grid, *extra)))
            return tuple(sorted(shapes, key=lambda g: _prod(g) == 256))
        if self.settings.group_sizes == "one":
            # 256 work items where the set has it: the paper's Table 1 reports those.
            return tuple(g for g in sizes if _prod(g) == 256)[:1] or sizes[-1:]
        return sizes

    def case_group_sizes(self, spec: KernelSpec, case: int) -> tuple[tuple[int, ...], ...]:
        """The shapes size case ``case`` is measured at: every shape for the first case;
        in a one-group campaign, a grid kernel's further cases only at 256 work items
        (its heatmap needs one case per shape, its Table 1 every case at 256)."""
        groups = self.group_sizes(spec)
        if case == 0 or self.settings.group_sizes != "one" \
                or spec.name not in self.settings.grid_kernels:
            return groups
        return groups[-1:]

    def _recorded_exponents(self) -> dict[tuple[str, str, str], int]:
        out = {}
        for m in self.store.measurements(campaign=self.campaign_id, status=None):
            if "p" in m.extra:
                out[m.key.kernel, m.key.variant, m.key.dtype] = int(m.extra["p"])
        return out

    def _fits(self, spec: KernelSpec, request: BuildRequest, params: Mapping[str, int]) -> bool:
        """Within the memory budget, and indexable with loopy's int32 sizes."""
        budget = self.settings.memory_fraction * self.device.global_mem_bytes
        try:
            kernel = self.runner.kernel(spec, request)
        except ConfigurationFailed:
            return True  # let the measurement record the build failure
        _, largest = launch_facts(kernel, params)
        itemsize = max((np.dtype(a.dtype.numpy_dtype).itemsize for a in
                        entry_kernel(kernel).args
                        if getattr(a, "shape", None) not in (None,)
                        and hasattr(a, "dtype") and a.dtype is not None), default=8)
        return (array_bytes(kernel, params) <= budget and largest <= INT32_MAX
                and largest * itemsize <= self.device.max_alloc_bytes
                and max(params.values()) <= INT32_MAX)

    def _fills_device(self, spec: KernelSpec, request: BuildRequest,
                      params: Mapping[str, int]) -> bool:
        """Enough work groups that every compute unit has work (the paper measured at
        full occupancy; a half-empty GPU is latency-bound, which no weight captures)."""
        groups, _ = launch_facts(self.runner.kernel(spec, request), params)
        return groups >= self.settings.min_groups_per_unit * self.device.compute_units

    def choose_exponent(self, spec: KernelSpec, request: BuildRequest,
                        overhead_s: float) -> int:
        """Smallest p whose smallest case runs >= factor x overhead and whose largest fits."""
        key = (spec.name, request.variant, request.dtype.value)
        if key in self._p_recorded:
            return self._p_recorded[key]
        if spec.name == OVERHEAD_KERNEL:
            return spec.default_p
        lo = min(spec.p_choices) - self.settings.p_search_below
        hi = max(spec.p_choices) + self.settings.p_search_above
        start = time.perf_counter()
        chosen = None
        for p in range(max(lo, 1), hi + 1):
            cases = self._cases(spec, request.variant, p)
            if not self._fits(spec, request, cases[-1]):
                break
            chosen = p
            args = self.runner.allocate(spec, request, cases[0])
            probe = [self.runner.run_once(spec, request, args)
                     for _ in range(self.settings.probe_runs + 1)][1:]
            del args
            if min(probe) >= self.settings.min_time_factor * overhead_s and \
                    self._fills_device(spec, request, cases[0]):
                break
        self.timings.probe_s += time.perf_counter() - start
        if chosen is None:
            raise ConfigurationFailed(
                "launch", f"even the smallest size cases of {spec.name} exceed "
                f"{self.settings.memory_fraction:.0%} of device memory")
        return chosen

    def _cases(self, spec: KernelSpec, variant: str, p: int) -> tuple[Mapping[str, int], ...]:
        cases = spec.cases(p, variant)
        return cases[: self.settings.size_cases] if self.settings.size_cases else cases

    def builds_ahead(self) -> list[tuple[KernelSpec, BuildRequest]]:
        """Every kernel the campaign will still build, in the order it builds them
        (a kernel, variant and dtype whose configurations are all stored is left out)."""
        out = []
        for spec in self.specs():
            for dtype in self.settings.dtypes:
                if DType(dtype) not in spec.dtypes:
                    continue
                for variant in spec.variants:
                    groups = self.group_sizes(spec)
                    p = self._p_recorded.get((spec.name, variant, dtype))
                    if p is not None and all(
                            self._key(spec, variant, dtype, params, g) in self._done
                            for t, params in enumerate(self._cases(spec, variant, p))
                            for g in self.case_group_sizes(spec, t)):
                        continue
                    # the size search builds the largest group first
                    out += [(spec, spec.request(variant, dtype, g))
                            for g in (groups[-1], *groups[:-1])]
        return out

    @property
    def built_ahead_s(self) -> float:
        """Seconds of code generation and builds done ahead on other cores."""
        return self.prebuilder.warm_s if self.prebuilder is not None else 0.0

    def _built_ahead(self, spec: KernelSpec, request: BuildRequest) -> None:
        if self.prebuilder is not None:
            self.prebuilder.wait(spec, request)

    def planned_count(self) -> int:
        n = 0
        for spec in self.specs():
            dtypes = [d for d in self.settings.dtypes if DType(d) in spec.dtypes]
            for variant in spec.variants:
                k = len(self._cases(spec, variant, spec.default_p))
                n += sum(len(self.case_group_sizes(spec, t)) for t in range(k)) * len(dtypes)
        return n

    # -- running --------------------------------------------------------------------

    def run(self, on_progress: Callable[[Progress], None] | None = None, *,
            should_stop: Callable[[], bool] | None = None) -> CampaignTimings:
        """Measure every configuration not yet stored, then mark the campaign finished.

        ``should_stop`` is asked between configurations (a ``threading.Event``'s
        ``is_set`` fits); once it answers True the run ends without finishing the
        campaign, so the same call resumes it later, and ``timings.stopped`` is set.
        """
        for _ in self.iterate(on_progress, should_stop=should_stop):
            pass
        if not self.timings.stopped:
            self.store.finish_campaign(self.campaign_id)
        return self.timings

    def iterate(self, on_progress: Callable[[Progress], None] | None = None, *,
                should_stop: Callable[[], bool] | None = None) -> Iterator[Measurement]:
        """Measure and yield each configuration; see :meth:`run` for ``should_stop``."""
        planned = self.planned_count()
        done = 0
        began = time.perf_counter()
        overhead_s = None
        if self.prebuilder is not None:
            for spec, request in self.builds_ahead():
                self.prebuilder.submit(spec, request)

        def report(key, status, time_s, message=""):
            if on_progress:
                on_progress(Progress(done, planned, key, status, time_s, message,
                                     time.perf_counter() - began))

        def stopping() -> bool:
            # asked before each configuration and before each size search (probes
            # take as long as a few configurations)
            if should_stop is not None and should_stop():
                self.timings.stopped = True
            return self.timings.stopped

        for spec in self.specs():
            for dtype in self.settings.dtypes:
                if DType(dtype) not in spec.dtypes:
                    continue
                for variant in spec.variants:
                    if stopping():
                        return
                    groups = self.group_sizes(spec)
                    first = spec.request(variant, dtype, groups[-1])
                    self._built_ahead(spec, first)
                    try:
                        p = self.choose_exponent(spec, first, overhead_s or 0.0)
                    except ConfigurationFailed as failure:
                        for m in self._fail_all(spec, variant, dtype, groups, failure):
                            done += 1
                            report(m.key, m.status, None, failure.stage + " failed")
                            yield m
                        continue
                    for t, params in enumerate(self._cases(spec, variant, p)):
                        shapes = self.case_group_sizes(spec, t)
                        todo = [g for g in shapes if self._key(spec, variant, dtype, params, g)
                                not in self._done]
                        done += len(shapes) - len(todo)
                        self.timings.skipped += len(shapes) - len(todo)
                        if not todo:
                            continue
                        args = None
                        for g in todo:
                            if stopping():
                                return
                            request = spec.request(variant, dtype, g)
                            self._built_ahead(spec, request)
                            m, args = self._measure(spec, request, params, args,
                                                    {"p": p, "t": t, "role": spec.role.value})
                            done += 1
                            if spec.name == OVERHEAD_KERNEL and m.time_s is not None:
                                overhead_s = m.time_s if overhead_s is None \
                                    else min(overhead_s, m.time_s)
                            report(m.key, m.status, m.time_s)
                            yield m
                        del args
            if spec.name == OVERHEAD_KERNEL and overhead_s is None:
                overhead_s = self._stored_overhead()

    def _stored_overhead(self) -> float:
        times = [m.time_s for m in self.store.measurements(
            campaign=self.campaign_id, kernel=OVERHEAD_KERNEL) if m.time_s is not None]
        return min(times) if times else 0.0

    def _key(self, spec, variant, dtype, params, group) -> ConfigKey:
        return ConfigKey.make(spec.name, variant, dtype, params, group,
                              self.device.identity)

    def _measure(self, spec: KernelSpec, request: BuildRequest, params, args, extra):
        m, args = time_configuration(self.runner, spec, request, params, self.device,
                                     self.settings.protocol, args=args,
                                     campaign=self.campaign_id, extra=extra,
                                     timings=self.timings)
        self.store.record(m)
        self._done.add(m.key)
        return m, args

    def _fail_all(self, spec, variant, dtype, groups, failure: ConfigurationFailed):
        params = self._cases(spec, variant, spec.default_p)[0]
        for g in groups:
            key = self._key(spec, variant, dtype, params, g)
            if key in self._done:
                continue
            # no "p" here: a resumed campaign must search again, not reuse these sizes
            m = _failed(key, failure, self.device, self.settings.protocol, self.campaign_id,
                        {"p_failed": spec.default_p, "role": spec.role.value})
            self.store.record(m)
            self._done.add(key)
            self.timings.failed += 1
            yield m


def _prod(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def measure_one(spec: KernelSpec, request: BuildRequest, params: Mapping[str, int],
                device: DeviceInfo, queue, protocol: TimingProtocol = TimingProtocol()
                ) -> Measurement:
    """One configuration, outside any campaign, by the same protocol."""
    m, _ = time_configuration(KernelRunner(queue), spec, request, params, device, protocol,
                              extra={"role": spec.role.value})
    return m


def run_configurations(store: MeasurementStore, device: DeviceInfo, queue,
                       configs, *, name: str,
                       protocol: TimingProtocol = TimingProtocol(),
                       on_progress: Callable[[Progress], None] | None = None
                       ) -> CampaignTimings:
    """Measure an explicit list of ``(spec, request, params, extra)``; resumable.

    For sets whose sizes are fixed by the question asked (variant families), not
    chosen per device as in the calibration campaign.
    """
    campaign_id = store.start_campaign(
        name, device.identity, {"runs": protocol.runs,
                                "discard_first": protocol.discard_first,
                                "explicit_configurations": True})
    done_keys = store.done_keys(campaign_id)
    runner = KernelRunner(queue)
    timings = CampaignTimings()
    configs = list(configs)
    began = time.perf_counter()
    for i, (spec, request, params, extra) in enumerate(configs):
        key = ConfigKey.make(spec.name, request.variant, request.dtype.value, params,
                             request.group_size, device.identity)
        if key in done_keys:
            timings.skipped += 1
            continue
        m, _ = time_configuration(runner, spec, request, params, device, protocol,
                                  campaign=campaign_id, extra=extra, timings=timings)
        store.record(m)
        done_keys.add(key)
        if on_progress:
            on_progress(Progress(i + 1, len(configs), key, m.status, m.time_s, "",
                                 time.perf_counter() - began))
    store.finish_campaign(campaign_id)
    return timings
