"""Benchmark: where the oracle measurements go, per space, for ``model-hedge-base`` and
TPE (issue #33, ``structure-ranking.md`` section 28).

Each space is ranked once here (one model, caches fresh, its wall time on this machine
charged to every replay, as ``hedge_study.py`` does; timed beside the host's share of
measuring the early points unless ``--overlap-charge alone``: section 34), then replayed with the early start
(the replay clock) over ``--seeds`` seeds.  Prints per space:

* ``share95``: the share of points within 95 % of the best (a random draw's chance);
  ``R/orc``: the ranking's wall time in measurements of the best point (its charge);
* ``base``: the efficiency (best / its time) of the first structure's base point;
  ``flat``: the share of points the model predicts within 95 % of its own best
  (knowable before measuring); ``pick1..3``: the efficiencies of the model's three
  spread first picks; ``rank95``: where the first point within 95 % sits in the
  model's order (1: its first pick);
* for each strategy: oracle measurements to 95 % (mean of seeds), runs, and how the
  runs to 95 % split into points measured while ranking (``early``), the model's first
  picks (``top``), its later picks (``model``) and the explorer's (``explore``), with
  who found the point that reached 95 %.

Run: ``python benchmarks/strategy_diagnosis.py --store S.sqlite --spaces a.py:space,...
[--seeds 10] [--model linear-nn-residency] [--strategies model-hedge-base,...]
[--csv OUT]``; ``model-hedge-check@C`` is ``model-hedge-check`` with its
``CONCORDANCE`` at C.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _logged(early_start):
    """An :class:`EarlyStart` that notes which source chose each point it asks for."""
    from workbench.tuning.early import EarlyStart

    class Logged(EarlyStart):
        def ask(self):
            inner = self.inner
            top = None
            if hasattr(inner, "measured"):
                top = len(inner.measured.keys() - inner.known) < inner.top
            point = super().ask()
            if self._asked_early:
                self.log.append("early")
            else:
                asked = getattr(inner, "_asked", None)
                source = asked.value if asked is not None else "model"
                self.log.append("top" if (top and source == "model") else source)
            return point

    logged = Logged.__new__(Logged)
    logged.__dict__.update(early_start.__dict__)
    logged.log = []
    return logged


def _strategy_class(name: str):
    """A registered strategy by name; ``model-hedge-check@C`` is ``model-hedge-check``
    with its :attr:`~workbench.tuning.hedge.ModelHedgeCheck.CONCORDANCE` set to C (the
    sensitivity of section 28)."""
    from workbench.tuning.guided import GUIDED

    family, _, concordance = name.partition("@")
    cls = GUIDED[family]
    if concordance:
        cls = type(f"{cls.__name__}At{concordance}", (cls,),
                   {"CONCORDANCE": float(concordance), "family": name})
    return cls


def diagnose_space(ref: str, store: str, model_name: str, strategies, seeds: int,
                   overlap_charge: str = "beside") -> list[dict]:
    import numpy as np

    from strategy_study import _model
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.early import EarlyStart, structure_probes
    from workbench.tuning.guided import GUIDED
    from workbench.tuning.metrics import curve, optimum, random_reach
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.replay import replay
    from workbench.tuning.strategies import OptunaTPE

    space = resolve_space(ref)
    model = _model(model_name)
    evaluator = ReplayEvaluator(space, load_space_evaluations(store, space))
    measured = evaluator.measured
    best = optimum(measured)
    oracle = min((e for e in measured if e.ok), key=lambda e: e.time_s).cost_s
    points = space.points()
    n = len(points)
    if overlap_charge == "beside":   # timed as strategy_study.py's --early rows are
        from workbench.tuning.beside import ranking_beside
        from workbench.tuning.early import BASES, bases_then_draws

        with ranking_beside(space, bases_then_draws(space, points, BASES, 0),
                            evaluator.evaluations):
            ranking = rank_space(model, space, points)
    else:
        ranking = rank_space(model, space, points)
    times = {e.point.label: e.time_s for e in measured if e.ok}
    eff = {p.label: best / times[p.label] if p.label in times else 0.0 for p in points}
    base = structure_probes(space, points)[0][0]
    # the model's order and its spread first picks (model-ei's)
    probe = GUIDED["model-ei"](model, model_name, ranking=ranking)
    probe.start(space, points)
    order = [points[int(i)] for i in probe.order]
    logp = probe.logp
    flat = float(np.mean(logp <= np.nanmin(logp) + np.log(1 / 0.95)))
    rank95 = next(k for k, p in enumerate(order, 1) if eff[p.label] >= 0.95)
    facts = {"space": space.name, "points": n, "share95": sum(v >= 0.95 for v in eff.values()) / n,
             "R/orc": ranking.seconds / oracle, "ranking_s": ranking.seconds, "oracle_s": oracle,
             "base": eff[base.label], "flat": flat,
             "pick1": eff[order[0].label], "pick2": eff[order[1].label],
             "pick3": eff[order[2].label], "rank95": rank95}
    rows = []
    for name in ["tpe", *strategies]:
        reach, splits, finders = [], collections.Counter(), collections.Counter()
        for s in range(seeds):
            if name == "tpe":
                strategy = OptunaTPE(seed=s)
            else:
                strategy = _logged(EarlyStart(_strategy_class(name)(
                    model, model_name, seed=s, ranking=ranking), clock="replay"))
            result = replay(space, evaluator, strategy, seed=s, until=0.95)
            c = curve(result, best, "overlap")
            runs, cost = c.reach(0.95) or (n, float(c.cost_s[-1]))
            reach.append((runs, cost))
            if name != "tpe":
                log = strategy.log[:runs]
                splits.update(log)
                finders[log[-1]] += 1
        row = dict(facts, strategy=name,
                   oracle_x_95=float(np.mean([r[1] for r in reach])) / oracle,
                   runs_to_95=float(np.mean([r[0] for r in reach])))
        for source in ("early", "top", "model", "explorer"):
            row[source] = splits[source] / seeds
        row["found_by"] = " ".join(f"{k}{v}" for k, v in finders.most_common())
        rows.append(row)
    runs, seconds = random_reach(measured, 0.95)
    rows.append(dict(facts, strategy="random (expected)", oracle_x_95=seconds / oracle,
                     runs_to_95=runs))
    return rows


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="strategy-diagnosis-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--spaces", required=True)
    parser.add_argument("--strategies", default="model-hedge-base")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--model", default="linear-nn-residency")
    parser.add_argument("--csv")
    parser.add_argument("--overlap-charge", choices=("alone", "beside"), default="beside",
                        help="time the ranking alone or beside the host's share of "
                             "measuring the early points (workbench.tuning.beside)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import pandas as pd

    from strategy_study import _model, warm_up

    print(f"# strategy diagnosis {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    print("command: python " + " ".join(sys.argv))
    print(f"ranking timed: {args.overlap_charge}")
    warm_up({args.model: _model(args.model)})
    rows = []
    for ref in args.spaces.split(","):
        began = time.perf_counter()
        rows += diagnose_space(ref, args.store, args.model, args.strategies.split(","),
                               args.seeds, args.overlap_charge)
        print(f"  {ref.split('/')[-1]}: {time.perf_counter() - began:.0f} s",
              file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    if args.csv:
        table.to_csv(args.csv, index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print("load at the end: " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
