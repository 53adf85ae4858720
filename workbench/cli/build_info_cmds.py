"""``workbench build-info``: registers, spills and shared memory per configuration."""

from __future__ import annotations

import argparse
import sys
import time
from workbench.cli.arg_types import positive_int
from workbench.kernels.set_names import UNSEEN_SET_NAMES

SETS = ("catalog", *UNSEEN_SET_NAMES, "2019")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "build-info", help="build every configuration of calibration sets (no run) and "
                           "keep the compiler's registers, spills and shared memory")
    p.add_argument("--set", default="catalog",
                   help=f"comma-separated sets among {', '.join(SETS)} (the configurations "
                        "'workbench calibrate --set' measures)")
    p.add_argument("--kernels", help="comma-separated subset of the sets' kernels")
    p.add_argument("--dtypes", default="float32", help="float32, float64 or both")
    p.add_argument("--device", help="index or name substring (default: pocl CPU)")
    p.add_argument("--jobs", type=positive_int, default=1, help="processes building in parallel")
    p.add_argument("--build-option", action="append", default=[], metavar="OPTION",
                   help="OpenCL build option, repeatable; NVIDIA reports registers with "
                        "-cl-nv-verbose (no other vendor's log has them)")
    p.add_argument("--out", required=True, metavar="FILE.json")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_build_info)


def _specs(sets: tuple[str, ...], kernels: tuple[str, ...], dtypes: tuple[str, ...]):
    from workbench.cli.measure_cmds import measurement_specs
    from workbench.kernels import KernelRole, all_kernels

    specs = []
    for name in sets:
        found = measurement_specs(name, (), dtypes)
        if found is None:   # the catalog, as a campaign takes it
            found = tuple(all_kernels(KernelRole.MEASUREMENT)) + tuple(
                all_kernels(KernelRole.TEST))
        specs += found
    if kernels:
        known = {s.name for s in specs}
        for k in kernels:
            if k not in known:
                from workbench.errors import UnknownNameError
                raise UnknownNameError("kernel of the sets", k, known)
        specs = [s for s in specs if s.name in kernels]
    return specs


def cmd_build_info(args) -> int:
    from workbench.cli.measure_cmds import parse_dtypes
    from workbench.errors import ParameterError, UnknownNameError
    from workbench.measure import find_device
    from workbench.measure.builds import collect_build_info, planned_builds

    sets = tuple(dict.fromkeys(s.strip() for s in args.set.split(",") if s.strip()))
    for name in sets:
        if name not in SETS:
            raise UnknownNameError("set", name, SETS)
    if not sets:
        raise ParameterError("--set needs at least one set")
    if args.jobs < 1:
        raise ParameterError("--jobs must be at least 1")
    dtypes = parse_dtypes(args.dtypes)
    kernels = tuple(k.strip() for k in args.kernels.split(",")) if args.kernels else ()
    device = find_device(args.device)
    builds = planned_builds(_specs(sets, kernels, dtypes), dtypes,
                            device.max_work_group_size)
    print(f"building {len(builds)} configurations on {device.label} with "
          f"{args.jobs} process(es), options {args.build_option or 'none'}",
          file=sys.stderr)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=len(builds), unit="build", file=sys.stderr,
                   mininterval=0.5 if sys.stderr.isatty() else 15)
    start = time.perf_counter()
    result = collect_build_info(
        device, builds, options=args.build_option, jobs=args.jobs,
        provenance={"command": "workbench " + " ".join(sys.argv[1:]), "sets": list(sets),
                    "dtypes": list(dtypes)},
        on_record=(lambda key, record: bar.update(1)) if bar is not None else None)
    if bar is not None:
        bar.close()
    path = result.save(args.out)
    failed = sum(r.status == "failed" for r in result.records.values())
    print(f"{len(result.records)} configurations in {time.perf_counter() - start:.1f} s: "
          f"{result.with_registers} with registers, {failed} failed; written to {path}")
    return 0
