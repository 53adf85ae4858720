"""Check: a model's features counted point by point over part of a factory space, and
at both granularities (issue #33: why a structure's counts are no sum of monomials).

Ranks the points of ``--space`` that ``--where`` keeps (a Python expression in ``p``,
the point) with ``--weights``, every point built and counted (no structure fit, no
disk cache), and prints, per point, the features named in ``--features`` (substrings
of the feature names, e.g. ``local_float32_store``) at each granularity counted.  A
structure is fitted symbolically only where every such column is a sum of a few
monomials in the numeric knobs (:mod:`workbench.models.structure_counts`).

Run: ``python benchmarks/point_counts.py --space examples/spaces/transpose.py:space
--where "p['local'] == 1 and p['wpi'] == 1" --features local_float32_store
[--weights sample_data/h100/weights-linear-fp64-sectors.json]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))   # this checkout's package, whatever is installed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--space", required=True)
    parser.add_argument("--where", default="True")
    parser.add_argument("--features", required=True)
    parser.add_argument("--weights", default="sample_data/h100/weights-linear-fp64-sectors.json")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.environ["WORKBENCH_COUNT_CACHE"] = "off"
    os.environ["WORKBENCH_STRUCTURE_COUNTS"] = "off"
    from workbench.models import load_model
    from workbench.models.candidate_features import forget_counts, remembered_counts
    from workbench.tuning import resolve_space
    from workbench.tuning.ranking import rank_space

    space = resolve_space(args.space)
    points = [p for p in space.points() if eval(args.where, {}, {"p": p})]  # noqa: S307
    print(f"# point counts: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host "
          f"{platform.node()}, python {platform.python_version()}")
    print("command: python " + " ".join(sys.argv))
    forget_counts(space)
    rank_space(load_model(ROOT / args.weights), space, points)
    wanted = args.features.split(",")
    for (label, key), values in sorted(remembered_counts(space).items(),
                                       key=lambda kv: (kv[0][1], kv[0][0])):
        names = sorted(n for n in values if any(w in n for w in wanted))
        print(f"{key:<14} {label:<34} "
              + " ".join(f"{n.removeprefix('f_mem_access_')}={values[n]:.6g}" for n in names))


if __name__ == "__main__":
    main()
