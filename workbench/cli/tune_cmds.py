"""``workbench spaces``, ``workbench tune``, ``workbench tuning-report`` and
``workbench ir-samples``."""

from __future__ import annotations

import argparse
import sys
import time

from workbench.cli.common import parse_params, print_json, print_table
from workbench.cli.measure_cmds import add_scheduler_options
from workbench.errors import ParameterError, TuningError
from workbench.measure import MeasurementStore, default_store_path
from workbench.tuning.runner import StopReason
from workbench.tuning.strategies import STRATEGIES
from workbench.cli.arg_types import non_negative_int, positive_int


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("spaces", help="the catalog's tuning spaces")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size, e.g. n=1024")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.set_defaults(func=cmd_spaces)

    p = sub.add_parser("tune", help="explore a tuning space with a strategy")
    p.add_argument("space", help="catalog space (see 'workbench spaces') or FILE.py:VAR")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size, e.g. n=1024")
    p.add_argument("--strategy", default="exhaustive", choices=sorted(STRATEGIES),
                   help="how the next point is picked (default: exhaustive, every point; "
                        "the model-guided ones rank with --weights, or with the shipped "
                        "non-negative linear fit under the residency penalty, the "
                        "configuration the tuning studies measured: docs/tuning.md says "
                        "what each does)")
    p.add_argument("--training", action="append", metavar="STORE|SAMPLES.csv",
                   help="--strategy knn or xgb: tuning stores of other exhaustively "
                        "measured spaces, or sample files (workbench ir-samples), to "
                        "learn from, repeatable (default: the shipped H100 samples)")
    _model_options(p)
    p.add_argument("--only", metavar="RESTRICTION",
                   help="explore only the points that meet RESTRICTION, a restriction "
                        "over the space's parameters (e.g. 'vw > 1': a space's new "
                        "values measured without its old points; the records are the "
                        "space's own)")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="seeds every random draw: the strategies that draw (random, tpe, bo, "
                        "the hedged ones, ...) and the kernel's random inputs; default 0")
    p.add_argument("--budget-evals", type=positive_int, help="stop after N evaluations")
    p.add_argument("--budget-seconds", type=float,
                   help="stop once the tuning cost reaches S seconds")
    p.add_argument("--device", help="OpenCL device: index or name substring "
                                    "(default: pocl's CPU device)")
    p.add_argument("--replay", metavar="STORE", action="append",
                   help="answer from an exhaustively measured store instead of a device")
    p.add_argument("--store", help=f"record every evaluation (default: "
                                   f"{default_store_path()}; not with --replay)")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="processes preparing and building ahead the points the "
                        "strategy says come next: an order's, a model's next picks "
                        "(live only; TPE names only its first draw)")
    p.add_argument("--build-option", action="append", default=[], metavar="OPTION",
                   help="OpenCL build option, repeatable (e.g. -cl-nv-verbose: the "
                        "stored build log then names registers and spills)")
    p.add_argument("--no-verify", action="store_true", help="skip comparing results")
    p.add_argument("--early-start", action="store_true",
                   help="model strategies: measure the points the counting builds while "
                        "the ranking runs (workbench.tuning.early)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress line while it measures")
    p.add_argument("--format", choices=("table", "json"), default="table")
    add_scheduler_options(p)
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("tuning-report",
                       help="every strategy on exhaustively measured spaces (replay)")
    p.add_argument("--store", action="append", required=True,
                   help="store(s) holding exhaustive explorations")
    p.add_argument("--space", action="append",
                   help="catalog space or FILE.py:VAR (default: every catalog space "
                        "measured in the stores)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="problem size of the --space spaces, e.g. n=1024")
    p.add_argument("--weights", action="append", default=[], metavar="LABEL=FILE",
                   help="a fitted model to rank with, repeatable (e.g. "
                        "linear=sample_data/h100/weights-linear.json); each gives the "
                        "rows model, model-bo and model-tpe (default: tune's, the "
                        "shipped non-negative linear fit with the residency penalty)")
    p.add_argument("--roofline", metavar="DEVICE_MODEL",
                   help="also rank with the roofline on this device description")
    p.add_argument("--tpe-seeds", type=positive_int, default=10,
                   help="seeds each seeded strategy is replayed with; its row is their "
                        "mean (default 10)")
    p.add_argument("--early", action="store_true",
                   help="also the model strategies measuring while they rank, the "
                        "ranking charged beside those points and, for comparison, "
                        "before them")
    p.add_argument("--ranking-cost", choices=("measured-now", "recorded"),
                   default="measured-now",
                   help="charge each ranking what it costs measured now, on this "
                        "machine (default), or what a live 'workbench tune' of the "
                        "same space recorded in the stores on the GPU host (where "
                        "none is recorded: measured now, and the row says so)")
    p.add_argument("--learned", default="knn,xgb", metavar="NAMES",
                   help="the IR-feature strategies to list, of knn and xgb, or 'none' "
                        "(default: both; a fitted model is cached on disk, so only the "
                        "first report on a program pays for xgb's fit, tens of seconds)")
    p.add_argument("--training", action="append", metavar="STORE|SAMPLES.csv",
                   help="knn and xgb: other programs' measured spaces to learn from, "
                        "repeatable (default: the shipped H100 sample files); each "
                        "space is ranked by models trained on every other program")
    p.add_argument("--format", choices=("table", "json", "md", "csv"), default="table")
    p.add_argument("--plot", metavar="PREFIX",
                   help="write PREFIX-<space>.html with the exploration curves")
    p.set_defaults(func=cmd_tuning_report)


    p = sub.add_parser("ir-samples",
                       help="the IR features and normalized throughput of every point of "
                            "the spaces measured exhaustively in stores (the training "
                            "data of --strategy knn and xgb)")
    p.add_argument("--store", action="append", required=True)
    p.add_argument("--space", action="append", help="catalog spaces (default: all found)")
    p.add_argument("-o", "--output", required=True, metavar="SAMPLES.csv")
    p.set_defaults(func=cmd_ir_samples)


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--weights", metavar="MODEL.json",
                   help="the fitted model of the model-guided strategy (default: the "
                        "shipped weights-linear-non-negative.json with the residency "
                        "penalty; the prediction default, chains38, orders user spaces "
                        "better but costs 6 to 37 times as much to rank)")
    p.add_argument("--model", help="model family for --strategy model without a file "
                                   "(roofline; tiling for the time-tiled tt_* spaces)")
    p.add_argument("--device-model", help="device description for the roofline and the "
                                          "tiling model (h100)")
    p.add_argument("--calibration", metavar="FILE",
                   help="--model tiling: its calibration (workbench calibrate --set "
                        "timetiling; default: the one shipped for --device-model)")
    p.add_argument("--residency-penalty", action="store_true",
                   help="multiply the model's predictions by 1 + 1/(groups resident per "
                        "multiprocessor): large groups' stalls (workbench.models."
                        "residency_penalty)")


