"""Benchmark: a cheap model's order with its top K points re-ranked by a better model,
and what the re-ranking costs (issue #33, ``structure-ranking.md`` section 43).

For each space: the cheap model ranks the whole space from scratch (fresh disk cache of
counts, the space loaded anew); then the second model predicts only the cheap model's
first ``K`` points (the first ``--ks`` value's points timed alone, then the rest up to
the largest ``K`` timed apart), counts cold.  Printed per space and per ``K``: the
first pick's fraction of the best, the best of the first three picks, and the runs to
95 % measuring in the order (the re-ranked K first, then the cheap order), against the
cheap order alone; and the seconds (wall and processor) of the cheap ranking and of the
re-ranking, with the machine's load.  The last lines give geometric means over spaces.

Run: ``python benchmarks/rerank_orders.py --pairs STORE=FILE.py:space,...;STORE=...
[--cheap linear-nn-residency] [--better chains38+residency] [--ks 6,3,10]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _metrics(measured: np.ndarray, order: np.ndarray) -> tuple[float, float, int]:
    fraction = measured.min() / measured[order]
    return (float(fraction[0]), float(fraction[:3].max()),
            int(np.argmax(fraction >= 0.95)) + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--cheap", default="linear-nn-residency")
    parser.add_argument("--better", default="chains38+residency")
    parser.add_argument("--ks", default="6,3,10")
    parser.add_argument("--refuse", default="blind19")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]      # the first is timed alone
    from model_orders_all import model_named, store_space_pairs

    jobs = store_space_pairs(parser, args.pairs, args.refuse)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="rerank-orders-")
    warnings.filterwarnings("ignore")

    from workbench.models.candidate_features import forget_counts, rank_jobs
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.costs import timed
    from workbench.tuning.metrics import geometric_mean
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.rerank import rerank_order

    cheap_model, better_model = model_named(args.cheap), model_named(args.better)
    print(f"# re-ranked orders: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"host {platform.node()}, {os.cpu_count()} cores, {rank_jobs()} counting "
          f"processes, python {platform.python_version()}")
    print("command: python " + " ".join(sys.argv))
    print(f"{'space':<26} {'pts':>4} {'load':>5} {'cheap s':>7} {'cpu':>5} "
          f"{'rerank s (K=' + str(ks[0]) + ', +rest)':>24} "
          + " ".join(f"{'K=' + str(k) + ' first/best3/runs95':>24}" for k in [0] + sorted(ks)))
    rows = []
    for store, ref in jobs:
        os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
        space = resolve_space(ref)
        forget_counts(space)
        evaluations = load_space_evaluations(Path(store), space)
        load = os.getloadavg()[0]
        ranking, spent = timed(lambda: rank_space(cheap_model, space))
        measured = np.array([evaluations[c.point.label].time_s
                             if c.point.label in evaluations
                             and evaluations[c.point.label].ok else np.inf
                             for c in ranking.candidates])
        order = np.asarray(ranking.order)
        first = [ranking.candidates[int(i)].point for i in order[:ks[0]]]
        rest = [ranking.candidates[int(i)].point for i in order[ks[0]:max(ks)]]
        part1, spent1 = timed(lambda: rank_space(better_model, space, first))
        part2, spent2 = timed(lambda: rank_space(better_model, space, rest)) \
            if rest else (None, None)
        better = {c.point.label: float(t) for part in (part1, part2) if part is not None
                  for c, t in zip(part.candidates, part.predicted_s)}
        labels = [c.point.label for c in ranking.candidates]
        row = dict(space=Path(ref.split(":")[0]).stem, load=load, cheap_s=spent.wall_s,
                   rerank_s=spent1.wall_s, rerank_rest_s=spent2.wall_s if spent2 else 0.0)
        cells = []
        for k in [0] + sorted(ks):
            new = rerank_order(order, labels, better, k)
            row[f"k{k}"] = _metrics(measured, new)
            cells.append("{:.2f}/{:.2f}/{:d}".format(*row[f"k{k}"]))
        rows.append(row)
        print(f"{row['space']:<26} {len(labels):>4} {load:>5.1f} {spent.wall_s:>7.2f} "
              f"{spent.cpu_s:>5.2f} {spent1.wall_s:>12.2f} "
              f"{(spent2.wall_s if spent2 else 0.0):>11.2f} "
              + " ".join(f"{c:>24}" for c in cells), flush=True)
    print(f"\n{'K':>3} {'first gm':>8} {'best3 gm':>8} {'runs95 gm':>9} {'first>=.95':>10}")
    for k in [0] + sorted(ks):
        print(f"{k:>3} {geometric_mean([r[f'k{k}'][0] for r in rows]):>8.3f} "
              f"{geometric_mean([r[f'k{k}'][1] for r in rows]):>8.3f} "
              f"{geometric_mean([r[f'k{k}'][2] for r in rows]):>9.2f} "
              f"{sum(r[f'k{k}'][0] >= 0.95 for r in rows):>10}")
    print(f"cheap ranking s (gm) {geometric_mean([r['cheap_s'] for r in rows]):.2f}; "
          f"re-ranking K={ks[0]} s (gm) {geometric_mean([r['rerank_s'] for r in rows]):.2f}")


if __name__ == "__main__":
    main()
