"""``workbench tune-export`` and ``workbench tune-import``: Kernel Tuner cache files
(:mod:`workbench.tuning.kernel_tuner_io`)."""

from __future__ import annotations

import argparse

from workbench.cli.common import parse_params, print_json
from workbench.errors import TuningError
from workbench.measure import MeasurementStore


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune-export",
                       help="write a measured tuning space as a Kernel Tuner cache file")
    p.add_argument("space", help="catalog space (see 'workbench spaces') or FILE.py:VAR")
    p.add_argument("--store", action="append", required=True,
                   help="store(s) holding the space's evaluations")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size, e.g. n=1024")
    p.add_argument("--device", help="the stored device to export (a substring of its "
                                    "name), where the stores hold several")
    p.add_argument("--device-name", help="device_name in the file (default: the "
                                         "stored device's)")
    p.add_argument("--kernel-name", help="kernel_name in the file (default: the space's "
                                         "name); Kernel Tuner checks it when it tunes")
    p.add_argument("-o", "--output", required=True, metavar="FILE.json")
    p.set_defaults(func=cmd_tune_export)

    p = sub.add_parser("tune-import",
                       help="read a Kernel Tuner cache file: its best point")
    p.add_argument("file", metavar="FILE.json")
    p.add_argument("--space", help="check the file against this space (catalog name or "
                                   "FILE.py:VAR) and read values in its types")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size of --space, e.g. n=1024")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_tune_import)


def _space(ref: str, params):
    from workbench.tuning.catalog import resolve_space
    return resolve_space(ref, **parse_params(params))


def _stored_device(stores, space, device: str | None) -> str:
    from workbench.tuning.evaluation import space_kernel_name

    names = set()
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            names |= {m.device.device for m in store.measurements(
                kernel=space_kernel_name(space), status=None)
                if m.key.params_dict == dict(space.problem)
                and (not device or device.lower() in m.device.device.lower())}
    if len(names) != 1:
        raise TuningError(f"the stores hold space {space.name!r} for "
                          f"{len(names)} devices; name one with --device")
    return names.pop()


def cmd_tune_export(args) -> int:
    from workbench.tuning.kernel_tuner_io import export_cache
    from workbench.tuning.replay import load_space_evaluations

    space = _space(args.space, args.param)
    evaluations = load_space_evaluations(args.store, space, device=args.device)
    device_name = args.device_name or _stored_device(args.store, space, args.device)
    export_cache(space, evaluations, args.output, device_name=device_name,
                 kernel_name=args.kernel_name)
    missing = len(space.points()) - len(evaluations)
    print(f"{args.output}: {len(evaluations)} points of {space.name} on {device_name}"
          + (f" ({missing} of the space not measured: Kernel Tuner's simulation needs "
             "restrictions that leave them out)" if missing else ""))
    return 0


def cmd_tune_import(args) -> int:
    from workbench.tuning.kernel_tuner_io import import_cache

    space = _space(args.space, args.param) if args.space else None
    tune_params, evaluations = import_cache(args.file, space)
    ok = [e for e in evaluations.values() if e.ok]
    best = min(ok, key=lambda e: e.time_s) if ok else None
    out = {"file": args.file, "space": space.name if space else None,
           "parameters": {k: list(v) for k, v in tune_params.items()},
           "evaluations": len(evaluations), "failed": len(evaluations) - len(ok),
           "best": None if best is None else {"point": best.point.as_dict(),
                                              "label": best.point.label,
                                              "time_s": best.time_s}}
    if args.format == "json":
        print_json(out)
        return 0
    print(f"{args.file}: {len(evaluations)} evaluations ({out['failed']} failed) over "
          + ", ".join(tune_params))
    if best is not None:
        print(f"best: {best.point.label}  {best.time_s * 1e3:.4g} ms")
    return 0
