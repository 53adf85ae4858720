"""``workbench devices``, ``calibrate`` and ``measure``."""

from __future__ import annotations

import argparse
import sys
import time

from workbench.cli.common import parse_params, print_json, print_table
from workbench.kernels import format_group_size, get_kernel, resolve_kernel
from workbench.kernels.set_names import UNSEEN_SET_NAMES
from workbench.measure import (
    Campaign,
    CampaignSettings,
    MeasurementStore,
    TimingProtocol,
    default_store_path,
    find_device,
    list_devices,
    open_device,
)
from workbench.measure.campaign import measure_one
from workbench.cli.arg_types import non_negative_int, positive_int


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list OpenCL platforms and devices")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_devices)

    p = sub.add_parser("calibrate", help="run the measurement campaign into a store")
    p.add_argument("--device", help="index or name substring (default: pocl CPU)")
    p.add_argument("--store", help=f"SQLite store (default: {default_store_path()})")
    p.add_argument("--quick", action="store_true",
                   help="few runs, two size cases, one group size: minutes, for CI")
    p.add_argument("--kernels", help="comma-separated subset of the catalog")
    p.add_argument("--dtypes", default="float32",
                   help="comma-separated precisions to measure: float32, float64 or both "
                        "(float32,float64); every kernel of the sets is built in each")
    p.add_argument("--name", default=None, help="campaign name (resumes if unfinished)")
    p.add_argument("--runs", type=positive_int, default=None, help="timed runs per configuration")
    p.add_argument("--min-time-factor", type=float, default=None,
                   help="smallest case must run this many times the launch overhead")
    p.add_argument("--set", choices=("catalog", "2019", "work-removed", "2019-work-removed",
                                     *UNSEEN_SET_NAMES, "timetiling"),
                   default="catalog",
                   help="catalog: the 2018 paper's kernels; 2019: the generated measurement "
                        "kernels; work-removed: the catalog with on-chip work removed; "
                        "2019-work-removed: the generated kernels with on-chip work removed; "
                        "unseen: kernels no model is fitted on, to judge accuracy on new "
                        "code; unseen2: a second, wider set of such kernels (indirect "
                        "access, scans, small grids, private arrays); heldout3: a third "
                        "set, held out of all fitting and design, reported apart; heldout4: "
                        "a fourth such set, replacing the third (read since); heldout5: a "
                        "fifth, replacing the fourth (read since); heldout6: a sixth, "
                        "replacing the fifth (read since); heldout7: a seventh, "
                        "replacing the sixth (read since); heldout8: an eighth, "
                        "replacing the seventh (read since); heldout9: a ninth, "
                        "replacing the eighth (read since); heldout10: a tenth, "
                        "replacing the ninth (read since); heldout11: an "
                        "eleventh, replacing the tenth (read since); heldout12: a "
                        "twelfth, replacing the eleventh (read since); heldout13: a "
                        "thirteenth, replacing the twelfth (read since); heldout14: a "
                        "fourteenth, replacing the thirteenth (read since); heldout15: "
                        "a fifteenth, replacing the fourteenth (read since); heldout16: "
                        "a sixteenth, replacing the fifteenth (read since); heldout17: "
                        "a seventeenth, replacing the sixteenth (read since); heldout18: "
                        "an eighteenth, replacing the seventeenth (read since); heldout19: "
                        "a nineteenth, replacing the eighteenth (read since); heldout20: "
                        "a twentieth, replacing the nineteenth (read since); heldout21: "
                        "a twenty-first, replacing the twentieth (read since); heldout22: "
                        "a twenty-second, replacing the twenty-first (read since); "
                        "timetiling: the tiling model's microbenchmarks (L, tau_sync, "
                        "T_sync, C_iter; --kernels: stencils), then its calibration file")
    p.add_argument("--calibration-out", metavar="FILE",
                   help="--set timetiling: where the calibration goes (default: "
                        "tiling-calibration.json beside the store)")
    p.add_argument("--device-model", default="h100",
                   help="--set timetiling: the device description whose lanes per SM "
                        "turn band times into C_iter (default h100; SMs are counted)")
    p.add_argument("--families", action="store_true",
                   help="measure the variant families (for 'workbench select') instead; "
                        "with --set work-removed, their work-removed twins (in-situ "
                        "global-memory features)")
    p.add_argument("--twins-of", metavar="STORE",
                   help="measure the work-removed twin of every configuration stored in "
                        "STORE for this device (same sizes and group sizes), for in-situ "
                        "features (f_wr_wall_time)")
    p.add_argument("--family-size", action="append", metavar="FAMILY=N",
                   help="problem size of a family, repeatable (e.g. matmul=2048)")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="processes that generate code and build kernels ahead while this "
                        "one measures (a campaign's sets; timings are unchanged); with "
                        "--scheduler the cluster's CPU workers do this instead")
    p.add_argument("--no-progress", action="store_true")
    add_scheduler_options(p)
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("measure", help="time one configuration with the same protocol")
    p.add_argument("kernel")
    p.add_argument("--param", action="append", metavar="NAME=VALUE")
    p.add_argument("--variant")
    p.add_argument("--dtype", default=None, help="float32 or float64 (default: the kernel's own; float32 for catalog kernels)")
    p.add_argument("--group-size")
    p.add_argument("--device")
    p.add_argument("--runs", type=positive_int, default=30)
    p.add_argument("--store", help="also record the measurement in this store")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_measure)


