"""Benchmark and check: a factory space counted per structure equals it counted point
by point, for every feature of every point.

For each space given (default: every ``examples/spaces/*.py``, ``examples/kernels/
my_space.py`` and the test suite's ``tests/spaces/*.py``), ranks all points with each
model (default: the linear and overlap weights, so both granularities' features are
counted) twice, on fresh copies of the space with the disk cache off: per structure
(:mod:`workbench.models.structure_counts`) and with ``WORKBENCH_STRUCTURE_COUNTS=off``
(every point built and counted).  Prints, per space, how each structure was counted
(symbolic or per point, and why), the seconds of both, and every feature value that
differs (relative difference above 1e-9; NaN equals NaN).  Exits 1 on a mismatch.

``--spaces`` takes ``benchmarks/ranking.py``'s group names too (``blind4`` to ``blind19``).

Run: ``python benchmarks/structure_counts.py [--spaces FILE.py:space,...|blind5]
[--models linear,overlap,linear-nn,linear-sectors,chains38] [--jobs N]``.  About 0.1 s per point per model on a
2-core machine (the per-point pass dominates).
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import platform
import sys
import time
import warnings

MODELS = {"linear": "sample_data/h100/weights-linear.json",
          "overlap": "sample_data/h100/weights-overlap.json",
          # the replays' model (#33): its barrier weight is zero, so its points are
          # counted without the local barriers
          "linear-nn": "sample_data/h100/weights-linear-non-negative.json",
          # the shipped default's fit (#34): sub-group counts with sector-priced accesses
          "linear-sectors": "sample_data/h100/weights-linear-fp64-sectors.json",
          # the shipped default since #34 (default-model.json): sectors and op chains
          "chains38": "sample_data/h100/weights-linear-fp64-sectors-chains38.json",
          # model14's candidate (structure-ranking.md section 54): chains38 less the
          # device features that build points
          "chains38-counts": "sample_data/h100/weights-linear-fp64-sectors-chains38-counts.json"}


def default_spaces() -> list[str]:
    files = sorted(glob.glob("examples/spaces/*.py")) + ["examples/kernels/my_space.py"] \
        + sorted(glob.glob("tests/spaces/*.py"))
    return [f"{f}:space" for f in files]


def _counts(space_ref: str, model, symbolic: bool):
    from workbench.models.candidate_features import (
        counting_report,
        forget_counts,
        remembered_counts,
    )
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    os.environ["WORKBENCH_STRUCTURE_COUNTS"] = "on" if symbolic else "off"
    space = resolve_space(space_ref)
    forget_counts(space)
    began = time.perf_counter()
    ranking = rank_space(model, space)
    seconds = time.perf_counter() - began
    device = _device_values(space)
    return space, remembered_counts(space), counting_report(space), seconds, ranking, device


def _device_values(space) -> dict:
    """{(point label, "device " + device): {feature: value}} of every device-feature
    family the ranking read for the space's points, computed again for all of them (the
    device features are fitted per structure too: :mod:`workbench.models.
    device_structure`), with the disk cache off."""
    from workbench.kernels.candidate import Candidate
    from workbench.models.device_features import asked_families, device_families

    families = {f.name: f for f in device_families()}
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    out: dict = {}
    for family, device in asked_families(space.name):
        values = families[family].values(candidates, device)
        for i, c in enumerate(candidates):
            row = out.setdefault((c.point.label, f"device {device}"), {})
            row.update({name: float(v[i]) for name, v in values.items()})
    return out


def compare(fitted: dict, counted: dict) -> list[str]:
    """Every value that differs between two remembered-count maps.  A work-item count
    one side lacks is zero (every count of a point is kept); any other feature (the
    footprint, array bytes, a model's own features) is compared where both have it:
    the floors ask for the footprint of some candidates only, and a structure's fit
    gives it to all its points."""
    bad = []
    for key in sorted(set(fitted) | set(counted)):
        a, b = fitted.get(key, {}), counted.get(key, {})
        for name in sorted(set(a) | set(b)):
            if (name not in a or name not in b) and (
                    not key[1].startswith("workitem") or name.endswith("_bytes")):
                continue
            x, y = a.get(name, 0.0), b.get(name, 0.0)
            if math.isnan(x) and math.isnan(y):
                continue
            if not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9):
                bad.append(f"{key[0]} [{key[1]}] {name}: per structure {x!r}, "
                           f"per point {y!r}")
    return bad


def compare_device(fitted: dict, computed: dict) -> list[str]:
    """Every device-feature value that differs, or that one side lacks."""
    bad = []
    for key in sorted(set(fitted) | set(computed)):
        a, b = fitted.get(key, {}), computed.get(key, {})
        for name in sorted(set(a) | set(b)):
            x, y = a.get(name), b.get(name)
            if x is None or y is None or not (
                    (math.isnan(x) and math.isnan(y)) or
                    math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)):
                bad.append(f"{key[0]} [{key[1]}] {name}: per structure {x!r}, "
                           f"per point {y!r}")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spaces", default=",".join(default_spaces()))
    parser.add_argument("--models", default="linear,overlap")
    parser.add_argument("--jobs", type=int, default=None,
                        help="counting processes (default: WORKBENCH_RANK_JOBS or all cores)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from ranking import expand_spaces
    args.spaces = expand_spaces(args.spaces)
    os.environ["WORKBENCH_COUNT_CACHE"] = "off"
    if args.jobs:
        os.environ["WORKBENCH_RANK_JOBS"] = str(args.jobs)
    from workbench.models import load_model
    from workbench.models.candidate_features import rank_jobs

    print(f"host: {platform.node()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
          f", {rank_jobs()} counting processes", flush=True)
    mismatches = 0
    for model_name in args.models.split(","):
        model = load_model(MODELS[model_name])
        for ref in args.spaces.split(","):
            _, fitted, report, s_fit, _, dev_fit = _counts(ref, model, True)
            _, counted, _, s_point, _, dev_point = _counts(ref, model, False)
            bad = compare(fitted, counted)
            # every device feature the ranking read, at every point (compare() skips
            # no name of these: both sides compute every point)
            bad += compare_device(dev_fit, dev_point)
            n_device = sum(len(v) for v in dev_point.values())
            mismatches += len(bad)
            n = len({label for label, _ in counted})
            symbolic = [r for r in report if r.method.value == "symbolic"]
            print(f"{ref.split('/')[-1].split(':')[0]:<22} {model_name:<8} {n:>4} points, "
                  f"{len(report)} structures ({len(symbolic)} symbolic, "
                  f"{sum(r.counted for r in report)} points counted); "
                  f"per structure {s_fit:.2f} s, per point {s_point:.2f} s; "
                  f"{n_device} device-feature values; "
                  f"{len(bad)} mismatching values", flush=True)
            for r in report:
                print(f"    {r.label:<40} {r.points:>4} points {r.counted:>3} counted "
                      f"{r.method.value}{': ' + r.reason if r.reason else ''}")
            for line in bad[:20]:
                print("    MISMATCH", line)
    print(f"total mismatching values: {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
