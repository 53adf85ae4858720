"""Benchmark: where the model's first picks land with its exact ties broken by loop
overhead (issue #33, ``structure-ranking.md`` section 34; :mod:`workbench.tuning.loop_ties`).

Per space (ranked once with ``linear-nn-residency``, caches fresh): the size of the
exact tie at the top of the model's order, the efficiency (best / its time) of the
model's first pick and of the best of ``model-hedge-base``'s three spread first picks,
in the model's order and with the tie taken fewest loop iterations first
(``model-hedge-loops``); then the count of first picks within 95 % and their geometric
mean, for each tie tolerance ``--exact`` (log predictions within it are one; the
shipped :data:`~workbench.tuning.loop_ties.EXACT` first; at most ``model-ei``'s ``TIE``,
0.02, the near-tie its first picks are spread over).

Run: ``python benchmarks/loop_ties.py --store S --spaces F.py:space,... [--exact 1e-6,0.005,0.02]``
(several ``--store``/``--spaces`` pairs as ``STORE=SPACES`` arguments instead).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def picks(strategy_cls, model, ranking, space, points, exact: float):
    import workbench.tuning.loop_ties as loop_ties

    loop_ties.EXACT = exact
    strategy = strategy_cls(model, "m", seed=0, ranking=ranking)
    strategy.start(space, points)
    return [points[int(i)] for i in strategy.order[:3]]


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="loop-ties-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="*", help="STORE=F.py:space,...")
    parser.add_argument("--store")
    parser.add_argument("--spaces")
    parser.add_argument("--exact", default="1e-6,0.005,0.02")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from strategy_study import _model, warm_up
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.hedge import ModelHedgeBase
    from workbench.tuning.loop_ties import EXACT, ModelHedgeLoops
    from workbench.tuning.ranking import rank_space

    pairs = [p.split("=", 1) for p in args.pairs]
    if args.store:
        pairs.append((args.store, args.spaces))
    tolerances = [EXACT] + [float(x) for x in args.exact.split(",") if float(x) != EXACT]
    print(f"# loop ties: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.2f}; model linear-nn-residency")
    model = _model("linear-nn-residency")
    warm_up({"m": model})
    first = {t: [] for t in tolerances}
    best3 = {t: [] for t in tolerances}
    base1, base3 = [], []
    print(f"{'space':26s} {'tie':>4s} {'first':>6s} {'loops':>6s} {'best3':>6s} {'loops3':>6s}")
    for store, refs in pairs:
        for ref in refs.split(","):
            space = resolve_space(ref)
            times = {k: e.time_s for k, e in load_space_evaluations(store, space).items()
                     if e.ok}
            points = space.points()
            ranking = rank_space(model, space, points)
            best = min(times.values())

            def eff(p):
                return best / times[p.label] if p.label in times else 0.0

            plain = picks(ModelHedgeBase, model, ranking, space, points, EXACT)
            base1.append(eff(plain[0]))
            base3.append(max(map(eff, plain)))
            logp = np.log([float(t) for t in ranking.predicted_s])
            tie = int(np.sum(np.abs(logp - np.nanmin(logp)) <= EXACT))
            row = None
            for t in tolerances:
                new = picks(ModelHedgeLoops, model, ranking, space, points, t)
                first[t].append(eff(new[0]))
                best3[t].append(max(map(eff, new)))
                row = row or (eff(new[0]), max(map(eff, new)))
            print(f"{space.name:26s} {tie:4d} {base1[-1]:6.2f} {row[0]:6.2f} "
                  f"{base3[-1]:6.2f} {row[1]:6.2f}", flush=True)

    def summary(values) -> str:
        values = np.maximum(np.array(values), 1e-9)
        return (f"{int(np.sum(values >= 0.95))} of {len(values)} within 95 %, geometric "
                f"mean {np.exp(np.mean(np.log(values))):.3f}")

    print(f"model-hedge-base: first pick {summary(base1)}; best of three {summary(base3)}")
    for t in tolerances:
        print(f"model-hedge-loops, ties within {t:g}: first pick {summary(first[t])}; "
              f"best of three {summary(best3[t])}")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
