"""``workbench tile-sizes``: time-tiled stencil tile sizes ranked by the time model
(Prajapati et al., section 6)."""

from __future__ import annotations

import argparse
import math
import time

from workbench.cli.common import parse_params, print_json, print_table
from workbench.errors import ParameterError


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tile-sizes", help="rank the tile sizes of a time-tiled stencil "
                                          "by the analytical time model")
    p.add_argument("stencil", help="jacobi1d, jacobi2d, heat2d, laplacian2d, gradient2d, "
                                   "heat3d or laplacian3d")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size, repeatable or comma-separated: S1, S2[, S3] and T "
                        "(defaults: the tuning space's)")
    p.add_argument("--device-model", default="h100", help="device whose facts are used")
    p.add_argument("--calibration", help="tiling calibration JSON (default: the one "
                                         "shipped for the device model)")
    p.add_argument("--scheme", default="overlapped",
                   choices=("overlapped", "hexagonal", "hybrid"),
                   help="overlapped tiles (what the workbench generates) or the paper's")
    p.add_argument("--registers", type=int, default=None,
                   help="registers per work item, bounding the groups per SM")
    p.add_argument("--top", type=int, default=10, help="show the best K (default 10)")
    p.add_argument("--within", type=float, default=0.10,
                   help="also count the points predicted within this fraction of the "
                        "minimum (the paper measures them; default 0.10)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_tile_sizes)


def cmd_tile_sizes(args) -> int:
    from workbench.kernels.timetiled.spaces import DEFAULT_PROBLEM
    from workbench.kernels.timetiled.stencils import get_stencil
    from workbench.models.registry import get_family
    from workbench.models.tiling import evaluate_grid, feasible_grid, near_minimum
    from workbench.models.tiling.family import with_registers

    stencil = get_stencil(args.stencil)
    defaults = DEFAULT_PROBLEM[stencil.dims]
    given = parse_params(args.param)
    if unknown := sorted(set(given) - set(defaults)):
        raise ParameterError(f"{stencil.name} has no size {unknown[0]!r} "
                             f"(sizes: {', '.join(defaults)})")
    sizes = {**defaults, **given}
    if bad := [n for n, v in sizes.items() if v <= 0]:
        raise ParameterError(f"sizes must be positive: {bad[0]}={sizes[bad[0]]}")
    if args.top < 1 or not 0 <= args.within:
        raise ParameterError("--top must be at least 1 and --within not negative")
    model = get_family("tiling").ready(device_model=args.device_model,
                                       calibration=args.calibration, scheme=args.scheme)
    if args.registers is not None:
        model = with_registers(model, {stencil.name: args.registers})
    began = time.perf_counter()
    grid = feasible_grid(stencil.dims, sizes["T"], scheme=model.scheme)
    frame = evaluate_grid(model, stencil.name, sizes, grid)
    near = near_minimum(frame, args.within)
    seconds = time.perf_counter() - began
    names = ["tT", *(f"tS{i + 1}" for i in range(stencil.dims)),
             *("bx", "by", "bz")[:stencil.dims], "N_w", "w", "k", "M_tile_bytes",
             "T_alg_s"]
    top = frame.head(args.top)
    rows = [{"rank": i + 1, **{n: (float(r[n]) if n == "T_alg_s" else int(r[n]))
                               for n in names}} for i, (_, r) in enumerate(top.iterrows())]
    flop = stencil.flops * math.prod(sizes[f"S{i + 1}"] for i in range(stencil.dims)) \
        * sizes["T"]
    for r in rows:
        r["GFlop/s"] = round(flop / r["T_alg_s"] / 1e9, 1)
    summary = {"stencil": stencil.name, "sizes": sizes, "scheme": model.scheme.value,
               "device": model.hardware.name, "evaluated": int(len(grid["tT"])),
               "feasible": int(len(frame)), "within": args.within,
               "near_minimum": int(len(near)), "seconds": seconds}
    if args.format == "json":
        print_json({**summary, "top": rows})
        return 0
    print(f"{stencil.name} {'x'.join(str(sizes[f'S{i + 1}']) for i in range(stencil.dims))}"
          f", T={sizes['T']}, {model.scheme.value} tiles on {model.hardware.name}: "
          f"{summary['feasible']} feasible of {summary['evaluated']} points in "
          f"{seconds * 1e3:.0f} ms; {summary['near_minimum']} within "
          f"{args.within:.0%} of the predicted minimum")
    print_table([{**r, "T_alg_s": f"{r['T_alg_s']:.4g}"} for r in rows],
                ["rank", *names, "GFlop/s"])
    return 0