def add_scheduler_options(p: argparse.ArgumentParser) -> None:
    """``--scheduler`` and the options of the cluster it starts (calibrate and tune)."""
    g = p.add_argument_group("many devices, with Dask (see docs/many-gpus.md)")
    g.add_argument("--scheduler", metavar="local-gpus|tcp://HOST:PORT",
                   help="local-gpus: start one worker per OpenCL device matching --device "
                        "and CPU workers for code generation and builds; tcp://HOST:PORT: "
                        "use a running Dask scheduler and its workers")
    g.add_argument("--workers-per-device", type=positive_int, default=1,
                   help="local-gpus: device workers per device (above 1 only to test on "
                        "one device: their timings disturb each other)")
    g.add_argument("--cpu-workers", type=non_negative_int, default=None,
                   help="local-gpus: CPU workers (default: the cores the device workers "
                        "leave)")
    g.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="how long to wait for the scheduler and a first worker")


def open_cluster(args):
    """The Dask session of ``--scheduler``, announced with its dashboard."""
    from workbench.distributed import SchedulerSpec, open_session

    spec = SchedulerSpec(args.scheduler, workers_per_device=args.workers_per_device,
                         cpu_workers=args.cpu_workers, timeout_s=args.scheduler_timeout)
    session = open_session(spec, args.device)
    print(f"{session.describe()}\n  Dask dashboard: {session.dashboard_text()}",
          file=sys.stderr)
    return session


def cmd_devices(args) -> int:
    rows = [{"index": d.index, "platform": d.platform, "device": d.name, "vendor": d.vendor,
             "driver": d.driver_version, "compute_units": d.compute_units,
             "global_mem_MiB": d.global_mem_bytes >> 20,
             "local_mem_KiB": d.local_mem_bytes >> 10,
             "max_group": d.max_work_group_size,
             "subgroup": d.subgroup_size or None}
            for d in list_devices()]
    if args.format == "json":
        print_json(rows)   # null where the driver does not report it
    else:
        # (a bare "?" in the pocl row left a newcomer guessing)
        print_table([{**r, "subgroup": r["subgroup"] or "not reported"} for r in rows])
    return 0


QUICK_FAMILY_SIZES = {"matmul": (128,), "finite_diff": (256,), "transpose": (256,),
                      "convolution": (32,), "nbody": (1024,)}


def family_sizes(items, quick: bool) -> dict | None:
    if not items:
        return dict(QUICK_FAMILY_SIZES) if quick else None
    sizes: dict[str, tuple[int, ...]] = {}
    for name, n in parse_params(items).items():
        sizes[name] = sizes.get(name, ()) + (n,)
    return sizes


def cmd_families(args, device) -> int:
    from workbench.kernels.families import default_families
    from workbench.measure.campaign import run_configurations

    if args.set.startswith("2019"):
        from workbench.errors import WorkbenchError
        raise WorkbenchError("--families measures the catalog's variant families or, with "
                             "--set work-removed, their work-removed twins; not the 2019 set")
    twins = args.set == "work-removed"
    families = default_families(family_sizes(args.family_size, args.quick))
    configs = []
    for fam in families:
        for c in fam.candidates:
            # the twin keeps the candidate's variant, dtype, group size and sizes
            spec = get_kernel(f"{c.kernel}_wr" if twins else c.kernel)
            request = spec.request(c.variant, c.dtype, c.group_size)
            configs.append((spec, request, c.params_dict, {"family": fam.name}))
    protocol = TimingProtocol(runs=args.runs or (8 if args.quick else 30),
                              discard_first=2 if args.quick else 4)
    _, queue = open_device(device)
    with MeasurementStore.open(args.store or default_store_path()) as store:
        name = args.name or ("families-quick" if args.quick else "families") + (
            "-work-removed" if twins else "")
        timings = run_configurations(store, device, queue, configs, name=name,
                                     protocol=protocol)
    print(f"variant families on {device.name}: {summary(timings)}")
    return 0


