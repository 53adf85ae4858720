"""Benchmark: ``model-hedge`` variants beside ``model-ei`` and TPE (issue #33; the design
tool of ``structure-ranking.md`` section 20).

Each space is ranked once here (one model, caches fresh, the ranking's wall time on this
machine charged to every replay), then replayed with the early start
(:mod:`workbench.tuning.early`, the replay clock): ``model-ei`` (the earlier headline,
probes while ranking) and ``model-hedge`` with each ``--variants`` setting
(``TOP/PRIOR[/EXPLORE[/EARLY[/TIE]]]``: the model's first picks, its prior wins, the
explorer, ``bo``, ``tpe`` or ``random``, and what is measured while it ranks, ``bo``,
``random`` or ``probes``, and the tie within which the first picks are spread, log
time, ``ModelEI.TIE``; left out: the strategy's defaults), over ``--seeds`` seeds, and
TPE over the same seeds.  Prints per space and per group (design, held-out and each blind
set apart, :func:`space_group`) the time to
95 % in oracle measurements (geometric mean), the ratio to TPE and the median runs.
Run: ``python benchmarks/hedge_study.py --store S.sqlite --spaces a.py:space,...
[--variants 3/1,2/1] [--seeds 10] [--model linear-nn-residency] [--csv OUT]``; the
means of several runs' CSVs per group and over all: ``python benchmarks/hedge_study.py
--means A.csv B.csv ...``.  ``EARLY`` may also be ``bases<N>``: the first N structures'
base points, then ``bo`` (``model-hedge-base``'s order with N = 1); a suffix ``x<M>``
(``bases1x3``) measures at least M early points even if the ranking is done sooner.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _reach95(result, best: float, points: int) -> tuple[float, float]:
    from workbench.tuning.metrics import curve

    c = curve(result, best, "overlap")
    return c.reach(0.95) or (points, float(c.cost_s[-1]))


def _tied(strategy, tie: float | None):
    """``strategy`` with its first picks spread over predictions within ``tie`` (log
    time) of the model's best instead of ``ModelEI.TIE`` (None: unchanged)."""
    if tie is not None:
        strategy.TIE = tie
    return strategy


def study_space(ref: str, store: str, model_name: str, variants, seeds: int) -> list[dict]:
    import numpy as np

    from strategy_study import _model
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.early import EarlyStart
    from workbench.tuning.guided import ModelEI
    from workbench.tuning.hedge import ModelHedge
    from workbench.tuning.metrics import optimum, random_reach
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.replay import replay
    from workbench.tuning.strategies import OptunaTPE

    space = resolve_space(ref)
    model = _model(model_name)
    evaluator = ReplayEvaluator(space, load_space_evaluations(store, space))
    measured = evaluator.measured
    best = optimum(measured)
    oracle = min((e for e in measured if e.ok), key=lambda e: e.time_s).cost_s
    n = len(measured)
    ranking = rank_space(model, space, space.points())
    rows = []

    def add(name, make, runs, order=None):
        bases = least = None
        if order and "x" in order:     # ...x<M>: at least M early points
            order, least = order.split("x")[0], int(order.split("x")[1])
        if order and order.startswith("bases"):   # bases<N>: N structures' base points
            order, bases = "bases", int(order[5:] or 1)
        reach = [_reach95(replay(space, evaluator, EarlyStart(make(s), clock="replay",
                                                               order=order, bases=bases,
                                                               least=least)
                                 if make is not None else OptunaTPE(seed=s), seed=s,
                                 until=0.95), best, n) for s in range(runs)]
        rows.append({"space": space.name, "strategy": name, "points": n,
                     "ranking_s": ranking.seconds, "oracle_s": oracle,
                     "runs_to_95": float(np.mean([r[0] for r in reach])),
                     "oracle_x_95": float(np.mean([r[1] for r in reach])) / oracle})

    add(f"model-ei:{model_name}+early",
        lambda s: ModelEI(model, model_name, seed=s, ranking=ranking), 1)
    for top, prior, explore, early, tie in variants:
        tag = f"/{tie:g}" if tie is not None else ""
        add(f"model-hedge[{top}/{prior:g}/{explore}/{early}{tag}]:{model_name}+early",
            lambda s, top=top, prior=prior, explore=explore, tie=tie: _tied(ModelHedge(
                model, model_name, seed=s, top=top, model_prior=prior, explore=explore,
                ranking=ranking), tie),
            seeds, early)
    add("tpe", None, seeds)
    runs, seconds = random_reach(measured, 0.95)
    rows.append({"space": space.name, "strategy": "random (expected)", "points": n,
                 "ranking_s": ranking.seconds, "oracle_s": oracle, "runs_to_95": runs,
                 "oracle_x_95": seconds / oracle})
    tpe = rows[-2]["oracle_x_95"]
    for row in rows:
        row["vs_tpe"] = tpe / row["oracle_x_95"]
    return rows


