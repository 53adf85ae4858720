"""Check: a ranking streamed structure by structure (``model-hedge-stream``,
:mod:`workbench.tuning.stream`) predicts every point exactly as the whole ranking does,
and when each structure's predictions arrive (issue #33, ``structure-ranking.md``
section 38).

Per space: the whole ranking and the streamed one, each on a fresh copy of the space
with counts cold (no disk cache of counts, loopy's caches emptied), in one process on
this machine's counting processes; the points whose predictions differ (must be 0),
each structure in the streamed order (flags on, planned probes, points) and the
seconds its predictions were ready, and both rankings' wall and processor seconds.
With ``--stores A.sqlite,B.sqlite`` (exhaustive measurements): each structure's
best-predicted point (what ``model-hedge-stream`` picks when the structure arrives, if
it is a new best), its measured share of the space's best and its measuring cost.
Run: ``python benchmarks/stream_check.py [--model linear-nn-residency] [--stores ...]
--spaces FILE.py:space,...`` (and ranking.py's groups: examples, blind, blind2, ..., blind6).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

def _holds(store: str, space) -> bool:
    from workbench.errors import TuningError
    from workbench.tuning import load_space_evaluations

    try:
        return bool(load_space_evaluations(store, space))
    except TuningError:
        return False


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="stream-check-")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="linear-nn-residency")
    parser.add_argument("--spaces", required=True)
    parser.add_argument("--stores", help="exhaustive measurements, comma-separated")
    args = parser.parse_args()
    import numpy as np
    from ranking import expand_spaces

    from workbench.measure.provenance import library_versions
    from workbench.models import load_model
    from workbench.models.candidate_features import rank_jobs
    from workbench.models.counting_pool import fork_counting_pool
    from workbench.models.residency_penalty import ResidencyPenalty
    from workbench.tuning import resolve_space
    from workbench.tuning.costs import timed
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.stream import _flags_on, cold_counts, rank_streamed, \
        structure_order

    weights = ROOT / "sample_data/h100/weights-linear-non-negative.json"
    model = load_model(weights)
    if args.model == "linear-nn-residency":
        model = ResidencyPenalty(model)
    elif args.model != "linear-nn":
        raise SystemExit("--model: linear-nn or linear-nn-residency")
    versions = library_versions()
    print(f"# stream check: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host "
          f"{platform.node()}, {os.cpu_count()} cores, {rank_jobs()} counting processes, "
          f"model {args.model}; "
          + ", ".join(f"{k} {versions[k]}" for k in ("python", "loopy", "islpy")
                      if k in versions))
    print("command: python " + " ".join(sys.argv))
    mismatches = 0
    for ref in expand_spaces(args.spaces).split(","):
        space = resolve_space(ref)
        load = os.getloadavg()[0]
        results = {}
        for how in ("whole", "streamed"):
            fresh = dataclasses.replace(space)
            points = fresh.points()
            with cold_counts():
                pool = fork_counting_pool([fresh])
                try:
                    if how == "whole":
                        ranking, spent = timed(lambda: rank_space(model, fresh, points))
                        results[how] = ({c.point.label: float(t) for c, t in
                                         zip(ranking.candidates, ranking.predicted_s)},
                                        spent, None)
                    else:
                        streamed, spent = timed(lambda: rank_streamed(model, fresh, points))
                        results[how] = ({label: t for a in streamed.arrivals
                                         for label, t in zip(a.labels, a.predicted_s)},
                                        spent, streamed)
                finally:
                    if pool is not None:
                        pool.close()
        whole, streamed = results["whole"][0], results["streamed"][0]
        bad = [label for label in whole
               if not (whole[label] == streamed.get(label) or
                       (math.isnan(whole[label]) and math.isnan(streamed.get(label, 0.0))))]
        mismatches += len(bad)
        arrivals = results["streamed"][2].arrivals
        measured = {}
        if args.stores:
            from workbench.tuning import load_space_evaluations

            measured = load_space_evaluations(
                [p for p in args.stores.split(",") if _holds(p, space)], space)
            top = min((e for e in measured.values() if e.ok), key=lambda e: e.time_s)
            space_best, best_cost = top.time_s, top.cost_s
        order = structure_order(space, space.points())
        parts = []
        for (key, members), arrival in zip(order, arrivals):
            label = ",".join(f"{k}={v}" for k, v in key) or "(one)"
            best = np.nanmin(np.array(arrival.predicted_s, dtype=float))
            line = (f"{label} [{_flags_on(key, space)} on, {len(members)} pts, best "
                    f"{best * 1e3:.4g} ms] {arrival.done_s:.2f} s")
            if measured:
                pick = arrival.labels[int(np.nanargmin(np.array(arrival.predicted_s,
                                                                dtype=float)))]
                e = measured[pick]
                line += (f"; pick {pick}: {space_best / e.time_s if e.ok else 0:.2f} of the "
                         f"best, costs {e.cost_s:.2f} s (the best point {best_cost:.2f} s)")
            parts.append(line)
        w, s = results["whole"][1], results["streamed"][1]
        print(f"{space.name}: {len(whole)} points, {len(bad)} mismatching; whole "
              f"{w.wall_s:.2f} s ({w.cpu_s:.2f} CPU s), streamed {s.wall_s:.2f} s "
              f"({s.cpu_s:.2f} CPU s); load {load:.1f}")
        for part in parts:
            print("    " + part)
        sys.stdout.flush()
    print(f"total mismatching predictions: {mismatches}")


if __name__ == "__main__":
    main()