def cmd_twins(args, device) -> int:
    """The work-removed twin of every stored configuration of this device."""
    from pathlib import Path

    from workbench.errors import UnknownNameError, WorkbenchError
    from workbench.measure.campaign import run_configurations

    if args.families or args.kernels or args.set != "catalog":
        raise WorkbenchError("--twins-of takes its configurations from the store: it "
                             "cannot be combined with --families, --kernels or --set")
    source = Path(args.twins_of)
    with MeasurementStore.open(source, create=False, readonly=True) as store:
        stored = [m for m in store.measurements()
                  if m.device.device == device.name and m.time_s is not None]
    configs, seen, unknown = [], set(), set()
    for m in stored:
        k = m.key
        if k.kernel.endswith("_wr") or k.kernel == "empty":
            continue
        try:
            spec = get_kernel(f"{k.kernel}_wr")
        except UnknownNameError:
            unknown.add(k.kernel)  # not a catalog or generated kernel: no twin to build
            continue
        ident = (k.kernel, k.variant, k.dtype, k.group_size, k.params)
        if ident in seen:
            continue
        seen.add(ident)
        configs.append((spec, spec.request(k.variant, k.dtype, k.group_size),
                        dict(k.params), {"twin_of": k.kernel}))
    if not configs:
        raise WorkbenchError(f"{source} holds no configuration of {device.name} with a "
                             "work-removed twin")
    if unknown:
        print(f"no twin for {len(unknown)} kernel(s) outside the catalog: "
              + ", ".join(sorted(unknown)), file=sys.stderr)
    runs = args.runs or 30
    protocol = TimingProtocol(runs=runs, discard_first=min(4, runs - 1))
    _, queue = open_device(device)
    with MeasurementStore.open(args.store or default_store_path()) as store:
        timings = run_configurations(store, device, queue, configs,
                                     name=args.name or f"twins-of-{source.stem}",
                                     protocol=protocol)
    print(f"work-removed twins of {len(configs)} configurations of {source.name} on "
          f"{device.name}: {summary(timings)}")
    return 0


def summary(timings) -> str:
    return (f"{timings.measured} measured, {timings.skipped} already stored, "
            f"{timings.failed} failed; build {timings.build_s:.1f} s, "
            f"run {timings.run_s:.1f} s, size probing {timings.probe_s:.1f} s")


def parse_dtypes(text: str) -> tuple[str, ...]:
    """``"float32,float64"`` -> both, validated (an unknown one names the choices)."""
    from workbench.kernels import DType

    names = [t.strip() for t in str(text).split(",") if t.strip()]
    if not names:
        from workbench.errors import ParameterError
        raise ParameterError("--dtypes needs at least one of float32, float64")
    return tuple(dict.fromkeys(DType.parse(n).value for n in names))


def measurement_specs(which: str, kernels: tuple[str, ...],
                      dtypes: tuple[str, ...] = ("float32",)):
    """The kernels of a measurement set; None means the catalog (filtered by name)."""
    if which == "catalog":
        return None
    if which in UNSEEN_SET_NAMES:
        from workbench.kernels.defs import UNSEEN_SETS
        specs = UNSEEN_SETS[which]
    elif which in ("2019", "2019-work-removed"):
        from workbench.kernels.generators import measurement_set_2019
        specs = measurement_set_2019(dtypes)
        if which == "2019-work-removed":
            from workbench.kernels.work_removal import work_removed_spec
            specs = tuple(work_removed_spec(s) for s in specs if s.name != "empty")
    else:
        from workbench.kernels import all_kernels
        from workbench.kernels.work_removal import work_removed_spec
        specs = tuple(work_removed_spec(s) for s in all_kernels() if s.name != "empty")
    if kernels:
        known = {s.name for s in specs}
        for k in kernels:
            if k not in known:
                from workbench.errors import UnknownNameError
                raise UnknownNameError(f"kernel of the {which!r} set", k, known)
        specs = tuple(s for s in specs if s.name in kernels)
    return specs


