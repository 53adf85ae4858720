"""``workbench volumes`` and ``workbench rank-blocks``: the extended roofline."""

from __future__ import annotations

import argparse
import math

from workbench.cli.common import parse_params, print_json, print_table
from workbench.errors import GroupSizeError, ParameterError
from workbench.kernels import format_group_size, parse_group_size, resolve_kernel
from workbench.cli.arg_types import positive_int


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("kernel", help="catalog kernel name (see 'workbench kernels')")
    p.add_argument("--variant")
    p.add_argument("--dtype", default="float64")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="size parameter, repeatable (n=1024) or comma-separated")
    p.add_argument("--device-model", default="h100",
                   help="shipped device model (h100, v100) or a JSON file")
    p.add_argument("--blocks-per-sm", type=positive_int, default=None,
                   help="resident blocks per SM (default min(32, 2048 // threads))")
    p.add_argument("--clock-hz", type=float, default=None)
    p.add_argument("--flop-rate", type=float, default=None,
                   help="peak flop/s; without it the FLOP limiter is left out")
    p.add_argument("--points", type=int, default=None,
                   help="grid/lattice points updated, for LUP/s")
    p.add_argument("--reuse", choices=("l2", "previous"), default="l2",
                   help="DRAM: L2 reuse of any earlier wave by reuse distance (default), "
                        "or of the previous wave only (the paper)")
    p.add_argument("--format", choices=("table", "json"), default="table")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("volumes", help="estimated data volumes and roofline of a kernel")
    _common(p)
    p.add_argument("--block", required=True, help="thread block size, e.g. 32x4x8 or 256")
    p.set_defaults(func=cmd_volumes)

    p = sub.add_parser("rank-blocks", help="rank thread block sizes by the roofline")
    _common(p)
    p.add_argument("--total", type=positive_int, default=1024,
                   help="threads per block X*Y*Z of the study (eq. 9), default 1024")
    p.add_argument("--blocks", help="explicit comma-separated list, e.g. 32x8,16x16")
    p.add_argument("--top", type=positive_int, default=None, help="show only the best N")
    p.set_defaults(func=cmd_rank_blocks)


def _setup(args):
    from workbench.hardware.description import load_device_model
    spec = resolve_kernel(args.kernel)
    # The variant and dtype first: a misspelt variant is the mistake to report, not
    # the parameters that another variant might need.
    spec.request(args.variant, args.dtype, (1,) * spec.group_dims)
    # (sizes of 0 or less are refused there: an empty launch grid, which every block
    # size would report again as an obscure launch error)
    params = spec.check_parameter_names(parse_params(args.param))
    if missing := [n for n in spec.parameters if n not in params]:
        raise ParameterError(f"kernel {spec.name!r} needs --param for {', '.join(missing)}")
    if args.points is not None and args.points <= 0:
        raise ParameterError(f"--points must be positive, got {args.points}")
    model = load_device_model(args.device_model)

    def build(block):
        return spec.build(spec.request(args.variant, args.dtype, tuple(block)))
    kw = dict(blocks_per_sm=args.blocks_per_sm, clock_hz=args.clock_hz,
              flop_rate=args.flop_rate, reuse=args.reuse)
    return spec, params, model, build, kw


def _fit_block(block, dims: int):
    """A 3-D block for a ``dims``-D kernel: trailing 1s dropped, or None if it can't."""
    block = tuple(block)
    if len(block) <= dims:
        return block + (1,) * (dims - len(block))
    if any(b != 1 for b in block[dims:]):
        return None
    return block[:dims]