def _space(ref: str, params):
    from workbench.tuning.catalog import resolve_space
    return resolve_space(ref, **parse_params(params))


def cmd_spaces(args) -> int:
    from workbench.tuning.catalog import SPACES, get_space

    params, rows = parse_params(args.param), []
    for name in SPACES:
        try:
            space = get_space(name, **params)
        except (TypeError, ParameterError):
            # sizes of another kind of space (n of the 2-D spaces, S1.. and T of the
            # time-tiled ones): list the spaces that take them
            continue
        rows.append({"space": name, "problem": dict(space.problem),
                     "parameters": {k: list(v) for k, v in space.tune_params.items()},
                     "points": len(space.points()), "of": space.size,
                     "description": space.description})
    if not rows:
        raise ParameterError(f"no catalog space takes the size(s) {', '.join(params)} "
                             "(n, or S1, S2, S3 and T of the tt_* spaces)")
    if args.format == "json":
        print_json(rows)
        return 0
    print_table([{**r, "problem": ",".join(f"{k}={v}" for k, v in r["problem"].items()),
                  "parameters": " ".join(f"{k}:{'|'.join(map(str, v))}"
                                         for k, v in r["parameters"].items())}
                 for r in rows], ["space", "problem", "points", "of", "parameters"])
    return 0


