"""``workbench fit-ranking``: the cheap ranking model's weights fitted on tuning spaces
you measured (:mod:`workbench.models.unified.space_fit`)."""

from __future__ import annotations

import argparse

from workbench.cli.common import print_json, print_table
from workbench.errors import TuningError


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fit-ranking",
        help="fit the ranking model's weights on tuning spaces measured exhaustively",
        description="Count every point of each space with the ranking model's properties "
                    "(what a model-guided tune counts), read its measured time from the "
                    "store, and fit the weights so that the model orders such spaces as "
                    "they ran. Use the result with 'workbench tune SPACE --strategy "
                    "model-hedge-stream --weights OUTPUT --residency-penalty'. With two "
                    "spaces or more it also says, per space, how the fit on the others orders it.")
    p.add_argument("spaces", nargs="+", metavar="FILE.py:VAR",
                   help="tuning spaces measured in --store (e.g. by 'workbench tune "
                        "FILE.py:VAR --strategy exhaustive'), or catalog space names")
    p.add_argument("--store", action="append", required=True,
                   help="the store the spaces were measured into, repeatable")
    p.add_argument("--device", help="device name substring (default: the store's only one)")
    p.add_argument("--base", metavar="MODEL.json",
                   help="the linear model whose weighted properties are refitted (default: "
                        "the shipped ranking model, the one 'workbench tune' ranks with)")
    p.add_argument("--objective", choices=("relative", "log-within"), default="relative",
                   help="relative: relative error over all points together; log-within: "
                        "log times with a free offset per space, only the ratios within "
                        "each space asked for (sample_data/h100/structure-ranking.md "
                        "sections 71 and 75 compare them)")
    p.add_argument("-o", "--output", required=True, help="weights file to write (JSON)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_fit_ranking)


def _base_model(path: str | None):
    from workbench.models import load_model
    from workbench.models.defaults import default_ranking_model
    from workbench.models.unified.linear import FittedLinearModel

    if path is None:
        shipped = default_ranking_model()
        base, source = shipped.model.model, str(shipped.path)
    else:
        base, source = load_model(path), path
    if not isinstance(base, FittedLinearModel):
        raise TuningError(f"{source}: fit-ranking refits a unified-linear weights file "
                          f"(such as weights-linear-non-negative.json), not a model of the "
                          f"{getattr(base, 'family', type(base).__name__)} family")
    return base, source


def _same_device(stores: list[str], wanted: str | None, base, source: str) -> None:
    """The spaces must have been measured on the device ``base`` is fitted for: its
    residency penalty and its device record are that device's."""
    from workbench.measure import MeasurementStore

    names = set()
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            names |= {d.device for d in store.devices()}
    if wanted:
        names = {n for n in names if wanted.lower() in n.lower()}
    fitted_for = dict(base.device).get("device", "")
    if fitted_for and names and fitted_for not in names:
        raise TuningError(f"the spaces were measured on {', '.join(sorted(names))}, and "
                          f"{source} is fitted for {fitted_for}: pass --base a linear "
                          f"weights file of the measured device (--device picks one of a "
                          f"store's devices)")


def cmd_fit_ranking(args) -> int:
    from workbench.models.registry import check_writable, save_model
    from workbench.models.unified.space_fit import (
        fit_on_spaces,
        leave_one_out_runs,
        measure_space,
    )
    from workbench.tuning import load_space_evaluations, resolve_space

    check_writable(args.output)
    base, source = _base_model(args.base)
    _same_device(args.store, args.device, base, source)
    measured = []
    for ref in args.spaces:
        space = resolve_space(ref)
        # (it says so, clearly, when the store has no measurement of the space)
        evaluations = load_space_evaluations(args.store, space, device=args.device)
        measured.append(measure_space(space, evaluations, base)[0])
    fitted = fit_on_spaces(measured, base, objective=args.objective, provenance={
        "fitted_by": "workbench fit-ranking", "base": source, "objective": args.objective,
        "stores": list(args.store), "spaces": list(args.spaces)})
    save_model(fitted, args.output)
    checks = (leave_one_out_runs(measured, base, objective=args.objective)
              if len(measured) > 1 else [])
    rows = [{"space": name, "runs to 95 % (base)": a, "runs to 95 % (fit on the others)": b}
            for name, a, b in checks]
    if args.format == "json":
        print_json({"output": args.output, "base": source, "weights": fitted.weights,
                    "points": fitted.fit_stats["n_measurements"],
                    "leave_one_out": rows})
        return 0
    weighted = sum(1 for w in base.weights.values() if w)
    print(f"fitted the {weighted} weighted properties of {source} on "
          f"{fitted.fit_stats['n_measurements']} measured points of {len(measured)} "
          f"spaces -> {args.output}")
    print_table([{"property": name, "base": f"{base.weights[name]:.3g}",
                  "fitted": f"{weight:.3g}"} for name, weight in fitted.weights.items()
                 if base.weights.get(name)])
    if rows:
        print("\neach space in the order of the fit on the others (runs to reach 95 % of "
              "its best; fewer is better):")
        print_table(rows)
    print(f"\nrank with it: workbench tune SPACE --strategy model-hedge-stream "
          f"--weights {args.output} --residency-penalty")
    return 0
