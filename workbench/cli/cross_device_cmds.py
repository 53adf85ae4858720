"""``workbench table2``: Table 2 across devices (each device's weights predicting the
other's kernels, and the weights side by side)."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli.common import print_json
from workbench.errors import ParameterError
from workbench.cli.arg_types import non_negative_int


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table2", help="Table 2 across two devices: cross-device errors "
                                      "and the weights side by side")
    for side in ("a", "b"):
        p.add_argument(f"--store-{side}", action="append", metavar="STORE",
                       help=f"device {side.upper()}'s catalog store, repeatable; or a "
                            "folder laid out as sample_data/h100 "
                            "(measurements-fp64.sqlite, unseen.sqlite)")
        p.add_argument(f"--unseen-{side}", action="append", metavar="STORE", default=[],
                       help=f"device {side.upper()}'s unseen-kernel store (its unseen "
                            "rows only)")
        p.add_argument(f"--label-{side}", help="a label (default: the device's name)")
    p.add_argument("--model", action="append", metavar="linear|overlap-fp64|FILE",
                   help="model to fit on each device, repeatable (default: linear and "
                        "overlap-fp64)")
    p.add_argument("--kernels", help="comma-separated kernels to keep (default: all)")
    p.add_argument("--bootstrap", type=non_negative_int, default=50,
                   help="bootstrap resamples of the linear weights' intervals")
    p.add_argument("--what", choices=("errors", "weights", "both"), default="both")
    p.add_argument("--format", choices=("table", "md", "csv", "json"), default="table")
    p.set_defaults(func=cmd_table2)


def _side(args, side: str, kernels):
    from workbench.measure.store import resolve_store_path
    from workbench.reports.cross_device import load_device, load_folder

    stores = getattr(args, f"store_{side}") or []
    label = getattr(args, f"label_{side}")
    if not stores:
        raise ParameterError(f"--store-{side} is required (a store or a device folder)")
    if len(stores) == 1 and Path(stores[0]).is_dir():
        folder = load_folder(stores[0], label)
        if not kernels:
            return folder
        stores, unseen = folder.stores[:1], folder.stores[1:]
        return load_device(stores, label, unseen=unseen, kernels=kernels)
    for path in stores:
        if resolve_store_path(path) is None:  # X.sqlite or its shipped X.sqlite.xz
            raise ParameterError(f"no store at {path}")
    return load_device(stores, label, unseen=getattr(args, f"unseen_{side}"),
                       kernels=kernels)


def _models(args):
    from workbench.reports.cross_device import LINEAR, ModelChoice, default_models

    root = Path(__file__).resolve().parents[2]
    defaults = {m.name: m for m in default_models(root)}
    out = []
    for name in args.model or ["linear", "overlap-fp64"]:
        if name in defaults:
            out.append(defaults[name])
        elif name == LINEAR.name:
            out.append(LINEAR)
        elif Path(name).is_file():
            out.append(ModelChoice(Path(name).stem, name))
        else:
            raise ParameterError(f"--model is linear, overlap-fp64 or a model file, not "
                                 f"{name!r}")
    return out


def cmd_table2(args) -> int:
    from workbench.reports import to_markdown
    from workbench.reports.cross_device import cross_device_table2

    kernels = tuple(k.strip() for k in args.kernels.split(",")) if args.kernels else ()
    devices = [_side(args, "a", kernels), _side(args, "b", kernels)]
    result = cross_device_table2(devices, _models(args), bootstrap=args.bootstrap)
    frames = {"errors": result.errors, "weights": result.weights}
    chosen = ("errors", "weights") if args.what == "both" else (args.what,)
    if args.format == "json":
        print_json({k: frames[k].to_dict(orient="records") for k in chosen})
        return 0
    for k in chosen:
        frame = frames[k]
        if args.format == "csv":
            print(frame.to_csv(index=False), end="")
        elif args.format == "md":
            print(to_markdown(frame, "{:.4g}"))
        else:
            print(f"{k}:\n{frame.to_string(index=False)}\n")
    return 0