def _strategy_model(args):
    if not args.weights and not args.model:
        from workbench.models.defaults import default_ranking_model
        choice = default_ranking_model()     # already under the residency penalty
        return choice.model, choice.label
    model, label = _plain_strategy_model(args)
    if not getattr(args, "residency_penalty", False):
        return model, label
    from workbench.models.residency_penalty import ResidencyPenalty
    return ResidencyPenalty(model), (label and f"{label}+residency")


def _plain_strategy_model(args):
    from workbench.models import get_family, load_model

    if args.weights:
        return load_model(args.weights), None
    if args.model:
        options = {"device_model": args.device_model} if args.device_model else {}
        if args.calibration:
            if args.model != "tiling":
                raise TuningError("--calibration is the tiling model's: use it with "
                                  "--model tiling")
            options["calibration"] = args.calibration
        return get_family(args.model).ready(**options), args.model
    raise TuningError("a model-guided strategy ranks with --weights or --model")


#: why an exploration stopped (``ExplorationResult.stopped_by``), as the summary says it
_STOPPED_BY = {StopReason.EXHAUSTED: "no point left to measure",
               StopReason.EVALUATIONS: "--budget-evals reached",
               StopReason.SECONDS: "--budget-seconds reached",
               StopReason.STOPPED: "interrupted",
               StopReason.REACHED: "the target share of the best reached"}


def cmd_tune(args) -> int:
    from workbench.tuning.parallel import counting_pool_ahead
    from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations
    from workbench.tuning.runner import Budget, Explorer
    from workbench.tuning.strategies import make_strategy

    space = _space(args.space, args.param)
    if args.only:
        space = space.where(args.only)
    guided = args.strategy == "model" or args.strategy.startswith("model-")
    model, label = _strategy_model(args) if guided else (None, None)
    strategy = make_strategy(args.strategy, seed=args.seed, model=model, label=label,
                             training=args.training)
    if getattr(args, "early_start", False):
        if not guided:
            raise TuningError("--early-start is for the model strategies (model, model-*)")
        from workbench.tuning.early import EarlyStart
        strategy = EarlyStart(strategy, clock="replay" if args.replay else "live")
    budget = Budget(args.budget_evals, args.budget_seconds)
    progress = None if args.no_progress else _progress(args.budget_evals)
    if args.scheduler and (args.replay or args.jobs > 1):
        raise TuningError("--scheduler measures on the cluster's devices and builds on its "
                          "CPU workers: leave out --replay and --jobs")
    if args.replay:
        if args.store:
            raise TuningError("--replay answers from stores and records nothing; "
                              "leave out --store")
        evaluator = ReplayEvaluator(space, load_space_evaluations(args.replay, space))
        result = Explorer(space, strategy, evaluator, budget=budget, seed=args.seed).run(
            progress)
    elif args.scheduler:
        result = _tune_cluster(args, space, strategy, budget, progress)
    else:
        pool = counting_pool_ahead(space) if guided else None
        try:
            result = _tune_live(args, space, strategy, budget, progress)
        finally:
            if pool is not None:
                pool.close()
        code = _print_result(args, space, result)
        if args.format != "json":
            _say_devices(args.device, model, label)
        return code
    return _print_result(args, space, result)


def _say_devices(device_text, model, label) -> None:
    """Where the points were timed, and the ranking model's device where it differs:
    a model fitted on an H100 orders the points by the H100's costs, not pocl's."""
    from workbench.measure import find_device

    measured_on = find_device(device_text).name
    print(f"measured on {measured_on}")
    fitted_on = dict(getattr(model, "device", None) or {}).get("device", "")
    if fitted_on and fitted_on != measured_on:
        print(f"note: the ranking model ({label or 'from --weights'}) describes "
              f"{fitted_on}, not this device: it orders the points by that device's "
              "costs, and only the measurements here say what is fast here")