def space_group(space_name: str) -> str:
    """The group a space is summarised in: ``design``, ``held-out``, or its blind set
    (``blind``, ``blind2`` to ``blind19``), never mixed (``strategy_study.py``'s
    groups)."""
    from strategy_study import blind_set, held_out

    return blind_set(space_name) or ("held-out" if held_out(space_name) else "design")


def older_or_blind(space_name: str) -> str:
    """``--means``' groups: ``older`` (design and held-out) or the blind set."""
    from strategy_study import blind_set

    return blind_set(space_name) or "older"


def across_spaces(table, group_of=space_group, everything: bool = False) -> list[str]:
    """Per group of spaces (``group_of``, default :func:`space_group`; ``everything``:
    all spaces as one more group) and strategy: the time to 95 % in oracle
    measurements (geometric mean), the ratio to TPE and the median runs."""
    from workbench.tuning.metrics import geometric_mean

    groups = list(table.groupby(table["space"].map(group_of), sort=False))
    if everything:
        groups.append(("all", table))
    lines = []
    for group, spaces in groups:
        lines.append(f"\n{group} spaces ({spaces['space'].nunique()}): oracle x95 "
                     "(geometric mean), vs TPE, median runs95")
        for name, part in spaces.groupby("strategy", sort=False):
            lines.append(f"{name:<44} {geometric_mean(part['oracle_x_95']):6.2f} "
                         f"{geometric_mean(part['vs_tpe']):6.2f}x "
                         f"{part['runs_to_95'].median():5.1f}")
    return lines


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="hedge-study-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store")
    parser.add_argument("--spaces")
    parser.add_argument("--means", nargs="+", metavar="CSV",
                        help="no replay: the means of earlier runs' --csv files, per "
                             "group (older, blind, blind2) and over all their spaces")
    parser.add_argument("--variants", default="3/1")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--model", default="linear-nn-residency")
    parser.add_argument("--csv")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import pandas as pd

    if args.means:
        table = pd.concat([pd.read_csv(p) for p in args.means], ignore_index=True)
        print("means of " + ", ".join(args.means))
        print("\n".join(across_spaces(table, older_or_blind, everything=True)))
        return
    if not (args.store and args.spaces):
        parser.error("--store and --spaces are needed (or --means)")
    from strategy_study import _model, warm_up

    variants = [(int(v[0]), float(v[1]), v[2] if len(v) > 2 else None,
                 v[3] if len(v) > 3 else None, float(v[4]) if len(v) > 4 else None)
                for v in (v.split("/") for v in args.variants.split(","))]
    print(f"# hedge study {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    print("command: python " + " ".join(sys.argv))
    warm_up({args.model: _model(args.model)})
    rows = []
    for ref in args.spaces.split(","):
        began = time.perf_counter()
        rows += study_space(ref, args.store, args.model, variants, args.seeds)
        print(f"  {ref.split('/')[-1]}: {time.perf_counter() - began:.0f} s",
              file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    if args.csv:
        table.to_csv(args.csv, index=False)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print("\n".join(across_spaces(table)))
    print("load at the end: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
