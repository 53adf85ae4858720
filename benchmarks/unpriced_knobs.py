"""Benchmark: the knobs the ranking model does not price (issue #33, ``structure-ranking.md``
section 34).

Per space (ranked once with ``linear-nn-residency``, caches fresh), from its exhaustive
measurements:

* unrolling: for a space with a knob named ``unroll``, the pairs of points that differ only
  in it (its smallest against its largest value): the geometric mean of measured and of
  predicted time, more unrolled over less, and the share of pairs where the more unrolled
  ran faster;
* group size: the efficiency (best / its time) of the model's first pick with the
  residency penalty at strength 0, 0.25, 0.5, 1 (shipped) and 2, on every point or only on
  points that declare local memory; then, per strength, the first picks within 95 % and
  their geometric mean over the spaces.

Run: ``python benchmarks/unpriced_knobs.py STORE=F.py:space,... [STORE=...]``.
"""

from __future__ import annotations

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

STRENGTHS = (0.0, 0.25, 0.5, 1.0, 2.0)


def unroll_pairs(points, times, predicted):
    """(pairs, measured ratio, predicted ratio, share more-unrolled faster) or None."""
    if "unroll" not in points[0].as_dict():
        return None
    values = sorted({p["unroll"] for p in points})
    lo, hi = values[0], values[-1]
    rest = {}
    for p in points:
        key = tuple((k, v) for k, v in p.as_dict().items() if k != "unroll")
        rest.setdefault(key, {})[p["unroll"]] = p.label
    pairs = [(d[lo], d[hi]) for d in rest.values() if lo in d and hi in d
             and d[lo] in times and d[hi] in times]
    measured = np.log([times[b] / times[a] for a, b in pairs])
    model = np.log([predicted[b] / predicted[a] for a, b in pairs])
    return len(pairs), float(np.exp(measured.mean())), float(np.exp(model.mean())), \
        float(np.mean(measured < 0))


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="unpriced-knobs-")
    warnings.filterwarnings("ignore")
    from strategy_study import _model, warm_up
    from workbench.models.residency_penalty import residency_factors
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.ranking import rank_space

    pairs = [a.split("=", 1) for a in sys.argv[1:]]
    if not pairs:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    print(f"# unpriced knobs: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load "
          f"{os.getloadavg()[0]:.2f}; model linear-nn-residency")
    model = _model("linear-nn-residency")
    warm_up({"m": model})
    firsts = {(s, local): [] for s in STRENGTHS for local in (False, True)}
    unrolled = []
    for store, refs in pairs:
        for ref in refs.split(","):
            space = resolve_space(ref)
            points = space.points()
            times = {k: e.time_s for k, e in load_space_evaluations(store, space).items()
                     if e.ok}
            ranking = rank_space(model, space, points)
            predicted = {c.point.label: float(t)
                         for c, t in zip(ranking.candidates, ranking.predicted_s)}
            factor, resident = residency_factors(ranking.candidates, model.device_name,
                                                 model.strength)
            best = min(times.values())
            labels = [c.point.label for c in ranking.candidates]
            pred = np.array([predicted[x] for x in labels])
            local = np.array([float(space.local_bytes(c.point)) > 0
                              for c in ranking.candidates])
            ok = np.isfinite(pred) & (resident > 0) & np.array([x in times for x in labels])
            plain = pred / factor
            row = []
            for s in STRENGTHS:
                for only_local in (False, True):
                    pen = 1 + s / np.where(resident > 0, resident, 1)
                    if only_local:
                        pen = np.where(local, pen, 1.0)
                    scored = np.where(ok, plain * pen, np.inf)
                    eff = best / times[labels[int(np.argmin(scored))]]
                    firsts[(s, only_local)].append(eff)
                    if not only_local:
                        row.append(f"{eff:.2f}")
            line = f"{space.name:26s} first pick at strength {'/'.join(map(str, STRENGTHS))}: " \
                   + " ".join(row)
            u = unroll_pairs(points, times, predicted)
            if u is not None:
                unrolled.append(u)
                line += (f"; unroll pairs {u[0]}: measured {u[1]:.3f}, predicted {u[2]:.3f}, "
                         f"more unrolled faster in {u[3]:.2f}")
            print(line, flush=True)
    print(f"unrolling: {len(unrolled)} spaces; more unrolled faster (geometric mean below 1) "
          f"in {sum(u[1] < 1 for u in unrolled)}; over them "
          f"{np.exp(np.mean(np.log([u[1] for u in unrolled]))):.3f} measured, "
          f"{np.exp(np.mean(np.log([u[2] for u in unrolled]))):.3f} predicted")
    for (s, only_local), effs in firsts.items():
        effs = np.array(effs)
        print(f"residency strength {s:g}{' (local memory only)' if only_local else ''}: first "
              f"pick within 95 % on {int(np.sum(effs >= 0.95))} of {len(effs)}, geometric "
              f"mean {np.exp(np.mean(np.log(effs))):.3f}")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