def cmd_calibrate(args) -> int:
    if args.scheduler and (args.twins_of or args.families or args.set == "timetiling"):
        from workbench.errors import WorkbenchError
        raise WorkbenchError("--scheduler runs the calibration campaign of a set; "
                             "--families and --twins-of run on one device, without it, "
                             "as does --set timetiling")
    if args.jobs < 1:
        from workbench.errors import ParameterError
        raise ParameterError("--jobs must be at least 1")
    if args.jobs > 1 and (args.scheduler or args.twins_of or args.families
                          or args.set == "timetiling"):
        from workbench.errors import WorkbenchError
        raise WorkbenchError("--jobs builds ahead for the calibration campaign of a set "
                             "on this host; with --scheduler the CPU workers build")
    # with a scheduler the workers find the device: this host may have none
    device = None if args.scheduler else find_device(args.device)
    if args.twins_of:
        return cmd_twins(args, device)
    if args.families:
        return cmd_families(args, device)
    if args.set == "timetiling":
        from workbench.cli.tiling_cmds import calibrate_timetiling
        return calibrate_timetiling(args, device)
    kernels = tuple(k.strip() for k in args.kernels.split(",")) if args.kernels else ()
    if args.set == "catalog":
        for k in kernels:
            get_kernel(k)  # unknown names fail before anything runs
    from dataclasses import replace
    dtypes = parse_dtypes(args.dtypes)
    settings = CampaignSettings.quick(kernels) if args.quick else CampaignSettings(
        kernels=kernels)
    settings = replace(settings, dtypes=dtypes)
    if args.runs is not None or args.min_time_factor is not None:
        proto = settings.protocol if args.runs is None else TimingProtocol(
            runs=args.runs, discard_first=min(settings.protocol.discard_first, args.runs - 1))
        settings = replace(settings, protocol=proto, min_time_factor=(
            args.min_time_factor or settings.min_time_factor))
    name = args.name or ("quick" if args.quick else "calibration") + (
        "" if args.set == "catalog" else f"-{args.set}")
    specs = measurement_specs(args.set, kernels, dtypes)
    store_path = args.store or default_store_path()
    if args.scheduler:
        from workbench.distributed import DistributedCampaign
        with open_cluster(args) as session, MeasurementStore.open(store_path) as store:
            campaign = DistributedCampaign(session, store, settings, name=name,
                                           specs=specs)
            return _run_campaign(args, campaign, store, session.device, name)
    _, queue = open_device(device)
    prebuilder = None
    if args.jobs > 1:
        from workbench.measure.prebuild import LocalPrebuilder
        prebuilder = LocalPrebuilder(device.index, args.jobs)
    try:
        with MeasurementStore.open(store_path) as store:
            campaign = Campaign(store, device, queue, settings, name=name, specs=specs,
                                prebuilder=prebuilder)
            return _run_campaign(args, campaign, store, device, name)
    finally:
        if prebuilder is not None:
            prebuilder.close()


def _run_campaign(args, campaign, store, device, name) -> int:
    print(f"calibrating {device.label}\n  store {store.path}, campaign {name!r} "
          f"(id {campaign.campaign_id}); {len(campaign._done)} configurations "
          "already stored", file=sys.stderr)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=campaign.planned_count(), unit="cfg", file=sys.stderr,
                   mininterval=0.5 if sys.stderr.isatty() else 15)

    def progress(ev):
        if bar is not None:
            bar.total = max(bar.total, ev.done)
            bar.n = ev.done
            label = f"{ev.key.kernel}/{ev.key.variant}" if ev.key else ev.message
            bar.set_postfix_str(label, refresh=True)

    start = time.perf_counter()
    try:
        timings = campaign.run(progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"\ninterrupted: {len(store.done_keys(campaign.campaign_id))} "
              "configurations are stored. Run the same command again to resume "
              "where it stopped.", file=sys.stderr)
        return 130
    if bar is not None:
        bar.close()
    wall = time.perf_counter() - start
    ahead = getattr(campaign, "built_ahead_s", None)
    ahead = f"; built ahead on other cores: {ahead:.1f} s" if ahead else ""
    print(f"done in {wall:.1f} s: {summary(timings)}{ahead}")
    return 0


def cmd_measure(args) -> int:
    spec = resolve_kernel(args.kernel)
    # The build's choices before the sizes, so a misspelt variant is reported as such.
    request = spec.request(args.variant, args.dtype, args.group_size)
    params = spec.check_parameter_names(parse_params(args.param))
    device = find_device(args.device)
    _, queue = open_device(device)
    protocol = TimingProtocol(runs=args.runs, discard_first=min(4, args.runs - 1))
    m = measure_one(spec, request, params, device, queue, protocol)
    if args.store:
        with MeasurementStore.open(args.store) as store:
            store.record(m)
    result = {"kernel": spec.name, "variant": request.variant, "dtype": request.dtype.value,
              "params": params, "group_size": format_group_size(request.group_size),
              "device": device.name, "status": m.status.value, "time_s": m.time_s,
              "raw_times_s": list(m.raw_times_s)}
    if args.format == "json":
        print_json(result)
    elif m.time_s is None:
        print(f"{spec.name}: {m.status.value}\n{m.log}")
    else:
        print(f"{spec.name} [{request.variant}, {request.dtype.value}, "
              f"{format_group_size(request.group_size)}] {params} on {device.name}: "
              f"{m.time_s * 1e3:.4f} ms (min of {len(m.raw_times_s) - m.discard_first} runs)")
    return 0 if m.time_s is not None else 1
