"""Benchmark: why ``model-ei``'s first points miss on a user space, replayed (issue #33).

On the H100's exhaustive measurements of each space (no GPU), prints

1. the non-negative linear fit's order: how many points are within 95 % of the best,
   the measured efficiency (best time / its time) of the model's first three picks
   (``model-ei``'s spread over near-ties) and of the point measured while the model
   ranks (the first structure's base point), and where the best point is in the
   model's order;
2. replays of ``model-ei`` with early start under three policies, against TPE seeds
   0-2 (and the mean of seeds 0-9) at caps of 10, 15 and 20 evaluations: runs and
   seconds to 95 % (``>`` a lower bound: not reached within the cap).

Policies: ``probes`` (live runs 7 and 8: the counting's base point measured while the
model ranks, never told to the correction unless asked for), ``probes+know`` (the
early point taught to the correction, :meth:`workbench.tuning.guided.ModelBO.know`),
``random+know`` (a seeded random early point instead: tried, not adopted).

Costs: every point's recorded costs in the exhaustive store, plus ``--cold`` seconds on
a run's first evaluation (a new process's first code generation and build: live run 8's
first evaluations cost a median 0.31 s more than the later ones of the same run, 36
runs, 0.07-0.72 s); each space's ranking charged ``--ranking`` seconds (default: live
run 8's median on the H100 for the six design spaces, 0.3 s for the others), beside
the early points as a live run does.  The design spaces and the held-out spaces are
printed apart; nothing was chosen on the held-out ones.

Run: ``python benchmarks/first_picks.py [--store sample_data/h100/user-spaces.sqlite]
[--spaces a.py:space,...]`` (the store decompressed first).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DESIGN = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad", "stencil3d_7pt")
#: live run 8 (structure-ranking.md section 11): median ranking seconds on the H100
RANKING_S = {"user_matmul_tiled": 0.30, "user_stencil2d_5pt": 0.41, "user_transpose": 0.19,
             "user_rowsum": 0.28, "user_triad": 0.16, "user_stencil3d_7pt": 0.22}
CAPS = (10, 15, 20)
POLICIES = ("probes", "probes+know", "random+know")


class _Deaf:
    """The wrapped strategy without ``know``: told an early point only when it asks for
    it (the early start of live runs 7 and 8)."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.seed = inner.name, inner.seed
        self.stochastic = inner.stochastic

    def start(self, space, points):
        return self.inner.start(space, points)

    def ask(self):
        return self.inner.ask()

    def tell(self, evaluation):
        self.inner.tell(evaluation)

    @property
    def ranking(self):
        return self.inner.ranking


class _Cold:
    """A replay whose first evaluation costs ``cold`` seconds more (a new process)."""

    def __init__(self, evaluator, cold: float):
        from workbench.tuning.evaluation import Cost

        self.evaluator, self.cold, self.first = evaluator, cold, True
        self.cost = Cost.CODEGEN

    def evaluate(self, point):
        e = self.evaluator.evaluate(point)
        if self.first:
            self.first = False
            costs = dict(e.costs)
            costs[self.cost] = costs.get(self.cost, 0.0) + self.cold
            e = dataclasses.replace(e, costs=costs)
        return e

    @property
    def measured(self):
        return self.evaluator.measured


def _reach(result, best: float) -> tuple[int | None, float]:
    """Runs and seconds to 95 % of ``best`` (None: not within the result's runs)."""
    steps = result.cumulative_cost_s()
    for k, (e, spent) in enumerate(zip(result.evaluations, steps), start=1):
        if e.ok and e.time_s <= best / 0.95:
            return k, spent
    return None, (steps[-1] if steps else 0.0)


def _show(runs: list[tuple[int | None, float]]) -> str:
    mean = statistics.fmean(s for _, s in runs)
    bound = ">" if any(k is None for k, _ in runs) else ""
    return f"{','.join(str(k) if k else '>' for k, _ in runs)} {bound}{mean:.2f}"


