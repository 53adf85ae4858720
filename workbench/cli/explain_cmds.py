"""``workbench explain``: where a predicted time goes (terms in seconds, overlaps,
floors, the limiter, the roofline, and a measurement beside it when one is at hand)."""

from __future__ import annotations

import argparse

from workbench.cli.common import (
    parse_params,
    print_json,
    print_table,
    uncounted_bound_says,
)
from workbench.errors import WorkbenchError
from workbench.kernels import resolve_kernel
from workbench.kernels.candidate import Candidate
from workbench.models import MODEL_FAMILIES
from workbench.models.explanation import SMALL_SHARE
from workbench.models.parallelism import OUTSIDE_MODEL
from workbench.reports.explain_words import (
    counts_say,
    floor_parts_say,
    hidden_terms,
    limiter_lines,
    negative_terms_say,
    overlap_says,
    pays_for,
    side_names,
    taken_back,
)

#: terms below this share of the prediction are summed in one line of the table


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="explain a prediction: its terms in seconds, the "
                                       "floors, the limiter and the roofline",
                       epilog="The words of its output (sectors, AFR, smax, waves, "
                              "floors): docs/glossary.md.")
    p.add_argument("kernel", help="catalog kernel, or FILE.py:VARIABLE")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="size parameter, repeatable (n=1024) or comma-separated")
    p.add_argument("--variant", help="a catalog kernel's variant (see 'workbench kernels'; "
                                     "default: its first)")
    p.add_argument("--dtype", default=None,
                   help="float32 or float64 (default: the kernel's own; float32 for "
                        "catalog kernels)")
    p.add_argument("--group-size", help="work-group size, e.g. 256 or 16x16 (default: "
                                        "the kernel's own)")
    p.add_argument("--weights", metavar="MODEL.json", help="a fitted model file (default: "
                                                           "the shipped default model)")
    p.add_argument("--model", choices=sorted(MODEL_FAMILIES),
                   help="model family; the roofline predicts without --weights")
    p.add_argument("--device-model", help="device description: the roofline's, and the "
                                          "ceilings' of the chart (h100, v100 or a JSON "
                                          "file; default: the model's device's)")
    p.add_argument("--device", help="OpenCL device (index or name substring) on which to "
                                    "measure what the model needs of the kernel (the "
                                    "in-situ model: its work-removed twin)")
    p.add_argument("--store", action="append", metavar="STORE",
                   help="a store to find this configuration's measurement in, repeatable")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--plot", metavar="ROOFLINE.html",
                   help="write the kernel on the device's roofline chart (HTML)")
    p.set_defaults(func=cmd_explain)


def cmd_explain(args) -> int:
    from workbench.cli.predict_cmds import (
        _measure_twin,
        _model,
        _twin_key,
        print_sequential_hint,
    )
    from workbench.models.contract import Need
    from workbench.models.expressions.insitu import TWIN_TIME
    from workbench.measure.store import resolve_store_path
    from workbench.models.explanation import explain

    model, chosen = _model(args)
    spec = resolve_kernel(args.kernel)
    given = parse_params(args.param)
    candidate = Candidate.of(spec, given, variant=args.variant, dtype=args.dtype,
                             group_size=args.group_size)
    stores = []
    for path in args.store or ():
        resolved = resolve_store_path(path)
        if resolved is None:
            raise WorkbenchError(f"no store at {path}")
        stores.append(str(resolved))
    description = None
    if args.device_model and model.family != "roofline":
        from workbench.hardware.description import load_device_model
        description = load_device_model(args.device_model)
    context = {}
    if Need.TWIN_MEASUREMENTS in getattr(model, "needs", ()):
        if not args.device:
            raise WorkbenchError("this model reads f_wr_wall_time, the measured time of "
                                 "the kernel's work-removed twin: add --device DEVICE to "
                                 "measure the twin there first, or explain with a model "
                                 "that needs no measurement (leave out --weights for the "
                                 "shipped default)")
        twin = _measure_twin(candidate, args.device, model)
        context = {"twins": {_twin_key(candidate, twin["device"]): twin[TWIN_TIME]},
                   "device": twin["device"]}
    result = explain(model, candidate, stores=stores, description=description, **context)
    if args.plot:
        from workbench.reports.roofline_chart import roofline_figure
        try:
            roofline_figure(result).write_html(args.plot)
        except OSError as err:
            raise WorkbenchError(f"cannot write the chart {args.plot!r}: {err}") from None
    if args.format == "json":
        print_json({"source": args.kernel, "model": chosen.to_json(),
                    "model_line": chosen.line, **result.to_json(),
                    **({"plot": args.plot} if args.plot else {})})
        return 0
    print_explanation(result, chosen.line, counts=counts_say(model))
    print_sequential_hint(candidate)
    if args.plot:
        print(f"roofline chart -> {args.plot}")
    return 0