def _tune_live(args, space, strategy, budget, progress):
    from workbench.measure import find_device, open_device
    from workbench.tuning.runner import Explorer
    from workbench.tuning.sequence import evaluator_for

    device = find_device(args.device)
    _, queue = open_device(device)
    # a time-tiled point is its whole sequence of band launches, timed as one
    evaluator = evaluator_for(space, queue, verify=not args.no_verify, seed=args.seed,
                              build_options=tuple(args.build_option))
    with MeasurementStore.open(args.store or default_store_path()) as store:
        if args.jobs > 1:
            from workbench.tuning.parallel import PrebuildPool
            # the strategy says which points come next as it goes (``upcoming``: an
            # order's next points, a model's next picks): they are built ahead
            with PrebuildPool(evaluator, args.space, (), device.index,
                              args.jobs) as pool:
                return Explorer(space, strategy, pool, budget=budget, seed=args.seed,
                                store=store, device=device.identity).run(progress)
        return Explorer(space, strategy, evaluator, budget=budget, seed=args.seed,
                        store=store, device=device.identity).run(progress)


def _tune_cluster(args, space, strategy, budget, progress):
    from workbench.cli.measure_cmds import open_cluster
    from workbench.distributed import explore

    with open_cluster(args) as session, \
            MeasurementStore.open(args.store or default_store_path()) as store:
        return explore(session, args.space, space, strategy, store=store, budget=budget,
                       seed=args.seed, verify=not args.no_verify,
                       build_options=tuple(args.build_option), on_progress=progress)


def _progress(budget_evals: int | None = None):
    """The progress line; with ``--budget-evals`` it counts towards the budget, not the
    whole space, so that its eta is the run's."""
    began = time.perf_counter()

    def show(p) -> None:
        total = min(p.total, budget_evals) if budget_evals else p.total
        rate = (time.perf_counter() - began) / max(p.done, 1)
        eta = rate * max(total - p.done, 0)
        best = "-" if p.best_s is None else f"{p.best_s * 1e3:.4g} ms"
        print(f"\r[{p.done}/{total}] best {best}  cost {p.cost_s:.1f} s  "
              f"eta {eta:.0f} s  {p.evaluation.point.label[:60]:60s}", end="",
              file=sys.stderr, flush=True)
        if p.done >= total:
            print(file=sys.stderr)
    return show


def _print_result(args, space, result) -> int:
    best = result.best
    failed = sum(1 for e in result.evaluations if not e.ok)
    out = {"space": space.name, "strategy": result.strategy, "seed": result.seed,
           "evaluations": len(result.evaluations), "failed": failed,
           "stopped_by": result.stopped_by.value, "choosing_s": result.choosing_s,
           "tuning_cost_s": result.cost_s, "measured_before_ranking": result.overlapped,
           "best": None if best is None else {"point": best.point.as_dict(),
                                              "time_s": best.time_s}}
    cost = result.ranking_cost
    if cost is not None:
        out["ranking_cost"] = {"wall_s": cost.wall_s, "cpu_s": cost.cpu_s,
                               "cores_used": cost.cores_used, "jobs": cost.jobs,
                               "cpu_count": cost.cpu_count, "host": cost.host}
    counts = result.counts
    if counts is not None:
        out["counts"] = counts.as_dict()
    measured = hasattr(args, "no_verify") and not getattr(args, "replay", None)
    if measured:
        # where the evaluations went (a newcomer could not find the default store)
        out["store"] = str(args.store or default_store_path())
    if args.format == "json":
        print_json(out)
        return 0
    stopped = _STOPPED_BY[result.stopped_by]
    print(f"\n{space.name}: {len(result.evaluations)} evaluations ({failed} failed) with "
          f"{result.strategy}, stopped: {stopped}; tuning cost "
          f"{result.cost_s:.2f} s (choosing {result.choosing_s:.2f} s)")
    if best is not None:
        print(f"best: {best.point.label}  {best.time_s * 1e3:.4g} ms")
    if measured:
        print(f"recorded in {out['store']} (every evaluation with its costs and build log)")
    if measured and (args.no_verify or space.reference is None):
        # a space without reference() was measured unchecked, and nothing said so
        why = "--no-verify" if args.no_verify else "the space has no reference(inputs)"
        print(f"results not checked ({why}): the fastest point may compute something "
              "wrong")
    for line in _failures_say(result.evaluations):
        print(line)
    if cost is not None and cost.wall_s > 0.01:
        from workbench.tuning.costs import describe
        # only a model or a learned ranker ranks; TPE's or random's start is set-up
        ranks = result.strategy.startswith(("model", "knn", "xgb"))
        print(f"{'ranking' if ranks else 'strategy set-up'}: {describe(cost)}")
    if counts is not None:
        # a second session on the same space reads its counts back from the disk
        # cache: the user sees why its ranking cost less than the first one's
        print(f"counts: {counts.describe()}")
    return 0


