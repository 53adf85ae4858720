"""``workbench models`` and ``workbench predict``: every registered model family."""

from __future__ import annotations

import argparse

from workbench.cli.common import parse_params, print_json, print_table
from workbench.errors import ModelError
from workbench.kernels import format_group_size, resolve_kernel
from workbench.kernels.candidate import Candidate
from workbench.models import MODEL_FAMILIES, get_family, load_model
from workbench.models.contract import Need
from workbench.models.registry import family_summary


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="the model families, their papers and needs")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("predict", help="predict the run time of a kernel")
    p.add_argument("kernel", help="catalog kernel, or FILE.py:VARIABLE")
    p.add_argument("--param", action="append", metavar="NAME=VALUE")
    p.add_argument("--variant")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--group-size")
    p.add_argument("--weights", metavar="MODEL.json", help="a fitted model file")
    p.add_argument("--model", choices=sorted(MODEL_FAMILIES),
                   help="model family; one that needs no calibration (roofline) predicts "
                        "without --weights")
    p.add_argument("--device-model", help="device description for the roofline: h100, "
                                          "v100 or a JSON file")
    p.add_argument("--format", choices=("table", "json"), default="table")
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


def _model(args):
    if args.weights:
        model = load_model(args.weights)
        if args.model and args.model != model.family:
            raise ModelError(f"{args.weights} holds a {model.family} model, not "
                             f"{args.model}")
        return model
    if not args.model:
        raise ModelError("name a model: --weights MODEL.json (a fitted model), or "
                         "--model roofline --device-model h100")
    options = {"device_model": args.device_model} if args.device_model else {}
    return get_family(args.model).ready(**options)


def cmd_predict(args) -> int:
    model = _model(args)
    spec = resolve_kernel(args.kernel)
    params = spec.check_parameter_names(parse_params(args.param))
    candidate = Candidate.of(spec, params, variant=args.variant, dtype=args.dtype,
                             group_size=args.group_size)
    if Need.TWIN_MEASUREMENTS in getattr(model, "needs", ()):
        raise ModelError("this model reads f_wr_wall_time, the measured time of the "
                         "kernel's work-removed twin, which a prediction from the kernel "
                         "alone does not have: use it with 'workbench select' and measured "
                         "twins, or predict with a model that needs no measurement")
    details = {"unified-linear": _linear, "expression": _expression,
               "roofline": _roofline}[model.family](model, candidate)
    total = details.pop("predicted_s")
    head = {"kernel": spec.name, "family": model.family, "params": params,
            "group_size": format_group_size(candidate.group_size), "predicted_s": total}
    if args.format == "json":
        print_json({**head, **{k: v for k, v in details.items() if k != "table"}})
        return 0
    print(f"{spec.name} {params} group {head['group_size']}: predicted "
          f"{total * 1e3:.4f} ms ({model.family}{details.get('title', '')})")
    print_table(details["table"])
    for note in details.get("notes", ()):
        print(f"note: {note}")
    return 0


def _linear(model, candidate) -> dict:
    from workbench.models.dataset import candidate_frame

    frame = candidate_frame([candidate], granularity=model.granularity,
                            subgroup_size=model.subgroup_size)
    total = float(model.predict(frame)[0])
    values = {k: float(frame[k].iloc[0]) for k in frame.columns if k in model.weights}
    contributions = [{"property": k, "count": v, "weight": model.weights[k],
                      "seconds": model.weights[k] * v} for k, v in values.items() if v]
    missing = model.missing_weights(frame)
    table = [{**c, "weight": f"{c['weight']:.3e}", "seconds": f"{c['seconds']:.3e}",
              "share": f"{c['seconds'] / total:.1%}" if total else ""}
             for c in sorted(contributions, key=lambda c: -abs(c["seconds"]))]
    notes = ["no weight for " + ", ".join(missing) + " (not calibrated)"] if missing else []
    return {"predicted_s": total, "contributions": contributions,
            "properties_without_weight": missing, "table": table, "notes": notes}


def _expression(model, candidate) -> dict:
    from workbench.models.dataset import candidate_frame

    frame = candidate_frame([candidate], granularity=model.granularity,
                            subgroup_size=model.subgroup_size,
                            device=dict(model.device).get("device", ""))
    features = {k: float(v[0]) for k, v in model.feature_values(frame).items()}
    total = float(model.evaluate({k: [v] for k, v in features.items()})[0])
    return {"predicted_s": total, "model": model.expression, "features": features,
            "parameters": dict(model.parameters), "title": f": {model.expression}",
            "table": [{"feature": k, "count": f"{v:.6g}"} for k, v in features.items()]}


def _roofline(model, candidate) -> dict:
    pred = model.prediction(candidate)
    out = pred.to_dict()
    table = [{"limiter": lim.value, "time_s": "-" if t is None else f"{t:.4g}",
              "limits": "yes" if lim is pred.limiter else ""}
             for lim, t in pred.times.items()]
    return {"predicted_s": pred.time, "device_model": model.device_model.name,
            "limiter": pred.limiter.value, "times_s": out["times_s"],
            "dram": out["dram"], "l2_l1_per_block": out["l2_l1_per_block"],
            "notes": out["notes"], "title": f" on {model.device_model.name}",
            "table": table}