def print_explanation(result, model_line: str, counts: str | None = None) -> None:
    """The explanation as a teacher reads it out: the total, the terms, the overlaps,
    the floor and the limiter, the roofline and the measurement (``counts``: what the
    count column counts, printed under it)."""
    c = result.candidate
    params = ", ".join(f"{k}={v}" for k, v in c.params) or "no parameters"
    print(model_line)
    print(f"{c.kernel_name} [{c.variant}] {c.dtype} {params}, group "
          f"{'x'.join(map(str, c.group_size))} on {result.device or 'an unnamed device'}: "
          f"predicted {_ms(result.predicted_s)}")
    # the limiter, why, how far the floor is and what to change first, a short line
    # each, before the table: the reader's first question answered first
    for line in limiter_lines(result):
        print(line)
    print_table(term_rows(result))
    if counts:
        print(f"({counts})")
    if hidden_terms(result):
        print("(taken back (hidden): charged once in the sum and taken back once by the "
              "overlap smin below, so it costs nothing of its own; docs/glossary.md)")
    for overlap in result.overlaps:
        print(f"overlap {overlap_says(overlap)}")
        if taken_back(overlap):
            if overlap.smoothing_s:
                print(f"  the smoothing takes back {_ms(overlap.smoothing_s)} less than "
                      "the smaller side")
            continue      # its other side is charged in full: the table has its terms
        if overlap.smoothing_s:
            print(f"  the smooth maximum adds {_ms(overlap.smoothing_s)} to the winner")
        names = side_names(overlap)
        for i, side in enumerate(overlap.sides):
            if i == overlap.winner or side.seconds == 0:
                continue      # a side that costs nothing (no chain in this kernel)
            # by size: a subtracted overlap's sides (- smin(A, M)) are negative
            top = [t for t in sorted(side.terms, key=lambda t: -abs(t.seconds))
                   if abs(t.seconds) >= SMALL_SHARE * abs(side.seconds)][:3]
            print(f"  losing side, {names[i]}: would have cost {_ms(side.seconds)}"
                  + (" (" + ", ".join(f"{t.name} {_ms(t.seconds)}" for t in top) + ")"
                     if len(side.terms) > 1 else ""))
    floor = result.floor
    if floor is not None:
        parts = floor_parts_say(floor)
        print(f"physical floor: {_ms(floor.seconds)}, {floor.bound.value} ({parts})")
        for bound, most in floor.uncounted:
            print(f"  {uncounted_bound_says(bound.value, most)}")
    else:
        print(f"physical floor: none known for {result.device or 'this device'}")
    point = result.point
    if point is not None:
        rate = point.flops / result.predicted_s
        print(f"roofline: {point.flops:.4g} flop over {point.bytes:.4g} bytes "
              f"({point.bytes_kind}) = {point.intensity:.3g} flop/byte; predicted "
              f"{rate / 1e9:.4g} GFLOP/s, {point.bytes / result.predicted_s / 1e9:.4g} GB/s")
    ceilings = "; ".join(f"{c.name} {c.value / 1e9:,.0f} GB/s" if c.kind.value ==
                         "bandwidth" else f"{c.name} {c.value / 1e12:.3g} TFLOP/s"
                         for c in result.ceilings.ceilings)
    print(f"ceilings of {result.ceilings.device or 'the device'}: {ceilings or 'none'}")
    if (measured := _measured_from(result.ceilings.ceilings,
                                   result.family == "roofline")) is not None:
        print(f"  ({measured})")
    for note in result.ceilings.notes:
        print(f"  ({note})")
    if result.measured is not None:
        m = result.measured
        error = result.measured_error
        print(f"measured: {_ms(m.seconds)} on {m.device} ({m.store}); the prediction is "
              f"{abs(error):.1%} {'low' if error < 0 else 'high'}")
    for note in [*negative_terms_say(result), *result.notes]:
        print(f"note: {note}")
    for caveat in result.caveats:
        print(f"warning: {caveat.says()}")
    if any(c.kind in OUTSIDE_MODEL for c in result.caveats):
        print("warning: this kernel is outside what the model covers; read the "
              "prediction as a rough guide")



def _measured_from(ceilings, roofline: bool) -> str | None:
    """Where the "(measured)" ceilings come from: a roofline explanation also prints its
    own device description's bandwidths (DRAM 2391.2 GB/s beside "DRAM (measured)
    3,015 GB/s" for the H100), and a reader could not tell the two measurements apart."""
    sources = sorted({c.source.split(", ", 1)[-1] for c in ceilings
                      if c.name.endswith("(measured)") and ", " in c.source})
    if not sources:
        return None
    said = f"measured: by benchmark kernels, {'; '.join(sources)}"
    return said + ("; the data-volume model's own bandwidths, in its notes, are those of its "
                   "device description, which may come from another run" if roofline else "")

def term_rows(result) -> list[dict]:
    """The terms, largest first; the smallest summed in one row; then their sum."""
    total = result.predicted_s
    shown, small, small_s = result.largest_terms(SMALL_SHARE)
    hidden = hidden_terms(result)
    rows = [{"term": t.name, "pays for": pays_for(t, hidden), "count": _count(t.count, t.name),
             "weight (s)": f"{t.weight:.3e}" if t.weight is not None else "",
             "seconds": f"{t.seconds:.4e}",
             "share": f"{t.seconds / total:.1%}" if total else ""} for t in shown]
    if small:
        rows.append({"term": f"{small} terms below {SMALL_SHARE:.1%} each", "pays for": "",
                     "count": "", "weight (s)": "", "seconds": f"{small_s:.4e}",
                     "share": f"{small_s / total:.1%}" if total else ""})
    rows.append({"term": "sum of the terms", "pays for": "", "count": "", "weight (s)": "",
                 "seconds": f"{result.terms_sum_s:.4e}",
                 "share": f"{result.terms_sum_s / total:.1%}" if total else ""})
    return rows


def _count(value: float | None, name: str = "") -> str:
    if value is None:
        return ""
    if name.endswith("_s"):   # a device feature in seconds (f_l1_walk_s), not a count
        return f"{value * 1e3:.4g} ms (a time)"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.4g}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"
