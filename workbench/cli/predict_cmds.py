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
    p.add_argument("--dtype", default=None, help="float32 or float64 (default: the kernel's own; float32 for catalog kernels)")
    p.add_argument("--group-size")
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
    """The model to predict with, and a line saying which when it was not named."""
    if not args.weights and not args.model:
        from workbench.models.defaults import default_model
        choice = default_model()
        return choice.model, (f"model: {choice.path.name}, the shipped {choice.device} "
                              f"default (why: {choice.path.parent / 'default-model.json'}); "
                              "name another with --weights or --model")
    return _named_model(args), None


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
    measured = {}
    if Need.TWIN_MEASUREMENTS in getattr(model, "needs", ()):
        if not args.device:
            raise ModelError("this model reads f_wr_wall_time, the measured time of the "
                             "kernel's work-removed twin, which the kernel alone does not "
                             "give: add --device DEVICE to measure the twin there first, or "
                             "predict with a model that needs no measurement (leave out "
                             "--weights for the shipped default)")
        measured = _measure_twin(candidate, args.device, model)
    if model.family == "expression":
        details = _expression(model, candidate, measured)
    else:
        details = {"unified-linear": _linear, "roofline": _roofline}[model.family](
            model, candidate)
    total = details.pop("predicted_s")
    head = {"kernel": spec.name, "family": model.family, "params": params,
            "group_size": format_group_size(candidate.group_size), "predicted_s": total}
    if measured:
        head["measured"] = {k: v for k, v in measured.items() if k != "device"}
    if args.format == "json":
        print_json({**head, **({"model_choice": chosen} if chosen else {}),
                    **{k: v for k, v in details.items() if k != "table"}})
        return 0
    if chosen:
        print(chosen)
    if measured:
        print(f"measured on {measured['device']}: the work-removed twin, "
              f"{measured['f_wr_wall_time'] * 1e3:.4f} ms")
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


def _measure_twin(candidate, device_text: str, model) -> dict:
    """Time the candidate's work-removed twin on a device, by the campaign protocol."""
    from workbench.errors import WorkbenchError
    from workbench.kernels.work_removal import work_removed_spec
    from workbench.measure import find_device, open_device
    from workbench.measure.campaign import measure_one
    from workbench.models.expressions.insitu import TWIN_TIME

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


def _expression(model, candidate, measured=None) -> dict:
    from workbench.models.dataset import candidate_frame

    frame = candidate_frame([candidate], granularity=model.granularity,
                            subgroup_size=model.subgroup_size,
                            device=dict(model.device).get("device", ""))
    for name, value in (measured or {}).items():
        if name != "device":
            frame[name] = value
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
