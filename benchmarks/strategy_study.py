"""Benchmark: tuning strategies on the user-written spaces (issue #23).

Replays every strategy on the H100's exhaustive measurements of the eight spaces of
``examples/spaces/`` (``sample_data/h100/user-spaces.sqlite``) with every cost
counted: each point's recorded transform, code generation, build and runs; each
model's ranking of the whole space, run here from scratch (loopy's caches pointed
at a fresh folder, every space loaded anew); every strategy's own time per step.
Prints, per space and then per group of spaces (design spaces, the held-out ones
and each blind set apart, never mixed), each strategy's runs and seconds to 90 and
95 % of the best, its choosing cost, and its time to 95 % in *oracle measurements* (what
measuring the best point once costs), against TPE.  Stochastic strategies (TPE,
``model-tpe``, ``bo``) are the mean over ``--seeds`` seeds; random search is its
exact expectation.

The models are the shipped H100 fits (calibration kernels only); none has seen
these spaces.  Goal: the best model-guided strategy within 3 oracle measurements
(geometric mean), at least 2x less time than TPE, in at most 3 runs (median).

Give one model per process where two share their counts (``linear`` and
``linear-nn``): the disk cache of counts is the process's, and the second model's
ranking would be charged only what the first left to count.

``--charge-from CSV`` charges every model's ranking what an earlier run of this
benchmark measured for the same space (its ``--charge-row``, default ``model:linear``,
``choosing_s``; plus, for ``linear-nn-residency``, the residency penalty's own time
measured now) instead of timing it now: the shared VM's load moves a ranking's wall
time 3 to 5x between sessions, and models of the same features (``linear``,
``linear-nn``) count the same points.  The rows then say ``recorded: ... CSV``.

``linear-nn-residency`` is ``linear-nn`` with the residency penalty
(:mod:`workbench.models.residency_penalty`, ``structure-ranking.md`` section 13).

Run: ``.venv/bin/python benchmarks/strategy_study.py [--models linear,linear-nn,default,
linear-sectors,linear-nn-residency]
[--seeds 10] [--store sample_data/h100/user-spaces.sqlite] [--spaces a.py:space,...]
[--early] [--guided model-ei,model-hedge] [--charge-from CSV [--charge-row model:linear]]``

With ``--early`` each model's one ranking is timed beside the host's share of measuring
the early points (``--overlap-charge beside``, :mod:`workbench.tuning.beside`: what a live
run that measures while it ranks pays on this machine; ``structure-ranking.md`` section
34), and every row of that model, the ones without early start too, is charged that
time; ``--overlap-charge alone`` times it alone, as before section 34.

``model-hedge`` (:mod:`workbench.tuning.hedge`) is ``model-ei`` hedged with ``bo``'s
model-free step, which also chooses what is measured while it ranks
(``structure-ranking.md`` section 20).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's package, whatever is installed

MODELS = {
    "linear": "sample_data/h100/weights-linear.json",
    # the same features, non-negative weights: the design spaces' best order (model_orders.py)
    "linear-nn": "sample_data/h100/weights-linear-non-negative.json",
    "overlap": "sample_data/h100/weights-overlap.json",
    "default": "sample_data/h100/weights-overlap-fp64.json",
    # the shipped default's fit (#34): sub-group counts with sector-priced accesses
    "linear-sectors": "sample_data/h100/weights-linear-fp64-sectors.json",
    # chains38's fit with only the device features that build no point of their own
    # (structure-ranking.md section 54): near the cheap model's ranking cost
    "chains38-counts": "sample_data/h100/weights-linear-fp64-sectors-chains38-counts.json",
    # linear-nn with the residency penalty, reordered by trees learned on the 95 measured
    # spaces (workbench.models.space_order, structure-ranking.md section 77)
    "space-order": "sample_data/h100/space-order.json.xz",
    # the trees fitted to rank the points of a space, top first (section 81)
    "space-order-ranked": "sample_data/h100/space-order-ranked.json.xz",
}
#: a space-order model of MODELS whose order and the cheap one are taken in turn (section
#: 79; its own file, the same trees with "interleave" set, was removed on 2026-11-28)
INTERLEAVED = {"space-order-interleaved": "space-order"}
#: a model of MODELS with the residency penalty (workbench.models.residency_penalty)
PENALISED = {"linear-nn-residency": "linear-nn",
             "chains38-counts-residency": "chains38-counts"}
SPACES = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad",
          "stencil3d_7pt", "heldout_conv1d", "heldout_batched_gemm")


def held_out(space_name: str) -> bool:
    """examples/spaces/README.md: the ``heldout_*`` and ``blind_*`` spaces are never
    designed on."""
    return "heldout" in space_name or blind(space_name)


def blind(space_name: str) -> bool:
    """examples/spaces/README.md, "Blind" and "Blind, second/third/fourth set":
    written after the methods, reported apart (each set a group of its own,
    :func:`blind_set`)."""
    return space_name.startswith("blind")


def blind_set(space_name: str) -> str:
    """The blind set of a blind space: ``blind`` (``blind_*``), ``blind2``
    (``blind2_*``, the second set), ``blind3`` (``blind3_*``, the third), ``blind4``
    (``blind4_*``, the fourth), ``blind5`` (``blind5_*``, the fifth), ``blind6``
    (``blind6_*``, the sixth), ``blind7`` (``blind7_*``, the seventh), ``blind8``
    (``blind8_*``, the eighth), ``blind9`` (``blind9_*``, the ninth), ``blind10``
    (``blind10_*``, the tenth), ``blind11`` (``blind11_*``, the eleventh), ``blind12``
    (``blind12_*``, the twelfth), ``blind13`` (``blind13_*``, the thirteenth),
    ``blind14`` (``blind14_*``, the fourteenth), ``blind15`` (``blind15_*``, the
    fifteenth), ``blind16`` (``blind16_*``, the sixteenth), ``blind17`` (``blind17_*``,
    the seventeenth), ``blind18`` (``blind18_*``, the eighteenth) or ``blind19``
    (``blind19_*``, the nineteenth); "" for any other space."""
    return space_name.split("_", 1)[0] if blind(space_name) else ""


def _model(name: str):
    from workbench.models import get_family, load_model

    if name == "roofline":
        return get_family("roofline").ready(device_model="h100")
    if name in PENALISED:
        from workbench.models.residency_penalty import ResidencyPenalty
        return ResidencyPenalty(load_model(ROOT / MODELS[PENALISED[name]]))
    if name in INTERLEAVED:
        import dataclasses

        return dataclasses.replace(load_model(ROOT / MODELS[INTERLEAVED[name]]),
                                   interleave=True)
    return load_model(ROOT / MODELS[name])


def penalty_seconds(model, space) -> float:
    """The residency penalty's own wall time on ``space`` (0 for a plain model): what a
    ranking charged from an earlier run (``--charge-from``) costs more with it."""
    from workbench.kernels.candidate import Candidate
    from workbench.models.residency_penalty import ResidencyPenalty, residency_factors

    if not isinstance(model, ResidencyPenalty):
        return 0.0
    began = time.perf_counter()
    residency_factors([Candidate.of_point(space, p) for p in space.points()],
                      model.device_name, model.strength)
    return time.perf_counter() - began


def _fmt(v, spec=".2f"):
    import math
    return "-" if v is None or (isinstance(v, float) and not math.isfinite(v)) \
        else format(v, spec)


def print_group(title: str, table) -> None:
    from workbench.tuning.metrics import geometric_mean
    from workbench.tuning.study import base_strategy, strategy_means

    print(f"\n## {title}\n")
    print(f"{'space':<22} {'strategy':<34} {'runs90':>6} {'s90':>7} {'runs95':>6} "
          f"{'s95':>7} {'choose s':>8} {'oracle x95':>10} {'vs TPE':>7}")
    for _, r in table.iterrows():
        print(f"{r['space']:<22} {r['strategy']:<34} {_fmt(r['runs_to_90'], '.1f'):>6} "
              f"{_fmt(r['seconds_to_90']):>7} {_fmt(r['runs_to_95'], '.1f'):>6} "
              f"{_fmt(r['seconds_to_95']):>7} {_fmt(r['choosing_s']):>8} "
              f"{_fmt(r['oracle_x_95'], '.1f'):>10} "
              f"{_fmt(r.get('speedup_vs_tpe_95'), '.2f'):>7}")
    table = table.assign(oracle_x_95_measuring=(table["seconds_to_95"] - table["choosing_s"])
                         / table["oracle_s"])
    means = strategy_means(table.assign(strategy=table["strategy"].map(base_strategy)))
    measuring = table.assign(strategy=table["strategy"].map(base_strategy)).groupby(
        "strategy", sort=False)["oracle_x_95_measuring"].apply(geometric_mean)
    print(f"\n{title}: across {table['space'].nunique()} spaces (geometric means; "
          f"median runs)\n")
    print(f"{'strategy':<22} {'oracle x95':>10} {'w/o ranking':>11} {'oracle x90':>10} "
          f"{'vs TPE':>7} {'vs random':>9} {'median runs95':>13}")
    for _, r in means.iterrows():
        print(f"{r['strategy']:<22} {_fmt(r['oracle_x_95'], '.1f'):>10} "
              f"{_fmt(measuring[r['strategy']], '.1f'):>11} "
              f"{_fmt(r['oracle_x_90'], '.1f'):>10} {_fmt(r['speedup_vs_tpe_95']):>7} "
              f"{_fmt(r['speedup_vs_random_95']):>9} "
              f"{_fmt(r['median_runs_to_95'], '.1f'):>13}")


def _earlier_costs(table, row: str, source: str, space, models) -> dict:
    """The ranking cost of ``row`` on ``space`` in an earlier study's table, as the
    recorded cost of every model strategy (:func:`workbench.tuning.costs.charge`)."""
    from workbench.measure.store import RankingCost
    from workbench.tuning.guided import GUIDED

    found = table[(table["space"] == space.name) & (table["strategy"] == row)]
    if found.empty:
        raise SystemExit(f"{source} has no {row!r} row for {space.name}")
    seconds, points = float(found["choosing_s"].iloc[0]), int(found["points"].iloc[0])
    return {f"{family}:{label}": RankingCost(
                strategy=row, points=points,
                wall_s=seconds + penalty_seconds(model, dataclasses.replace(space)),
                cpu_s=0.0, host=f"{source} ({row})")
            for label, model in models.items() for family in ("model", *GUIDED)}


def warm_up(models) -> None:
    """Rank a throwaway two-point space with every model first: the process's one-time
    costs (lazy imports, loopy's first use) are no space's ranking cost."""
    import loopy as lp
    import numpy as np

    from workbench.tuning import TuningSpace
    from workbench.tuning.ranking import rank_space

    def kernel(p):
        knl = lp.make_kernel("{[i]: 0 <= i < 4096}", "y[i] = 2*x[i]",
                             [lp.GlobalArg("x, y", np.float32, shape=(4096,))],
                             name="warm_up", lang_version=(2018, 2))
        return lp.split_iname(knl, "i", p["g"], outer_tag="g.0", inner_tag="l.0")

    space = TuningSpace(name="warm_up", description="warm-up", tune_params={"g": (32, 64)},
                        restrictions=(), group_size=lambda p: (p["g"],), problem={},
                        kernel=kernel)
    for model in models.values():
        rank_space(model, space)


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="strategy-study-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="linear,default")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--store", default="sample_data/h100/user-spaces.sqlite")
    parser.add_argument("--spaces", help="FILE.py:VAR,... (default: examples/spaces/)")
    parser.add_argument("--csv", help="write every row here too")
    parser.add_argument("--charge-from", metavar="CSV",
                        help="charge each model's ranking the --charge-row's choosing "
                             "seconds of the same space in this earlier --csv")
    parser.add_argument("--charge-row", default="model:linear")
    parser.add_argument("--host-record", metavar="JSON",
                        help="charge the streaming strategies' rankings as this record of "
                             "another host says (benchmarks/handover_record.py), not "
                             "timed now")
    parser.add_argument("--ranking-time-scale", type=float, default=1.0, metavar="K",
                        help="a hypothetical: the streaming strategies' rankings, timed "
                             "now, charged K times their time (0: free), to ask what a "
                             "cheaper counting would give; the rows say so")
    parser.add_argument("--measured-order", type=float, nargs="?", const=0.0,
                        metavar="NOISE",
                        help="a hypothetical: the streaming strategies' rankings, timed "
                             "now, with the measured times as their predictions (a perfect "
                             "order at the ranking's cost), each times exp(NOISE z), z a "
                             "standard normal seeded by the point (default 0); the rows "
                             "say so")
    parser.add_argument("--whole-order-early", action="store_true",
                        help="a hypothetical: each structure of the streaming strategies' "
                             "rankings arrives with the whole ranking's predictions (what a "
                             "model that rescores the whole space would give its partial "
                             "picks if it knew its final order then); the rows say so")
    parser.add_argument("--guided", metavar="FAMILIES",
                        help="the learning model-guided strategies to replay, e.g. "
                             "model-ei,model-hedge (default: every one registered)")
    parser.add_argument("--early", action="store_true",
                        help="also the model strategies measuring while they rank "
                             "(workbench.tuning.early), charged with the overlap and "
                             "serially")
    parser.add_argument("--overlap-charge", choices=("alone", "beside"),
                        help="time each model's ranking alone, or beside the host's "
                             "share of measuring the early points (what a live run on "
                             "this machine pays: workbench.tuning.beside); default: "
                             "beside with --early, else alone")
    parser.add_argument("--model-file", metavar="LABEL=JSON", action="append", default=[],
                        help="a fitted weights file as the model LABEL (and LABEL-residency "
                             "with the residency penalty), e.g. a fit on measured spaces "
                             "(benchmarks/space_weights.py)")
    args = parser.parse_args()
    for item in args.model_file:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            parser.error(f"--model-file {item!r}: give LABEL=PATH")
        MODELS[label] = str(Path(path).resolve())
        PENALISED[f"{label}-residency"] = label
    from workbench.tuning.stream import OrderHypothesis

    if args.measured_order is not None and args.whole_order_early:
        parser.error("--measured-order and --whole-order-early are two hypotheses: one")
    order = OrderHypothesis("measured", args.measured_order) \
        if args.measured_order is not None else \
        OrderHypothesis("whole") if args.whole_order_early else None
    if args.overlap_charge is None:
        args.overlap_charge = "beside" if args.early else "alone"
    warnings.filterwarnings("ignore")
    import pandas as pd

    from workbench.measure.provenance import library_versions
    from workbench.models.candidate_features import rank_jobs
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.guided import GUIDED, PlainBO
    from workbench.tuning.study import compare_strategies, summary

    families = tuple(args.guided.split(",")) if args.guided else tuple(GUIDED)
    unknown = [f for f in families if f not in GUIDED]
    if unknown:
        raise SystemExit(f"--guided: unknown {', '.join(unknown)} (of {', '.join(GUIDED)})")
    refs = args.spaces.split(",") if args.spaces else \
        [f"{ROOT}/examples/spaces/{s}.py:space" for s in SPACES]
    versions = library_versions()
    from importlib.metadata import version
    for lib in ("optuna", "scikit-learn", "scipy"):
        versions[lib] = version(lib)
    print(f"# strategy study: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"host {platform.node()}, {os.cpu_count()} cores, {rank_jobs()} counting "
          f"processes")
    print("command: python " + " ".join(sys.argv))
    print("load average (1, 5, 15 min) at the start: "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    print(f"ranking timed: {args.overlap_charge}")
    print("store: " + args.store + "; models: " + args.models + f"; seeds: {args.seeds}"
          + "; guided: " + ",".join(families))
    print("libraries: " + ", ".join(f"{k} {versions[k]}" for k in sorted(versions)
                                    if k in ("python", "loopy", "islpy", "numpy", "scipy",
                                             "optuna", "scikit-learn", "pyopencl")))
    warm_up({name: _model(name) for name in args.models.split(",") if name})
    earlier = pd.read_csv(args.charge_from) if args.charge_from else None
    host_record = None
    if args.host_record:
        from workbench.tuning.handover import HostRecord

        host_record = HostRecord.load(args.host_record)
        print(f"streamed rankings charged: as recorded on {host_record.host} "
              f"({args.host_record}), not timed now")
    if earlier is not None:
        print(f"ranking charged: the {args.charge_row} row's choosing seconds of "
              f"{args.charge_from} (measured there), not timed now")
    frames = []
    for ref in refs:
        began = time.perf_counter()
        space = resolve_space(ref)   # fresh: nothing counted before
        models = {name: _model(name) for name in args.models.split(",") if name}
        evaluator = ReplayEvaluator(space, load_space_evaluations(args.store, space))
        comparison = compare_strategies(
            space, evaluator, models, tpe_seeds=args.seeds, guided=families,
            seeded={"bo": lambda seed: PlainBO(seed=seed)}, early=args.early,
            overlap_charge=args.overlap_charge, host_record=host_record,
            ranking_time_scale=args.ranking_time_scale,
            order=order,
            recorded=None if earlier is None else _earlier_costs(
                earlier, args.charge_row, args.charge_from, space, models))
        frames.append(summary([comparison]))
        print(f"  {space.name}: {comparison.points} points, best "
              f"{comparison.best_s * 1e3:.4g} ms, oracle {comparison.oracle_s:.3f} s "
              f"({time.perf_counter() - began:.0f} s)", file=sys.stderr, flush=True)
    table = pd.concat(frames, ignore_index=True)
    print("load average (1, 5, 15 min) at the end: "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    if args.csv:
        table.to_csv(args.csv, index=False)
    design = table[~table["space"].map(held_out)]
    heldout = table[table["space"].map(held_out) & ~table["space"].map(blind)]
    if len(design):
        print_group("design spaces", design)
    if len(heldout):
        print_group("held-out spaces", heldout)
    for kept_apart, title in (("blind", "blind spaces"),
                              ("blind2", "blind spaces, second set"),
                              ("blind3", "blind spaces, third set"),
                              ("blind4", "blind spaces, fourth set"),
                              ("blind5", "blind spaces, fifth set"),
                              ("blind6", "blind spaces, sixth set"),
                              ("blind7", "blind spaces, seventh set"),
                              ("blind8", "blind spaces, eighth set"),
                              ("blind9", "blind spaces, ninth set"),
                              ("blind10", "blind spaces, tenth set"),
                              ("blind11", "blind spaces, eleventh set"),
                              ("blind12", "blind spaces, twelfth set"),
                              ("blind13", "blind spaces, thirteenth set"),
                              ("blind14", "blind spaces, fourteenth set"),
                              ("blind15", "blind spaces, fifteenth set"),
                              ("blind16", "blind spaces, sixteenth set"),
                              ("blind17", "blind spaces, seventeenth set"),
                              ("blind18", "blind spaces, eighteenth set"),
                              ("blind19", "blind spaces, nineteenth set")):
        group = table[table["space"].map(blind_set) == kept_apart]
        if len(group):
            print_group(title, group)


if __name__ == "__main__":
    main()
