"""The tasks the client sends to workers: calibration and tuning steps.

Device tasks (:func:`choose_exponent`, :func:`measure_configuration`,
:func:`evaluate_point`) run on a device worker, on the state of
:func:`~workbench.distributed.worker.device_state`; :func:`prepare_point` runs on a CPU
worker.  Every task first checks the client's library stack (:class:`.Binding`).

Measurements cross the wire as plain dicts: :class:`Measurement` freezes its mappings
in ``MappingProxyType``, which pickle refuses.
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench.distributed.worker import (
    STATE,
    Binding,
    checked,
    device_state,
    worker_device,
)
from workbench.errors import WorkbenchError
from workbench.kernels import BuildRequest, KernelSpec
from workbench.measure.campaign import (
    Campaign,
    CampaignSettings,
    CampaignTimings,
    time_configuration,
)
from workbench.measure.devices import DeviceInfo, open_device
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.runner import ConfigurationFailed, KernelRunner, TimingProtocol
from workbench.measure.store import ConfigKey, Measurement


# -- measurements over the wire -------------------------------------------------------

def measurement_to_wire(m: Measurement) -> dict:
    return {"key": m.key, "status": m.status.value, "raw_times_s": m.raw_times_s,
            "discard_first": m.discard_first, "time_s": m.time_s, "log": m.log,
            "device": m.device.to_dict(), "library_versions": dict(m.library_versions),
            "host": m.host, "timestamp": m.timestamp, "campaign": m.campaign,
            "extra": dict(m.extra)}


def measurement_from_wire(data: Mapping) -> Measurement:
    fields = dict(data)
    fields["device"] = DeviceIdentity.from_dict(fields["device"])
    key = fields["key"]
    if not isinstance(key, ConfigKey):
        raise WorkbenchError(f"a worker sent a measurement without its key: {key!r}")
    return Measurement(**fields)


# -- calibration ------------------------------------------------------------------------

class _DeviceSide(Campaign):
    """The device half of a campaign: its size search, without a store.

    The client owns the store and the plan; a worker needs only the exponent search
    (``choose_exponent`` and the checks it calls), which read the device, the
    settings and the runner, so those are all this sets up.
    """

    def __init__(self, device: DeviceInfo, runner: KernelRunner,
                 settings: CampaignSettings):
        # Campaign.__init__ is skipped on purpose: it opens the campaign in a store
        self.store = None
        self._explicit_specs = None
        self.device = device
        self.settings = settings
        self.runner = runner
        self.timings = CampaignTimings()
        self._done = set()
        self._p_recorded = {}


def build_ahead(binding: Binding, spec: KernelSpec, request: BuildRequest) -> float:
    """On a CPU worker: generate and build one campaign kernel into loopy's and
    pyopencl's disk caches (:func:`~workbench.measure.prebuild.warm`), for the device
    worker of the same host; seconds it took (0 where this host lacks the device)."""
    from workbench.measure.prebuild import warm

    checked(binding)
    context = _host_context(binding.selector)
    return warm(context, spec, request) if context is not None else 0.0


def choose_exponent(binding: Binding, settings: CampaignSettings, spec: KernelSpec,
                    request: BuildRequest, overhead_s: float, built: float = 0.0) -> dict:
    """The campaign's size search for one kernel, variant and dtype, on this device
    (``built``: the result of its :func:`build_ahead`, which Dask runs first)."""
    state = device_state(binding)
    side = _DeviceSide(state["device"], state["runner"], settings)
    state["args"] = (None, None)   # the search allocates its own: free the last case's
    try:
        p = side.choose_exponent(spec, request, overhead_s)
    except ConfigurationFailed as failure:
        return {"p": None, "stage": failure.stage, "log": failure.log,
                "probe_s": side.timings.probe_s}
    return {"p": p, "probe_s": side.timings.probe_s}


def measure_configuration(binding: Binding, spec: KernelSpec, request: BuildRequest,
                          params: Mapping[str, int], protocol: TimingProtocol,
                          campaign: int | None, extra: Mapping, built: float = 0.0) -> dict:
    """Build and time one configuration; the buffers of the last size case are kept,
    since the campaign measures every group size of a case in a row (``built``: as
    for :func:`choose_exponent`)."""
    state = device_state(binding)
    case = (spec.name, request.variant, request.dtype.value, tuple(sorted(params.items())))
    held, args = state["args"]
    if held != case:
        state["args"] = (None, None)
        args = None   # dropped before allocating: two cases may not fit together
    timings = CampaignTimings()
    m, args = time_configuration(state["runner"], spec, request, params, state["device"],
                                 protocol, args=args, campaign=campaign, extra=extra,
                                 timings=timings)
    state["args"] = (case, args) if args is not None else (None, None)
    return {"measurement": measurement_to_wire(m), "build_s": timings.build_s,
            "run_s": timings.run_s}


# -- tuning -----------------------------------------------------------------------------

def _space(space_ref: str, problem: Mapping[str, int]):
    from workbench.tuning.catalog import resolve_space

    key = ("space", space_ref, tuple(sorted(problem.items())))
    if key not in STATE:
        STATE[key] = resolve_space(space_ref, **dict(problem))
    return STATE[key]


def _host_context(selector: str | None):
    """An OpenCL context on this host's device, to build ahead into pyopencl's cache;
    None where this host has no such device (code generation still moves here)."""
    key = ("context", selector)
    if key not in STATE:
        try:
            STATE[key], _ = open_device(worker_device(selector))
        except WorkbenchError:
            STATE[key] = None
    return STATE[key]


def prepare_point(binding: Binding, space_ref: str, problem: Mapping[str, int],
                  label: str, build_options: tuple[str, ...]) -> dict:
    """Transform, generate code and (where this host has the device) build one point,
    each timed; the products reach the device worker through loopy's and pyopencl's
    disk caches when they share them (one host, or a shared cache folder)."""
    from workbench.tuning.evaluation import Cost
    from workbench.tuning.live import compile_code
    from workbench.tuning.live import prepare_point as prepare

    checked(binding)
    space = _space(space_ref, problem)
    context = _host_context(binding.selector)
    prepared = prepare(space, space.point(label), context)
    costs = {k.value: v for k, v in prepared.costs.items()}
    build_log = ""
    if prepared.failure is None and context is not None:
        seconds, _, build_log, _ = compile_code(context, prepared.code, build_options)
        costs[Cost.BUILD.value] = seconds
    return {"costs": costs, "build_log": build_log}


def evaluate_point(binding: Binding, space_ref: str, problem: Mapping[str, int],
                   label: str, verify: bool, build_options: tuple[str, ...], seed: int,
                   prepared: Mapping | None = None):
    """Measure one point on this worker's device (after ``prepared`` ran elsewhere,
    whose costs are then the ones recorded, as with ``--jobs``)."""
    from workbench.tuning.evaluation import Cost
    from workbench.tuning.sequence import evaluator_for

    state = device_state(binding)
    key = (space_ref, tuple(sorted(problem.items())), verify, tuple(build_options), seed)
    evaluator = state["evaluators"].get(key)
    if evaluator is None:
        state["evaluators"].clear()   # one space's inputs on the device at a time
        # a time-tiled point is its whole sequence of band launches, timed as one
        evaluator = evaluator_for(_space(space_ref, problem), state["runner"].queue,
                                  verify=verify, seed=seed,
                                  build_options=tuple(build_options))
        state["evaluators"][key] = evaluator
    point = evaluator.space.point(label)
    if prepared is None:
        return evaluator.evaluate(point)
    costs = {Cost(k): v for k, v in prepared["costs"].items()}
    return evaluator.evaluate(point, costs, prepared["build_log"])