def cmd_volumes(args) -> int:
    from workbench.models.roofline.limiters import predict_block
    spec, params, model, build, kw = _setup(args)
    block = _fit_block(parse_group_size(args.block), spec.group_dims)
    if block is None:
        raise GroupSizeError(f"kernel {spec.name!r} takes a {spec.group_dims}-D block, "
                             f"got {args.block!r}")
    try:
        pred = predict_block(build(block), params, block, model, points=args.points, **kw)
    except ValueError as err:
        raise ParameterError(str(err)) from None
    out = {"kernel": spec.name, "block": format_group_size(block), "params": params,
           "device_model": model.name, **pred.to_dict()}
    if args.format == "json":
        print_json(out)
        return 0
    print(f"{spec.name} block={out['block']} params={params} device={model.name}")
    l2 = out["l2_l1_per_block"]
    rows = [
        {"metric": "launch", "value": f"block {out['launch']['block']} "
                                      f"grid {out['launch']['grid']}"},
        {"metric": "blocks / per SM / per wave",
         "value": f"{out['blocks']} / {out['blocks_per_sm']} / {out['blocks_per_wave']}"},
        {"metric": "L1 load cycles per block", "value": f"{out['l1_cycles_per_block']:g}"},
        {"metric": "L2->L1 load sectors per block [B]",
         "value": f"{l2['load_sectors_bytes']:g}"},
        {"metric": "L2->L1 load lines per block [B]", "value": f"{l2['load_lines_bytes']:g}"},
        {"metric": "L1 requested sectors per block (Vup) [B]",
         "value": f"{l2['requested_bytes']:g}"},
        {"metric": "L1->L2 stores per block [B]", "value": f"{l2['store_bytes']:g}"},
        {"metric": "DRAM load / store [B]",
         "value": f"{out['dram']['load_bytes']:g} / {out['dram']['store_bytes']:g}"},
    ]
    for lim, t in out["times_s"].items():
        rows.append({"metric": f"time {lim} [s]", "value": "-" if t is None else f"{t:.4g}"})
    rows.append({"metric": "limiter", "value": out["limiter"]})
    rows.append({"metric": "predicted time [s]", "value": f"{out['time_s']:.4g}"})
    if out["lups"] is not None:
        rows.append({"metric": "LUP/s", "value": f"{out['lups']:.4g}"})
    print_table(rows)
    for note in out["notes"]:
        print(f"note: {note}")
    return 0


def cmd_rank_blocks(args) -> int:
    from workbench.models.roofline.blocks import block_sizes, rank_blocks
    spec, params, model, build, kw = _setup(args)
    if args.blocks:
        candidates = [parse_group_size(b) for b in args.blocks.split(",")]
    else:
        candidates = block_sizes(args.total)
    blocks, seen = [], set()
    for b in candidates:
        fitted = _fit_block(b, spec.group_dims)
        if fitted is not None and fitted not in seen:
            seen.add(fitted)
            blocks.append(fitted)
    if not blocks:
        raise GroupSizeError(f"no block size of the study fits the {spec.group_dims}-D "
                             f"kernel {spec.name!r} (total {args.total})")
    df = rank_blocks(build, params, blocks, model, points=args.points, **kw)
    ranked = len(df)
    if args.top:
        df = df.head(args.top)
    cols = ["rank", "block", "X", "Y", "Z", "limiter", "time", "t_L1", "t_L2", "t_DRAM",
            "t_FLOP", "lups", "error"]
    records = [{c: _clean(r.get(c)) for c in cols if c in df} for r in
               df.to_dict("records")]
    if args.format == "json":
        print_json({"kernel": spec.name, "params": params, "device_model": model.name,
                    "blocks": records})
        return 0
    # "--top 3" printed "(3 block sizes)" as if only three had been ranked
    shown = (f"the best {len(records)} of {ranked} block sizes ranked" if len(records) < ranked
             else f"{ranked} block sizes ranked")
    print(f"{spec.name} params={params} device={model.name} ({shown})")
    fmt = [{k: ("-" if v is None else f"{v:.4g}" if isinstance(v, float) else v)
            for k, v in r.items() if k != "error" or v} for r in records]
    print_table(fmt, [c for c in cols if c != "error" or any(r.get("error")
                                                              for r in records)])
    return 0


def _clean(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item"):
        v = v.item()
        if isinstance(v, float) and math.isnan(v):
            return None
    return v
