"""``workbench tile-sizes``: time-tiled stencil tile sizes ranked by the time model
(Prajapati et al., section 6); and ``workbench calibrate --set timetiling``, the
model's microbenchmarks and calibration file (:func:`calibrate_timetiling`)."""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

from workbench.cli.common import parse_params, print_json, print_table
from workbench.errors import ModelError, ParameterError
from workbench.cli.arg_types import positive_int


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
    p.add_argument("--form", default=None,
                   choices=("paper", "resident-latency", "resident-load-passes",
                            "resident-rows-passes", "resident-lane-passes",
                            "resident-lane-rows"),
                   help="the paper's equations or, for hexagonal/hybrid tiles, a form of "
                        "the resident-latency extension (docs/time-tiling.md); default: "
                        "the paper's for overlapped tiles, resident-lane-rows for "
                        "hexagonal/hybrid ones where the calibration has its constants")
    p.add_argument("--registers", type=positive_int, default=None,
                   help="registers per work item, bounding the groups per SM (the "
                        "resident-lane-passes and -lane-rows forms estimate them per point "
                        "instead)")
    p.add_argument("--top", type=positive_int, default=10, help="show the best K (default 10)")
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
    from workbench.models.tiling import Form, Scheme
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
                                       calibration=args.calibration, scheme=args.scheme,
                                       form=args.form or "paper")
    if args.form is None and model.scheme is not Scheme.OVERLAPPED and (
            Form.RESIDENT_LANE_ROWS.constants_key(model.scheme) in model.calibration.schemes):
        # round 5 of issue 34: better than the paper's form on both of its figures
        model = replace(model, form=Form.RESIDENT_LANE_ROWS)
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
               "form": model.form.value,
               "device": model.hardware.name, "evaluated": int(len(grid["tT"])),
               "feasible": int(len(frame)), "within": args.within,
               "near_minimum": int(len(near)), "seconds": seconds}
    if args.format == "json":
        print_json({**summary, "top": rows})
        return 0
    print(f"{stencil.name} {'x'.join(str(sizes[f'S{i + 1}']) for i in range(stencil.dims))}"
          f", T={sizes['T']}, {model.scheme.value} tiles ({model.form.value} form) on "
          f"{model.hardware.name}: "
          f"{summary['feasible']} feasible of {summary['evaluated']} points in "
          f"{seconds * 1e3:.0f} ms; {summary['near_minimum']} within "
          f"{args.within:.0%} of the predicted minimum")
    print_table([{**r, "T_alg_s": f"{r['T_alg_s']:.4g}"} for r in rows],
                ["rank", *names, "GFlop/s"])
    return 0


def calibrate_timetiling(args, device) -> int:
    """``calibrate --set timetiling``: time the microbenchmarks into the store (one
    resumable campaign), then derive and save the calibration.  A device where a
    parameter cannot be derived (on pocl the barrier loop is not slower than its
    twin, so tau_sync is not measurable) keeps its timings and ends with one line."""
    from workbench.kernels.timetiled.microbench import microbenchmarks, quick_microbenchmarks
    from workbench.kernels.timetiled.stencils import get_stencil
    from workbench.measure import MeasurementStore, default_store_path, open_device
    from workbench.errors import UnknownNameError
    from workbench.models.tiling import (
        HARDWARE,
        calibration_from_measurements,
        save_calibration,
        tables,
    )
    from workbench.tuning.timetiled_microbench import measure_microbenchmarks

    stencils = [get_stencil(k.strip()).name for k in args.kernels.split(",")] \
        if args.kernels else None
    if args.device_model not in HARDWARE:
        raise UnknownNameError("tiling device model", args.device_model, HARDWARE)
    hw = HARDWARE[args.device_model]
    store_path = Path(args.store or default_store_path())
    out = Path(args.calibration_out or store_path.with_name("tiling-calibration.json"))
    _, queue = open_device(device)
    n_SM = int(queue.device.max_compute_units)
    benches = (quick_microbenchmarks if args.quick else microbenchmarks)(n_SM, stencils)
    # NVIDIA's verbose build log names the registers per work item (the model's k)
    options = ("-cl-nv-verbose",) if "NVIDIA" in device.label else ()
    name = args.name or ("quick" if args.quick else "calibration") + "-timetiling"

    def progress(i, total, what) -> None:
        if not args.no_progress:
            print(f"\r[{i + 1}/{total}] {what[:60]:60s}", end="", file=sys.stderr,
                  flush=True)

    print(f"timetiling microbenchmarks on {device.label} ({n_SM} compute units): "
          f"{len(benches)} kernels into {store_path}", file=sys.stderr)
    with MeasurementStore.open(store_path) as store:
        campaign = measure_microbenchmarks(queue, device.identity, store, benches=benches,
                                           runs=args.runs or 5, build_options=options,
                                           name=name, on_progress=progress)
        measured = store.measurements(campaign=campaign)
    if not args.no_progress:
        print(file=sys.stderr)
    try:
        cal = calibration_from_measurements(measured, hw, device=device.name, provenance={
            "store": str(store_path), "campaign": campaign, "device": device.label,
            "device_model": hw.name, "quick": bool(args.quick)})
    except ModelError as err:
        raise ModelError(f"timings stored in {store_path} (campaign {campaign}); no "
                         f"calibration written: {err}") from None
    save_calibration(cal, out)
    for title, table in tables(cal, hw).items():
        if title != "table2":
            print(table.to_string(index=False))
    print(f"calibration written to {out}")
    return 0