def study(ref: str, store: str, model, cold: float, ranking_s: float | None) -> list[str]:
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.early import EarlyStart, early_points
    from workbench.tuning.guided import ModelEI
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.replay import replay
    from workbench.tuning.runner import Budget
    from workbench.tuning.strategies import OptunaTPE

    space = resolve_space(ref)
    evaluations = load_space_evaluations(store, space)
    times = {k: e.time_s for k, e in evaluations.items() if e.ok}
    best = min(times.values())
    points = space.points()
    ranking = rank_space(model, space)
    charged = RANKING_S.get(space.name, 0.3) if ranking_s is None else ranking_s
    ranking = dataclasses.replace(ranking, seconds=charged)

    def eff(label):
        return best / times[label] if label in times else 0.0

    ei = ModelEI(model, "linear-nn", ranking=ranking)
    ei.start(space, points)
    picks = [ei.points[int(i)].label for i in ei.order[:3]]
    order = [ei.points[int(i)].label for i in ei._order(ei.logp)]
    base = early_points(space, points)[0].label
    within = sum(t <= best / 0.95 for t in times.values())
    lines = [f"{space.name}: {len(points)} points, {within} within 95 % of the best "
             f"({best * 1e3:.4g} ms); model-ei's first picks {', '.join(f'{eff(p):.2f}' for p in picks)}; "
             f"the early (base) point {base} {eff(base):.2f}; the best is the model's "
             f"#{order.index(min(times, key=times.get)) + 1}; ranking charged {charged:.2f} s"]

    def run(strategy, cap, seed):
        evaluator = _Cold(ReplayEvaluator(space, evaluations), cold)
        return _reach(replay(space, evaluator, strategy, seed=seed,
                             budget=Budget(evaluations=cap)), best)

    def early(policy, seed):
        inner = ModelEI(model, "linear-nn", ranking=ranking, seed=seed)
        if policy == "probes":
            inner = _Deaf(inner)
        return EarlyStart(inner, clock="replay",
                          order="random" if policy.startswith("random") else "probes",
                          seed=seed)

    for cap in CAPS:
        tpe = [run(OptunaTPE(seed=s), cap, s) for s in range(3)]
        tpe10 = statistics.fmean(run(OptunaTPE(seed=s), cap, s)[1] for s in range(10))
        cells = [f"TPE {_show(tpe)} (10 seeds {tpe10:.2f})"]
        for policy in POLICIES:
            seeds = range(3) if policy.startswith("random") else range(1)
            cells.append(f"{policy} {_show([run(early(policy, s), cap, s) for s in seeds])}")
        lines.append(f"  cap {cap:>2}: " + " | ".join(cells))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="sample_data/h100/user-spaces.sqlite")
    parser.add_argument("--spaces", help="FILE.py:VAR,... (default: the six design spaces "
                                         "and the two heldout_* of examples/spaces)")
    parser.add_argument("--weights", default="sample_data/h100/weights-linear-non-negative.json")
    parser.add_argument("--cold", type=float, default=0.31)
    parser.add_argument("--ranking", type=float, help="seconds charged to every ranking")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.environ.setdefault("XDG_CACHE_HOME", "/tmp/first-picks-cache")
    from workbench.models import load_model

    refs = args.spaces.split(",") if args.spaces else \
        [f"examples/spaces/{s}.py:space" for s in
         DESIGN + ("heldout_conv1d", "heldout_batched_gemm")]
    print(f"# first_picks: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"load average {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print("command: python " + " ".join(sys.argv))
    print(f"store: {args.store}; weights: {args.weights}; cold first evaluation "
          f"+{args.cold:.2f} s")
    model = load_model(ROOT / args.weights)
    design = [r for r in refs if any(f"/{d}.py" in r for d in DESIGN)]
    for title, group in (("design spaces", design),
                         ("held-out spaces", [r for r in refs if r not in design])):
        if group:
            print(f"\n## {title}\n")
            for ref in group:
                print("\n".join(study(ref, args.store, model, args.cold, args.ranking)),
                      flush=True)


if __name__ == "__main__":
    main()
