"""``workbench fit``, ``report``, ``select`` and ``validate``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from workbench.cli.common import print_json, print_table
from workbench.errors import DeviceError, WorkbenchError
from workbench.measure import MeasurementStore, default_store_path
from workbench.models.contract import Need
from workbench.models.registry import check_writable
from workbench.models import (
    MODEL_FAMILIES,
    build_dataset,
    get_family,
    load_model,
    save_model,
)
from workbench.models.dataset import train_on_roles
from workbench.models.unified.linear import FitMethod
from workbench.models.expressions.insitu import TWIN_TIME, attach_twin_times, twin_times
from workbench.models.validation import (
    ExpressionFit,
    GroupSelection,
    LinearFit,
    leave_one_kernel_out,
)
from workbench.reports import predictions, table1, table2, to_markdown
from workbench.cli.arg_types import non_negative_int, positive_int


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fit", help="fit a model to a device's measurements")
    p.add_argument("--store", action="append",
                   help=f"SQLite store, repeatable (default: {default_store_path()})")
    p.add_argument("--device", help="device name substring (default: the store's only one)")
    p.add_argument("--campaign", help="campaign name or id (default: all)")
    p.add_argument("--family", default="unified-linear", choices=sorted(MODEL_FAMILIES))
    p.add_argument("--bootstrap", type=non_negative_int, default=200)
    add_fit_option(p)
    p.add_argument("--train-on", default="measurement", metavar="ROLES",
                   help="kernel roles to fit on: measurement (the paper's protocol, "
                        "default) or measurement,test (for predicting new kernels; the "
                        "test kernels' Table 1 is then in-sample: see 'validate')")
    p.add_argument("--model", metavar="EXPR|FILE",
                   help="a model expression ('OUTPUT = EXPR' or 'EXPR', with f_ features "
                        "and p_ parameters) or a model file (JSON); fits the 'expression' "
                        "family instead of the linear one")
    p.add_argument("--granularity", choices=("subgroup", "workitem"),
                   help="counting granularity of an expression model (default: the model "
                        "file's, else subgroup)")
    p.add_argument("--subgroup-size", type=positive_int,
                   help="sub-group size of an expression model (default: 32)")
    p.add_argument("-o", "--output", required=True, help="weights file (JSON)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_fit)

    p = sub.add_parser("report", help="Tables 1 and 2 for a fitted model")
    p.add_argument("--store", action="append",
                   help=f"SQLite store, repeatable (default: {default_store_path()})")
    p.add_argument("--weights", help="model file (JSON); optional with --compare-fits")
    p.add_argument("--campaign")
    p.add_argument("--device", help="device name substring: the device whose measurements "
                                    "to report on (default: the weights' device, else "
                                    "the store's only one; another device's store gives "
                                    "the cross-device Table 1)")
    p.add_argument("--compare-fits", action="store_true",
                   help="refit the linear model both ways (plain least squares, the "
                        "paper's, and non-negative, the default) on the measurement "
                        "kernels and show Table 1 of each side by side")
    p.add_argument("--all-groups", action="store_true",
                   help="Table 1 over every group size, not only 256 work items")
    p.add_argument("--no-floors", action="store_true",
                   help="the model's own times: no prediction lifted to the device's "
                        "physical floor (predict lifts them; so does report by default)")
    p.add_argument("--format", choices=("table", "json", "csv", "md"), default="table")
    p.add_argument("--plot", help="write the predicted-vs-measured figure (HTML)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("select", help="rank variant families by prediction")
    p.add_argument("--store", action="append",
                   help="store with measured families ('calibrate --families'), "
                        "repeatable: also the stores of their work-removed twins for "
                        "models that use f_wr_wall_time")
    p.add_argument("--weights", required=True)
    p.add_argument("--family-size", action="append", metavar="FAMILY=N")
    p.add_argument("--quick", action="store_true", help="the quick (CPU) family sizes")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_select)

    p = sub.add_parser("validate", help="leave-one-kernel-out validation of a model: "
                                        "refit without each test kernel, predict it")
    p.add_argument("--store", action="append",
                   help=f"SQLite store, repeatable (default: {default_store_path()})")
    p.add_argument("--device", help="device name substring (default: the store's only one)")
    p.add_argument("--campaign", help="campaign name or id (default: all)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--model", metavar="EXPR|FILE",
                       help="a model expression or model file (family 'expression')")
    which.add_argument("--family", choices=("unified-linear",),
                       help="a model family (default: unified-linear)")
    add_fit_option(p)
    p.add_argument("--kernel", action="append", metavar="KERNEL",
                   help="kernel to hold out, repeatable (default: every kernel whose "
                        "role is not 'measurement')")
    p.add_argument("--groups", choices=[g.value for g in GroupSelection],
                   default=GroupSelection.PAPER.value,
                   help="judge the 256-work-item groups, as Table 1 (default), or all")
    p.add_argument("--format", choices=("table", "json", "md"), default="table")
    p.set_defaults(func=cmd_validate)


def add_fit_option(p: argparse.ArgumentParser) -> None:
    """``--fit plain|non-negative`` (and the older ``--non-negative`` flag)."""
    p.add_argument("--fit", choices=[m.value for m in FitMethod], default=None,
                   help="unified-linear: how the weights are solved for: non-negative "
                        "(every weight >= 0, scipy lsq_linear; the default) or plain "
                        "(free least squares, the paper's tables)")
    p.add_argument("--non-negative", action="store_true", help="same as --fit non-negative")


def fit_method(args) -> FitMethod:
    """The fit asked for; refused with both flags disagreeing."""
    if args.non_negative and args.fit == FitMethod.PLAIN.value:
        raise WorkbenchError("--non-negative and --fit plain contradict each other")
    return FitMethod.NON_NEGATIVE if args.non_negative else FitMethod.parse(args.fit)


def _fit_asked(args) -> bool:
    return bool(args.non_negative) or args.fit is not None


def store_device_key(store: MeasurementStore, selector: str | None) -> str:
    devices = store.devices()
    if not devices:
        raise DeviceError(f"store {store.path} holds no measurements yet")
    if selector:
        hits = [d for d in devices
                if selector.lower() in f"{d.platform} {d.device} {d.key}".lower()]
    else:
        hits = devices
    if len(hits) != 1:
        listing = "; ".join(d.key for d in devices)
        raise DeviceError(("several devices match; name one with --device: " if hits else
                           f"no device in the store matches {selector!r}: ") + listing)
    return hits[0].key


def _stores(args) -> list[str]:
    return list(args.store or [str(default_store_path())])


def _load_dataset(store_paths, device_key, campaign, model=None) -> pd.DataFrame:
    """Successful measurements of one device, from one store or several."""
    if isinstance(store_paths, (str, Path)):
        store_paths = [store_paths]
    ms = []
    for path in store_paths:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            if device_key is None:
                device_key = store_device_key(store, None)
            # an all-digit campaign is an id, anything else a name
            ms += store.measurements(device_key=device_key, campaign=(
                int(campaign) if campaign is not None and str(campaign).isdigit()
                else campaign))
    kwargs = {}
    if model is not None:
        kwargs = {"granularity": model.granularity, "subgroup_size": model.subgroup_size}
    data = build_dataset(ms, **kwargs)
    if TWIN_TIME in _model_features(model):
        data = attach_twin_times(data, twin_times(ms))
    return data


def _model_features(model) -> tuple[str, ...]:
    """The features an expression model (spec or fitted) reads; () for other models."""
    return tuple(getattr(model, "features", None) or ())


def _fit_inputs(args, model=None):
    """The device the fit is for, its dataset (at the model's granularity), provenance."""
    store_paths = _stores(args)
    with MeasurementStore.open(store_paths[0], create=False, readonly=True) as store:
        key = store_device_key(store, args.device)
        device = next(d for d in store.devices() if d.key == key)
    data = _load_dataset(store_paths, key, args.campaign, model)
    provenance = {"store": ", ".join(Path(p).name for p in store_paths),
                  "campaign": args.campaign}
    roles = tuple(r.strip() for r in getattr(args, "train_on", "measurement").split(",")
                  if r.strip())
    if roles != ("measurement",):
        data = train_on_roles(data, roles)
        provenance["trained_on_roles"] = ",".join(roles)
    return device, data, provenance


def cmd_fit(args) -> int:
    check_writable(args.output)
    if Need.CALIBRATION not in get_family(args.family).needs:
        raise WorkbenchError(
            f"the {args.family} model is not fitted to run times: it predicts from a "
            "device description ('workbench predict KERNEL --model roofline "
            "--device-model h100'); its capacity-miss functions are fitted to profiled "
            "volumes (RooflineModel().fit, benchmarks/block_study_volumes.py)")
    if args.model is not None or args.family == "expression":
        return _fit_expression(args)
    if _fit_asked(args) and args.family != "unified-linear":
        raise WorkbenchError(f"--fit and --non-negative apply to the unified-linear "
                             f"family, not to {args.family}")
    method = fit_method(args)
    device, data, provenance = _fit_inputs(args)
    family = get_family(args.family)
    options = {"non_negative": method.non_negative} if args.family == "unified-linear" else {}
    model = family.fit(data, bootstrap=args.bootstrap, device=device.to_dict(),
                       provenance=provenance, **options)
    save_model(model, args.output)
    report = model.report_data()
    if args.format == "json":
        print_json({"weights": model.weights, "fit": report["fit"],
                    "unexercised": report["unexercised"], "output": args.output})
        return 0
    how = f" ({method.value})" if args.family == "unified-linear" else ""
    print(f"fitted {family.name}{how} on "
          f"{report['fit']['n_measurements']} measurements of "
          f"{device.device}; training geomean relative error "
          f"{report['fit']['training_geomean_rel_error']:.3f} -> {args.output}")
    print_table(_format_weights(report["parameters"]))
    if report["unexercised"]:
        print("not exercised by any measurement kernel (no weight): "
              + ", ".join(report["unexercised"]))
    return 0


_NON_NEGATIVE_EXPRESSION = ("--fit and --non-negative apply to the unified-linear family; an "
                            "expression model takes bounds in its file (models/overlap.json "
                            "bounds every parameter below by 0)")


def _fit_expression(args) -> int:
    """``fit --model``: a user-written model (family 'expression')."""
    if args.model is None:
        raise WorkbenchError("the expression family needs --model EXPR|FILE")
    if _fit_asked(args):
        raise WorkbenchError(_NON_NEGATIVE_EXPRESSION)
    family = get_family("expression")
    spec = family.spec(args.model, granularity=args.granularity,
                       subgroup_size=args.subgroup_size)
    device, data, provenance = _fit_inputs(args, spec)
    model = family.fit(data, model=spec, device=device.to_dict(), provenance=provenance)
    save_model(model, args.output)
    report = model.report_data()
    document = model.to_json()
    fit = document["fit"]
    if args.format == "json":
        print_json({"family": model.family, "model": model.expression,
                    "output_feature": spec.model.output, "parameters": model.parameters,
                    "confidence_intervals": document["confidence_intervals"],
                    "geomean_rel_error": fit["geomean_rel_error"], "fit": fit,
                    "unexercised": report["unexercised"], "output": args.output})
        return 0
    print(f"fitted {family.name} model ({spec.granularity} granularity) on "
          f"{fit['n_measurements']} measurements of {device.device}; training geomean "
          f"relative error {fit['geomean_rel_error']:.3f} -> {args.output}")
    print_table(_format_parameters(report["parameters"]))
    if report["unexercised"]:
        print("not determined by any measurement (left at the initial value): "
              + ", ".join(report["unexercised"]))
    if not fit.get("converged", True):
        print(f"warning: the optimizer did not converge: {fit.get('optimizer_message')}")
    return 0


def _format_parameters(params: pd.DataFrame) -> list[dict]:
    return [{"parameter": r["property"], "value": f"{r['value']:.4e}",
             "95% CI": f"[{r['ci_low']:.3e}, {r['ci_high']:.3e}]"}
            for _, r in params.iterrows()]


def _format_weights(params: pd.DataFrame) -> list[dict]:
    return [{"property": r["label"], "name": r["property"],
             "weight (s/op)": f"{r['weight_s_per_op']:.3e}",
             "95% CI": f"[{r['ci_low']:.2e}, {r['ci_high']:.2e}]"}
            for _, r in params.iterrows()]


def cmd_report(args) -> int:
    if args.compare_fits:
        return _report_compare_fits(args)
    if args.weights is None:
        raise WorkbenchError("report needs --weights FILE (or --compare-fits, which fits "
                             "the linear model both ways itself)")
    from workbench.cli.report_devices import report_devices, says_contents

    model = load_model(args.weights)
    devices = report_devices(model, _stores(args), args.device)
    data = _load_dataset(_stores(args), devices.measured.key, args.campaign, model)
    if not len(data):
        raise WorkbenchError(f"{says_contents(_stores(args))}; none of "
                             f"{devices.measured.device}"
                             + (f" in campaign {args.campaign!r}" if args.campaign else ""))
    crossed = devices.says(args.weights, _stores(args)) if devices.crossed else None
    groups = None if args.all_groups else 256
    floors = not args.no_floors
    t1 = table1(model, data, group_workitems=groups, floors=floors)
    # kernels kept apart from every fit get a Table 1 of their own, never mixed in
    unseen = table1(model, data, group_workitems=groups, role="unseen", floors=floors) \
        if (data["role"] == "unseen").any() else None
    lifted = t1.lifted + (unseen.lifted if unseen is not None else 0)
    floor_note = (f"{lifted} prediction(s) lifted to the device's physical floor, as "
                  "predict does (--no-floors: the model's own times)") if lifted else None
    t2 = table2(model)
    if args.plot:
        from workbench.reports.plots import predicted_vs_measured
        try:
            predicted_vs_measured(predictions(model, data, floors=floors)).write_html(
                args.plot)
        except OSError as err:
            raise WorkbenchError(f"cannot write the plot {args.plot!r}: {err}") from None
    if args.format == "json":
        print_json({**t1.to_json(), "floors": floors,
                    "weights_device": devices.weights_device,
                    "measured_device": devices.measured.device,
                    "weights": t2.to_dict(orient="records"),
                    "fit": model.report_data()["fit"],
                    **({"unseen": unseen.to_json()} if unseen is not None else {})})
    elif args.format == "csv":
        if crossed:
            sys.stdout.write(f"# {crossed}\n")
        if floor_note:
            sys.stdout.write(f"# {floor_note}\n")
        sys.stdout.write("# Table 1\n" + t1.layout().to_csv(index=False))
        if unseen is not None:
            sys.stdout.write("# Table 1, unseen kernels\n" + unseen.layout().to_csv(index=False))
        sys.stdout.write("# Table 2\n" + t2.to_csv(index=False))
    elif args.format == "md":
        if crossed:
            sys.stdout.write(f"Cross-device: {crossed}.\n\n")
        if floor_note:
            sys.stdout.write(f"{floor_note[0].upper()}{floor_note[1:]}.\n\n")
        sys.stdout.write("### Table 1: predicted vs actual (ms)\n\n"
                         + to_markdown(t1.layout()))
        if unseen is not None:
            sys.stdout.write("\n### Table 1, unseen kernels (in no fit): predicted vs "
                             "actual (ms)\n\n" + to_markdown(unseen.layout()))
        if model.family == "expression":
            title, columns = "fitted parameters", ["property", "value", "ci_low", "ci_high"]
        else:
            title = "weights (s/op)"
            columns = ["label", "property", "weight_s_per_op", "ci_low", "ci_high"]
        sys.stdout.write(f"\n### Table 2: {title}\n\n"
                         + to_markdown(t2[columns], "{:.3e}"))
    else:
        if crossed:
            print(f"cross-device: {crossed}")
        if floor_note:
            print(floor_note)
        print("Table 1: predicted vs actual execution times (ms), geometric mean of "
              "relative error")
        if len(t1.per_kernel):
            print(t1.layout().to_string(index=False, na_rep="",
                                        float_format=lambda v: f"{v:.4g}"))
        else:   # an empty table with a blank "Cross-kernel geometric mean" read as a fault
            print("(no test kernels in these stores" + (": the unseen ones follow)"
                                                       if unseen is not None else ")"))
        if unseen is not None:
            print("\nTable 1, unseen kernels (in no fit): predicted vs actual (ms)")
            print(unseen.layout().to_string(index=False, na_rep="",
                                            float_format=lambda v: f"{v:.4g}"))
        if model.family == "expression":
            print(f"\nTable 2: fitted parameters of {model.expression}")
            print_table(_format_parameters(t2))
        else:
            print("\nTable 2: weights (seconds per operation)")
            print_table(_format_weights(t2))
    return 0


def _report_compare_fits(args) -> int:
    """``report --compare-fits``: Table 1 of the plain and the non-negative fit."""
    from workbench.reports import compare_fits

    device_key = None
    stores = _stores(args)
    if args.weights is not None:
        from workbench.cli.report_devices import report_devices
        device_key = report_devices(load_model(args.weights), stores, args.device).measured.key
    with MeasurementStore.open(stores[0], create=False, readonly=True) as store:
        device_key = device_key or store_device_key(store, args.device)
        device = next(d for d in store.devices() if d.key == device_key)
    data = _load_dataset(stores, device_key, args.campaign)
    if not len(data):
        from workbench.cli.report_devices import says_contents
        raise WorkbenchError(f"{says_contents(stores)}; none of {device.device}"
                             + (f" in campaign {args.campaign!r}" if args.campaign else ""))
    groups = None if args.all_groups else 256
    comparison = compare_fits(data, group_workitems=groups, device=device.to_dict())
    if args.format == "json":
        print_json({**comparison.to_json(), "device": device.to_dict(),
                    "stores": [Path(p).name for p in stores],
                    "groups": "all" if groups is None else groups})
        return 0
    frame = comparison.frame()
    for column in [m.value for m in comparison.models]:
        frame[column] = frame[column].map(
            lambda v: f"{v:.1%}" if isinstance(v, float) else str(v))
    where = "all group sizes" if groups is None else f"{groups}-work-item groups"
    head = (f"Table 1 (geometric mean of the relative error, {where}) of the linear model "
            f"fitted two ways on {device.device} ({', '.join(Path(p).name for p in stores)}):"
            " plain least squares (the paper's) and non-negative (every weight >= 0, "
            "the default)")
    if args.format == "md":
        sys.stdout.write(f"{head}\n\n" + to_markdown(frame))
    elif args.format == "csv":
        sys.stdout.write(frame.to_csv(index=False))
    else:
        print(head)
        print_table(frame.to_dict(orient="records"))
    return 0


def cmd_select(args) -> int:
    from workbench.cli.measure_cmds import family_sizes
    from workbench.kernels.families import default_families
    from workbench.tuning.selection import measured_times, select

    model = load_model(args.weights)
    families = default_families(family_sizes(args.family_size, args.quick))
    measurements = []
    device_key = None
    if model.device:
        from workbench.measure import DeviceIdentity
        device_key = DeviceIdentity.from_dict(model.device).key
    for path in args.store or ():
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            measurements += store.measurements(device_key=device_key)
    twins = twin_times(measurements) if TWIN_TIME in _model_features(model) else None
    if twins is not None and not twins:
        raise WorkbenchError(f"the model reads {TWIN_TIME}: give the store of the "
                             "families' work-removed twins too (calibrate --families "
                             "--set work-removed)")
    results = [select(model, fam, measured_times(measurements, fam), twins=twins)
               for fam in families]
    if args.format == "json":
        print_json([r.to_json() for r in results])
        return 0
    for r in results:
        print(f"\n{r.family}: predicted pick {r.pick}; best measured {r.best or '?'}; "
              f"pick reaches {r.fraction_of_best:.1%} of the best")
        print_table([{"candidate": row.candidate, "predicted_ms": f"{row.predicted_s * 1e3:.4g}",
                      "measured_ms": "" if row.measured_s != row.measured_s
                      else f"{row.measured_s * 1e3:.4g}",
                      "predicted_rank": "" if row.predicted_rank != row.predicted_rank
                      else int(row.predicted_rank),
                      "measured_rank": "" if row.measured_rank != row.measured_rank
                      else int(row.measured_rank)}
                     for row in r.ranking.itertuples()])
    return 0


def cmd_validate(args) -> int:
    """Leave-one-kernel-out validation (:mod:`workbench.models.validation`)."""
    from workbench.measure.provenance import library_versions

    if args.model is not None:
        if _fit_asked(args):
            raise WorkbenchError(_NON_NEGATIVE_EXPRESSION)
        spec = get_family("expression").spec(args.model)
        fit = ExpressionFit(spec, name=args.model if Path(args.model).suffix == ".json"
                            else "")
    else:
        spec = None
        fit = LinearFit(non_negative=fit_method(args).non_negative)
    device, data, _ = _fit_inputs(args, spec)
    report = leave_one_kernel_out(data, fit, held_out=args.kernel, groups=args.groups)
    stores = [Path(p).name for p in _stores(args)]
    if args.format == "json":
        print_json({**report.to_json(), "device": device.to_dict(), "stores": stores,
                    "library_versions": library_versions()})
        return 0
    table = report.frame()
    table = table.assign(loko_training_rows=table["loko_training_rows"].map(
        lambda v: "" if v != v else str(int(v))))
    table.columns = ["kernel", "points", "in-sample (measurement kernels)",
                     "LOKO (all other kernels)", "LOKO training rows", "no weight / undetermined"]
    if not table["no weight / undetermined"].astype(bool).any():
        table = table.drop(columns="no weight / undetermined")
    head = (f"leave-one-kernel-out validation of {report.model} on {report.n_rows} "
            f"measurements of {device.device} ({', '.join(stores)}); geometric mean of "
            f"the relative error over {report.groups.description}; in-sample fit on "
            f"{report.n_in_sample_training} measurement-kernel rows")
    for col in ("in-sample (measurement kernels)", "LOKO (all other kernels)"):
        table[col] = table[col].map("{:.1%}".format)
    if args.format == "md":
        sys.stdout.write(f"{head}\n\n" + to_markdown(table))
    else:
        print(head)
        print_table(table.to_dict(orient="records"))
    return 0
