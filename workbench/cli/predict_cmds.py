"""``workbench models`` and ``workbench predict``: every registered model family."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.cli.common import (
    parse_params,
    print_json,
    print_table,
    uncounted_bound_says,
)
from workbench.errors import ModelError
from workbench.kernels import format_group_size, resolve_kernel
from workbench.kernels.candidate import Candidate
from workbench.models import MODEL_FAMILIES, get_family, load_model
from workbench.models.contract import Explains, Need
from workbench.models.expressions.insitu import TWIN_TIME
from workbench.models.parallelism import OUTSIDE_MODEL
from workbench.models.prediction import Breakdown, TermKind, predict
from workbench.models.registry import family_summary
from workbench.reports.explain_words import counts_say, floor_parts_say


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="the model families, their papers and needs")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("predict", help="predict the run time of a kernel")
    p.add_argument("kernel", help="catalog kernel, or FILE.py:VARIABLE")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="size parameter, repeatable (n=1024) or comma-separated")
    p.add_argument("--variant", help="a catalog kernel's variant (see 'workbench kernels'; "
                                     "default: its first)")
    p.add_argument("--dtype", default=None, help="float32 or float64 (default: the kernel's own; float32 for catalog kernels)")
    p.add_argument("--group-size", help="work-group size, e.g. 256 or 16x16 (default: "
                                        "the kernel's own)")
    p.add_argument("--weights", metavar="MODEL.json", help="a fitted model file")
    p.add_argument("--model", choices=sorted(MODEL_FAMILIES),
                   help="model family; one that needs no calibration (roofline) predicts "
                        "without --weights")
    p.add_argument("--device-model", help="device description for the roofline: h100, "
                                          "v100 or a JSON file")
    p.add_argument("--device", help="OpenCL device (index or name substring) on which to "
                                    "measure what the model needs of the kernel (the "
                                    "in-situ model: its work-removed twin)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--show-expression", action="store_true",
                   help="print an expression model's whole expression (JSON always has it)")
    p.set_defaults(func=cmd_predict)


def cmd_models(args) -> int:
    rows = [family_summary(f) for f in MODEL_FAMILIES.values()]
    if args.format == "json":
        print_json(rows)
        return 0
    print_table([{"family": r["family"], "paper": r["paper"]["citation"],
                  "home": r["home"], "needs": ", ".join(r["needs"]),
                  "from the kernel alone": "yes" if r["predicts_from_kernel_alone"]
                  else "after fitting"} for r in rows])
    return 0


@dataclass(frozen=True)
class ModelSource:
    """Which model predicts: the fields ``--format json`` gives under ``"model"``, and
    the line the table output starts with (``"model_line"`` in JSON)."""

    family: str
    #: the weights file's name without ``.json``; the family for a ready model
    name: str
    #: the file as given with ``--weights``; the shipped default's ``<device>/<file>``
    #: (the package's copy, which ``--weights`` also takes); None for a ready model
    weights: str | None
    #: chosen because no model was named: the shipped default of ``device``
    default: bool = False
    device: str | None = None
    #: a ready model's device description (``--device-model``)
    device_model: str | None = None

    @property
    def line(self) -> str:
        if self.default:
            return (f"model: {self.family}, {self.weights} (the shipped {self.device} "
                    f"default; why: sample_data/{self.device}/default-model.json); "
                    "name another with --weights or --model")
        source = self.weights or (f"ready from {self.device_model}" if self.device_model
                                  else "ready, no calibration")
        return f"model: {self.family}, {source}"

    def to_json(self) -> dict:
        out = {"family": self.family, "name": self.name, "weights": self.weights,
               "default": self.default}
        if self.device is not None:
            out["device"] = self.device
        if self.device_model is not None:
            out["device_model"] = self.device_model
        return out


def _model(args):
    """The model to predict with, and where it came from (:class:`ModelSource`)."""
    if not args.weights and not args.model:
        from workbench.models.defaults import default_model
        choice = default_model()
        # the reason for the choice is the repository's sample_data/<device>/
        return choice.model, ModelSource(
            choice.model.family, choice.path.stem, f"{choice.device}/{choice.path.name}",
            default=True, device=choice.device)
    model = _named_model(args)
    if args.weights:
        return model, ModelSource(model.family, Path(args.weights).stem, args.weights)
    return model, ModelSource(model.family, model.family, None,
                              device_model=args.device_model or None)


def _named_model(args):
    if args.weights:
        model = load_model(args.weights)
        if args.model and args.model != model.family:
            raise ModelError(f"{args.weights} holds a {model.family} model, not "
                             f"{args.model}")
        return model
    options = {"device_model": args.device_model} if args.device_model else {}
    return get_family(args.model).ready(**options)


def cmd_predict(args) -> int:
    model, chosen = _model(args)
    spec = resolve_kernel(args.kernel)
    given = parse_params(args.param)
    # Candidate.of checks the variant, dtype and group size before the sizes, so a
    # misspelt variant is reported as such rather than as missing parameters.
    candidate = Candidate.of(spec, given, variant=args.variant, dtype=args.dtype,
                             group_size=args.group_size)
    params = spec.check_parameter_names(given)  # in the order given, for the output
    context, measured = {}, {}
    if Need.TWIN_MEASUREMENTS in getattr(model, "needs", ()):
        if not args.device:
            raise ModelError("this model reads f_wr_wall_time, the measured time of the "
                             "kernel's work-removed twin, which the kernel alone does not "
                             "give: add --device DEVICE to measure the twin there first, or "
                             "predict with a model that needs no measurement (leave out "
                             "--weights for the shipped default)")
        measured = _measure_twin(candidate, args.device, model)
        context = {"twins": {_twin_key(candidate, measured["device"]):
                             measured[TWIN_TIME]},
                   "device": measured["device"]}
    result = predict(model, [candidate], **context)
    total = float(result.seconds[0])
    if not np.isfinite(total):
        raise ModelError(f"the {model.family} model cannot predict {spec.name}: "
                         f"{result.errors[0] or 'no prediction'}")
    breakdown = result.breakdowns[0] or Breakdown()
    unit = "ms" if result.unit == "s" else result.unit
    head = {"kernel": spec.name, "source": args.kernel, "family": model.family,
            "model": chosen.to_json(), "model_line": chosen.line, "params": params,
            "group_size": format_group_size(candidate.group_size), "predicted_s": total,
            "unit": result.unit}
    if measured:
        head["measured"] = {k: v for k, v in measured.items() if k != "device"}
    floor = result.floors[0] if result.floors else None
    if floor is not None:
        head.update(model_s=float(result.raw_seconds[0]), floor=floor.to_json(),
                    broke=result.broken[0])
    caveats = result.caveats[0] if result.caveats else ()
    if caveats:
        head["caveats"] = [c.to_json() for c in caveats]
    if args.format == "json":
        expression = getattr(model, "expression", None)
        print_json({**head, **({"expression": expression} if expression else {}),
                    **breakdown.to_json()})
        return 0
    print(chosen.line)
    if args.show_expression and getattr(model, "expression", None):
        print(f"expression: {model.expression}")
    if measured:
        print(f"measured on {measured['device']}: the work-removed twin, "
              f"{measured[TWIN_TIME] * 1e3:.4f} ms")
    shown = total * 1e3 if result.unit == "s" else total
    # named as explain and the reports name a row (a bare {'n': 8192} left the variant
    # and the dtype to guess)
    sizes = ", ".join(f"{k}={v}" for k, v in candidate.params) or "no parameters"
    print(f"{spec.name} [{candidate.variant}] {candidate.dtype} {sizes}, group "
          f"{head['group_size']}: predicted {shown:.4f} {unit} ({model.family})")
    print_table(_term_rows(breakdown))
    counts = counts_say(model)
    if counts:       # 524,288 additions for 2^24 elements reads as a bug otherwise
        print(f"({counts})")
    if isinstance(model, Explains) and result.unit == "s":
        print("(why it takes that time, term by term in seconds, its limiter and what to "
              "change first: the same arguments to workbench explain)")
    for note in breakdown.notes:
        print(f"note: {note}")
    if floor is not None:
        parts = floor_parts_say(floor)
        print(f"physical floor on {model_floors_name(model)}: {floor.seconds * 1e3:.4g} ms "
              f"({parts})")
        for bound, most in floor.uncounted:
            print(f"  {uncounted_bound_says(bound.value, most)}")
        if result.broken[0]:
            print(f"the model's own time is under the physical floor ({result.broken[0]}); "
                  "the prediction is the floor")
    for caveat in caveats:
        print(f"warning: {caveat.says()}")
    if any(c.kind in OUTSIDE_MODEL for c in caveats):
        print("warning: this kernel is outside what the model covers; read the "
              "prediction as a rough guide")
    print_sequential_hint(candidate)
    return 0


def print_sequential_hint(candidate) -> None:
    """A user's kernel without parallel inames (the cause of its one work item), and
    one whose counts include instructions under a condition they cannot follow."""
    from workbench.kernels.user import sequential_hint
    from workbench.properties.predicates import guarded_note

    request = candidate.spec.request(candidate.variant, candidate.dtype,
                                     candidate.group_size)
    note = guarded_note(candidate.spec, request)
    if note:
        print(f"note: {note}")
    hint = sequential_hint(candidate.spec, request)
    if hint:
        print(f"hint: {hint}")


def model_floors_name(model) -> str:
    from workbench.models.floors import model_floors

    floors = model_floors(model)
    return floors.device if floors is not None else "?"


def _term_rows(breakdown: Breakdown) -> list[dict]:
    """One row per term, in the family's own words (share of time, limiter, count)."""
    seconds = [t.value for t in breakdown.terms if t.kind is TermKind.SECONDS]
    total = sum(seconds)
    rows = []
    for t in breakdown.terms:
        if t.kind is TermKind.COUNT and t.value == 0:
            continue                      # JSON lists them all; the table what counts
        row = {"term": t.name, "kind": t.kind.value}
        if t.kind is TermKind.COUNT and t.name.endswith("_s"):
            # a device feature in seconds (f_dram_stream_s), not a count of anything
            row.update(kind="input time", value=f"{t.value:.4g} s")
        elif t.kind is TermKind.COUNT:
            # as explain prints it: 4,718,592, not 4.71859e+06
            row["value"] = f"{t.value:,.0f}" if float(t.value).is_integer() \
                else f"{t.value:.4g}"
        else:
            row["value"] = f"{t.value:.4g} s"
        if t.weight is not None:
            row["weight"] = f"{t.weight:.3e}"
        if t.kind is TermKind.SECONDS and total:
            row["share"] = f"{t.value / total:.1%}"
        if t.limits:
            row["limits"] = "yes"
        rows.append(row)
    return rows