def _failures_say(evaluations, shown: int = 3) -> list[str]:
    """Why points failed, a line per kind of failure with its first point's reason (the
    last line of its log: a traceback's error, a compiler's message), so that "(2
    failed)" is not all a user learns; the store keeps the whole log."""
    by_status: dict = {}
    for e in evaluations:
        if not e.ok:
            by_status.setdefault(e.status, []).append(e)
    lines = []
    for status, failed in list(by_status.items())[:shown]:
        first = failed[0]
        reason = next((x.strip() for x in reversed(first.log.splitlines()) if x.strip()),
                      "no log")
        more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
        lines.append(f"failed ({status.value.replace('_', ' ')}): {first.point.label}"
                     f"{more}: {reason[:300]}")
    return lines


def cmd_tuning_report(args) -> int:
    from workbench.reports.tuning import exploration_figure, tuning_table
    from workbench.tuning.guided import GUIDED, PlainBO
    from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations
    from workbench.tuning.costs import RankingCharge, recorded_ranking_costs
    from workbench.tuning.study import compare_strategies, strategy_means, summary

    if args.plot:   # say so before minutes of replaying, not after
        from workbench.models.registry import check_writable
        check_writable(f"{args.plot}-figure.html")
    models = {}
    for item in args.weights:
        label, sep, path = item.partition("=")
        if not sep:
            raise TuningError(f"--weights takes LABEL=FILE, got {item!r}")
        from workbench.models import load_model
        models[label] = load_model(path)
    if args.roofline:
        from workbench.models import get_family
        models["roofline"] = get_family("roofline").ready(device_model=args.roofline)
    if not models:   # every strategy is listed: the model-guided ones with tune's default
        from workbench.models.defaults import default_ranking_model
        choice = default_ranking_model()
        models[choice.label] = choice.model
    refs = args.space or _measured_catalog_spaces(args.store)
    charging = RankingCharge.parse(args.ranking_cost)
    learned = _learned_strategies(args.training, args.learned)
    comparisons = []
    for ref in refs:
        space = _space(ref, args.param)
        evaluator = ReplayEvaluator(space, load_space_evaluations(args.store, space))
        recorded = recorded_ranking_costs(args.store, space) \
            if charging is RankingCharge.RECORDED else None
        comparisons.append(compare_strategies(
            space, evaluator, models, tpe_seeds=args.tpe_seeds, guided=tuple(GUIDED),
            strategies=learned, seeded={"bo": lambda seed: PlainBO(seed=seed)},
            recorded=recorded, early=getattr(args, "early", False)))
        if args.plot:
            exploration_figure(comparisons[-1]).write_html(
                f"{args.plot}-{space.name}.html", include_plotlyjs="cdn")
    table = summary(comparisons)
    means = strategy_means(table)
    charged = _charging_line(charging, table)
    if getattr(args, "early", False):
        from workbench.tuning.study import EARLY_CHARGING
        charged += "\n" + EARLY_CHARGING
    if args.format == "json":
        print_json({"ranking_cost": charging.value, "charging": charged,
                    "spaces": table.to_dict(orient="records"),
                    "geometric_means": means.to_dict(orient="records")})
    elif args.format == "csv":
        sys.stdout.write(table.to_csv(index=False))
    elif args.format == "md":
        from workbench.reports import to_markdown
        sys.stdout.write(f"{charged}\n\n")
        sys.stdout.write(to_markdown(tuning_table(table)))
        sys.stdout.write("\n\nAcross spaces, time to 95 % of the best (geometric means; "
                         "oracle: one measurement of the best point):\n\n")
        sys.stdout.write(to_markdown(tuning_table(means)))
    else:
        print(charged + "\n")
        print(tuning_table(table).to_string(index=False))
        _print_notes(table)
        print("\nacross spaces, time to 95 % of the best (geometric means; oracle: one "
              "measurement of the best point):")
        print(tuning_table(means).to_string(index=False))
    return 0


