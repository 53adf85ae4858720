"""Benchmark: the cheap ranking model's weights fitted on measured user spaces (issue #33,
``structure-ranking.md`` section 70; :mod:`workbench.models.unified.space_fit`).

Counts every point of each (store, space) pair with ``linear-nn``'s weighted properties
(the counts a ranking with it takes), with its measured time, residency factor and
physical floor, into ``--counts PKL`` (kept: a second call reads it), then:

* ``--leave-out DIR``: per group of spaces (``user``, ``heldout``, ``blind``, ``blind2``,
  ...), the fit on every other group, written as ``DIR/weights-without-GROUP.json``, and
  each space's runs to 95 % in the pure order (floors and residency factor applied as a
  ranking applies them) under the shipped weights and under its group's fit;
* ``--out JSON``: the fit on every space given;
* ``--evaluate JSON``: the pure order's runs to 95 % under that weights file, against
  the shipped weights, on every space given.

``--rounds 0`` is plain relative error; the default is a free scale per space
(:data:`~workbench.models.unified.space_fit.SCALE_ROUNDS` alternations).

Run: ``python benchmarks/space_weights.py --pairs "STORE=FILE.py:space,...;STORE=..."
--counts counts.pkl --leave-out weights/`` (blind sets not yet reported are refused,
as ``model_orders_all.py`` refuses them).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

USER_SPACES = {"matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad",
               "stencil3d_7pt", "heldout_conv1d", "heldout_batched_gemm"}


def group_of(name: str) -> str:
    """Section 51's groups: the first user spaces, the held-out ones, each blind set."""
    if name in USER_SPACES:
        return "user"
    if name.startswith("heldout"):
        return "heldout"
    return name.split("_", 1)[0]


def count(pairs, path: Path, base) -> dict:
    """Each pair's points counted, measured, factored and floored (kept in ``path``)."""
    from workbench.models.candidate_features import forget_counts
    from workbench.models.unified.space_fit import measure_space
    from workbench.tuning import load_space_evaluations, resolve_space

    dump = pickle.loads(path.read_bytes()) if path.exists() else {}
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="space-weights-")
    for store, ref in pairs:
        name = Path(ref.split(":")[0]).stem
        if name in dump:
            continue
        os.environ["WORKBENCH_COUNT_CACHE"] = str(Path(tempfile.mkdtemp()) / "counts.sqlite")
        space = resolve_space(ref)
        forget_counts(space)
        began = time.process_time()
        one, candidates = measure_space(space, load_space_evaluations(Path(store), space), base)
        dump[name] = dict(
            labels=[c.point.label for c in candidates], store=str(store),
            cpu_s=time.process_time() - began, measured_s=one.seconds,
            residency=one.factors, features=dict(one.counts), floor_s=one.floors)
        print(f"counted {name:<26} {len(candidates):4d} points", file=sys.stderr, flush=True)
        path.write_bytes(pickle.dumps(dump))
    return dump


def measured(entry: dict, name: str):
    from workbench.models.unified.space_fit import MeasuredSpace

    return MeasuredSpace(name, entry["features"], entry["measured_s"], entry["residency"],
                         entry["floor_s"])


def order_runs(entry: dict, name: str, weights) -> int:
    """Runs to 95 % in the order a ranking with ``weights`` gives."""
    from workbench.models.unified.space_fit import ranking_times, runs_to_share

    space = measured(entry, name)
    return runs_to_share(space, ranking_times(weights, space))


def table(rows, title: str) -> None:
    shipped = np.array([r[2] for r in rows], float)
    refit = np.array([r[3] for r in rows], float)
    print(f"\n{title}: {len(rows)} spaces, runs to 95 % in the pure order (geometric "
          f"mean): shipped {np.exp(np.log(shipped).mean()):.2f}, refitted "
          f"{np.exp(np.log(refit).mean()):.2f}; better on {int((refit < shipped).sum())}, "
          f"worse on {int((refit > shipped).sum())}")
    for group, name, a, b in rows:
        print(f"  {group:<8} {name:<26} {a:4d} {b:4d}")


def main() -> None:
    from model_orders_all import model_named, store_space_pairs

    from workbench.models.unified.space_fit import SCALE_ROUNDS, Objective, fit_on_spaces

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True,
                        help="STORE=FILE.py:VAR,FILE.py:VAR;STORE=... (';' between stores)")
    parser.add_argument("--counts", type=Path, required=True)
    parser.add_argument("--base", default="linear-nn")
    parser.add_argument("--rounds", type=int, default=SCALE_ROUNDS)
    parser.add_argument("--objective", choices=[o.value for o in Objective],
                        default=Objective.RELATIVE.value)
    parser.add_argument("--leave-out", type=Path, metavar="DIR")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--evaluate", type=Path)
    parser.add_argument("--refuse", default="blind19")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    pairs = store_space_pairs(parser, args.pairs, args.refuse)
    base = model_named(args.base)
    dump = count(pairs, args.counts, base)
    names = [Path(ref.split(":")[0]).stem for _, ref in pairs]
    print(f"# space_weights: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"base {args.base}, objective {args.objective}, rounds {args.rounds}, "
          f"{len(names)} spaces")
    print("command: python " + " ".join(sys.argv))
    provenance = {"fitted_by": "benchmarks/space_weights.py", "rounds": args.rounds,
                  "objective": args.objective,
                  "stores": sorted({Path(dump[n]["store"]).name for n in names})}
    if args.leave_out:
        args.leave_out.mkdir(parents=True, exist_ok=True)
        rows = []
        for group in sorted({group_of(n) for n in names}):
            kept = [measured(dump[n], n) for n in names if group_of(n) != group]
            fitted = fit_on_spaces(kept, base, rounds=args.rounds, objective=args.objective,
                                   provenance=dict(provenance, left_out=group))
            (args.leave_out / f"weights-without-{group}.json").write_text(
                json.dumps(fitted.to_json(), indent=1) + "\n")
            rows += [(group, n, order_runs(dump[n], n, base.weights),
                      order_runs(dump[n], n, fitted.weights))
                     for n in names if group_of(n) == group]
        table(rows, "each group under the fit on the others")
    if args.out:
        fitted = fit_on_spaces([measured(dump[n], n) for n in names], base,
                               rounds=args.rounds, objective=args.objective,
                               bootstrap=200 if args.objective == "relative" else 40,
                               provenance=provenance)
        args.out.write_text(json.dumps(fitted.to_json(), indent=1) + "\n")
        print(f"\nwrote {args.out}: " + ", ".join(f"{k} {v:.3g}"
                                                   for k, v in fitted.weights.items()))
    if args.evaluate:
        from workbench.models import load_model

        weights = load_model(args.evaluate).weights
        table([(group_of(n), n, order_runs(dump[n], n, base.weights),
                order_runs(dump[n], n, weights)) for n in names], f"under {args.evaluate}")


if __name__ == "__main__":
    main()