def _twin_key(candidate, device: str):
    from workbench.models.expressions.insitu import twin_key

    return twin_key(candidate.kernel_name, candidate.variant, candidate.dtype,
                    "x".join(map(str, candidate.group_size)),
                    ",".join(f"{a}={b}" for a, b in candidate.params), device)


def _measure_twin(candidate, device_text: str, model) -> dict:
    """Time the candidate's work-removed twin on a device, by the campaign protocol."""
    from workbench.errors import WorkbenchError
    from workbench.kernels.work_removal import work_removed_spec
    from workbench.measure import find_device, open_device
    from workbench.measure.campaign import measure_one

    device = find_device(device_text)
    wanted = dict(model.device).get("device", "")
    if wanted and device.name != wanted:
        raise ModelError(f"the model was fitted on {wanted!r}; its twin must be measured "
                         f"there, not on {device.name!r}")
    twin = work_removed_spec(candidate.spec)
    _, queue = open_device(device)
    m = measure_one(twin, twin.request(candidate.variant, candidate.dtype,
                                       candidate.group_size),
                    candidate.params_dict, device, queue)
    if m.time_s is None:
        raise WorkbenchError(f"the work-removed twin {twin.name} failed on "
                               f"{device.name}: {m.status.value}")
    return {"device": device.name, TWIN_TIME: float(m.time_s)}