def _learned_strategies(training, names: str = "knn,xgb"):
    """The IR-feature strategies named (knn, xgb; 'none'), trained on ``training``
    (default: every shipped sample file)."""
    from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN
    from workbench.tuning.ir_training import shipped_sample_files

    sources = training if training else shipped_sample_files()
    known = {"knn": lambda: IRFeatureKNN(training=sources),
             "xgb": lambda: IRBoostedRanker(training=sources)}
    wanted = [n.strip() for n in names.split(",") if n.strip() and n.strip() != "none"]
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise TuningError(f"--learned takes knn, xgb or none, not {unknown[0]!r}")
    return {n: known[n] for n in wanted}


def _charging_line(charging, table) -> str:
    """Which ranking costs the report charges, and how many rows fell back."""
    from workbench.measure.provenance import host_name

    if charging.value == "measured-now":
        return (f"ranking cost: measured now on {host_name()} (--ranking-cost "
                "recorded charges the costs live tunes recorded on the GPU host)")
    notes = table["choosing_charged"].dropna() if "choosing_charged" in table else []
    fell_back = sum(1 for n in notes if "no recorded cost" in n)
    return (f"ranking cost: recorded by live tunes where the stores hold one "
            f"({len(notes) - fell_back} rows); measured now on {host_name()} where they "
            f"do not ({fell_back} rows)")


def _print_notes(table) -> None:
    if "note" not in table:
        return
    for _, row in table[table["note"].notna()].iterrows():
        print(f"{row['space']} {row['strategy']}: {row['note']}")


def _measured_catalog_spaces(stores) -> list[str]:
    from workbench.tuning.catalog import SPACES
    from workbench.tuning.evaluation import KERNEL_PREFIX

    names = set()
    for path in stores:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            names |= {m.key.kernel[len(KERNEL_PREFIX):]
                      for m in store.measurements(status=None)
                      if m.key.kernel.startswith(KERNEL_PREFIX)}
    found = [n for n in SPACES if n in names]
    if not found:
        raise TuningError("the stores hold no exploration of a catalog space")
    return found


def cmd_ir_samples(args) -> int:
    from datetime import datetime, timezone

    from workbench.measure.provenance import library_versions
    from workbench.models.ir_features import save_samples
    from workbench.models.ir_features.samples import BENCHMARK, INPUT
    from workbench.tuning.ir_training import stored_samples

    samples = stored_samples(args.store, args.space)
    if not len(samples):
        raise TuningError(f"{', '.join(args.store)} hold no exhaustively measured "
                          "catalog space")
    devices = set()
    for path in args.store:
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            devices |= {m.device.device for m in store.measurements(status=None)}
    save_samples(samples, args.output, {
        "stores": [str(p) for p in args.store], "devices": sorted(devices),
        "features": "workbench.models.ir_features (symbolic, per template)",
        "libraries": library_versions(),
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": "workbench " + " ".join(sys.argv[1:])})
    groups = samples.groupby([BENCHMARK, INPUT], sort=False).size()
    print(f"{len(samples)} samples of {samples[BENCHMARK].nunique()} benchmarks "
          f"({len(groups)} benchmark inputs) written to {args.output}")
    return 0
