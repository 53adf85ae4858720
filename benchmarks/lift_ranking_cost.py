"""Benchmark: where a first session's ranking of a Lift rewrite space spends its time.

For one space at one input, every cost of a cold ranking (no disk cache, nothing
computed before in the process) in processor seconds, one process:

* the training set: the other programs' rows of the shipped sample file (their IR
  features precomputed, the same for every user) and the fit of each model on them;
* the explored space's own work: the IR features of its structures, by phase (the
  template built, loopy's preprocessing, the access counts, the linearization and
  the loops and guards), and each model's prediction;
* ``--roofline K``: the roofline (Ernst et al.) on every K-th point of the space, the
  per-structure counts included.

Run: ``python benchmarks/lift_ranking_cost.py [--space lift_rewrites_jacobi5]
[--n 2048] [--roofline 15]``.  Processor seconds, because the 2-core machine is
shared and its load (printed) inflates elapsed seconds.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _cpu(work):
    began = time.process_time()
    out = work()
    return out, time.process_time() - began


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--space", default="lift_rewrites_jacobi5")
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--roofline", type=int, metavar="K",
                        help="also rank every K-th point with the roofline")
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="lift-ranking-cost-")
    os.environ["WORKBENCH_RANKING_CACHE"] = "0"
    os.environ["WORKBENCH_RANK_JOBS"] = "1"
    os.environ["WORKBENCH_COUNT_CACHE"] = "off"
    warnings.filterwarnings("ignore")

    import workbench.models.ir_features.extract as extract
    from workbench.models.ir_features import BoostedConfig, KNNConfig
    from workbench.models.ir_features.features import FEATURE_ORDER
    from workbench.models.ir_features.samples import FEATURES
    from workbench.tuning.catalog import LIFT_REWRITE_SPACES, get_space
    from workbench.tuning.ir_training import training_frame

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", one process, load average {_load()}")
    space = get_space(args.space, n=args.n)
    points = space.points()
    structures = sorted({space.structure_of(p) for p in points}, key=repr)
    print(f"{args.space} at n={args.n}: {len(points)} points, {len(structures)} structures")
    rows = []

    samples = ROOT / "sample_data" / "h100" / "lift-rewrites-samples.csv.xz"
    frame, spent = _cpu(lambda: training_frame([samples], args.space,
                                               LIFT_REWRITE_SPACES))
    rows.append(("training set: read (features precomputed)", spent))
    knn, spent = _cpu(lambda: KNNConfig().fit(frame))
    rows.append(("training set: knn fit (scaling, PCA)", spent))
    xgb, spent = _cpu(lambda: BoostedConfig().fit(frame))
    rows.append(("training set: xgb fit (300 trees)", spent))

    phases: dict[str, float] = defaultdict(float)
    wrapped = {"prepare": "loopy preprocessing", "_accesses": "access counts",
               "_grid": "launch grid", "control_counts": "loops and guards"}
    originals = {name: getattr(extract, name) for name in wrapped}

    def timed_phase(name):
        def run(*a, **k):
            out, spent = _cpu(lambda: originals[name](*a, **k))
            phases[wrapped[name]] += spent
            return out
        return run

    for name in wrapped:
        setattr(extract, name, timed_phase(name))
    linearize = extract.lp.get_one_linearized_kernel

    def timed_linearize(*a, **k):
        out, spent = _cpu(lambda: linearize(*a, **k))
        phases["linearization"] += spent
        return out
    extract.lp.get_one_linearized_kernel = timed_linearize
    try:
        from workbench.models.ir_features.space import space_ir_features

        features, spent = _cpu(lambda: space_ir_features(space, points))
        build = 0.0
        for structure in structures:     # the templates again, to time them alone
            fresh = get_space(args.space, n=args.n)
            build += _cpu(lambda: fresh.template_for(structure))[1]
    finally:
        for name, original in originals.items():
            setattr(extract, name, original)
        extract.lp.get_one_linearized_kernel = linearize
    rows.append(("explored space: IR features of its structures", spent))
    rows.append(("    of which: templates built", build))
    for phase, seconds in phases.items():
        rows.append((f"    of which: {phase}", seconds))
    _, spent = _cpu(lambda: knn.predict(features))
    rows.append(("explored space: knn prediction", spent))
    _, spent = _cpu(lambda: xgb.predict(features))
    rows.append(("explored space: xgb prediction", spent))
    assert list(features.columns) == [f.value for f in FEATURE_ORDER] == list(FEATURES)

    if args.roofline:
        from workbench.models import get_family
        from workbench.tuning.ranking import rank_space

        model = get_family("roofline").ready(device_model="h100")
        every = points[::args.roofline]
        ranking, spent = _cpu(lambda: rank_space(model, space, every))
        rows.append((f"roofline: {len(every)} points (every {args.roofline}th), their "
                     f"structures' counts included", spent))
        print(f"roofline prediction of the first point: "
              f"{float(ranking.predicted_s[0]).hex()}")

    width = max(len(r[0]) for r in rows)
    print(f"\n{'processor seconds':<{width}}  cpu s")
    for label, seconds in rows:
        print(f"{label:<{width}}  {seconds:5.2f}")
    print(f"\nload average {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
