"""Fit the ``space-order`` trees (:mod:`workbench.models.space_order`) on measured spaces,
and check them with each group of spaces left out (issue #33, ``structure-ranking.md``
section 77).

Every point of every space is predicted with the cheap model (``--base``, with the
residency penalty) exactly as a ranking predicts it, and its features are taken from
that prediction; the rows (features, measured seconds, space, group) are kept in
``--frames`` (a pickle, reused when present: the counting is the slow part).  A group is
the store a space was measured into (``user-spaces.sqlite`` -> ``user``; a ``-redo`` or
``-run2`` store counts as its set's).  Then:

- ``--out FILE.json.xz``: the trees fitted on every space;
- ``--leave-out-dir DIR``: for each group, the trees fitted on the others
  (``DIR/space-order-without-GROUP.json.xz``), and per space the runs to 95 % of the
  best in the cheap order and in the trees' order (the pure order: measuring in the
  predicted order), with the geometric means.

The refused set (``--refuse``, default ``blind19``: not reported yet) cannot be named.

Run: ``python benchmarks/fit_space_order.py --pairs "STORE=FILE.py:space,...;STORE=..."
--frames rows.pkl [--out sample_data/h100/space-order.json.xz] [--leave-out-dir DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import sys
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

BASE = "sample_data/h100/weights-linear-non-negative.json"


def group_of(store: str) -> str:
    stem = Path(store).name.split(".")[0]
    for suffix in ("-redo-run2", "-redo", "-run2b", "-run2"):
        stem = stem.removesuffix(suffix)
    return stem.removesuffix("-spaces")


def frames_of(pairs, base_path: Path) -> list:
    """(group, frame) per space, each predicted cold from its store's measurements."""
    from workbench.models import load_model
    from workbench.models.residency_penalty import ResidencyPenalty
    from workbench.models.space_order import training_frame
    from workbench.tuning import load_space_evaluations, resolve_space

    document = json.loads(base_path.read_text())
    base = ResidencyPenalty(load_model(base_path))
    out = []
    for store, ref in pairs:
        space = resolve_space(ref)
        evaluations = load_space_evaluations(Path(store), space)
        measured = {label: e.time_s for label, e in evaluations.items() if e.ok}
        began = time.perf_counter()
        frame = training_frame(base, document, space, measured)
        print(f"{space.name:<34} {len(frame):>4} measured points, "
              f"{time.perf_counter() - began:6.1f} s, load {os.getloadavg()[0]:.2f}",
              flush=True)
        out.append((group_of(store), frame))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True,
                        help="STORE=FILE.py:VAR,FILE.py:VAR;STORE=... (';' between stores)")
    parser.add_argument("--base", default=BASE, help="the cheap model's weights file")
    parser.add_argument("--frames", required=True, help="rows cache (pickle)")
    parser.add_argument("--out", help="the trees fitted on every space (.json or .json.xz)")
    parser.add_argument("--leave-out-dir", help="a fit without each group, and its check")
    parser.add_argument("--refuse", default="blind19")
    parser.add_argument("--objective", choices=("regression", "ranking"),
                        default="regression",
                        help="the trees' objective (workbench.models.space_order.OBJECTIVES; "
                             "ranking: structure-ranking.md section 81)")
    parser.add_argument("--interleave", action="store_true",
                        help="the fits written rank the trees' order and the cheap one in "
                             "turn (structure-ranking.md section 79)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from feature_dump import runs_to
    from model_orders_all import store_space_pairs

    from workbench.models import save_model
    from workbench.models.contract import geometric_mean
    from workbench.models.space_order import fit_space_order, interleaved_times

    pairs = store_space_pairs(parser, args.pairs, args.refuse)
    frames_path = Path(args.frames)
    if frames_path.exists():
        with open(frames_path, "rb") as f:
            frames = pickle.load(f)
        print(f"rows read from {frames_path}: {len(frames)} spaces")
    else:
        frames = frames_of(pairs, ROOT / args.base)
        with open(frames_path, "wb") as f:
            pickle.dump(frames, f)
    document = json.loads((ROOT / args.base).read_text())
    stamp = {"fitted_by": "benchmarks/fit_space_order.py", "base": args.base,
             "fitted_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "host": platform.node(), "stores": sorted({s for s, _ in pairs})}
    if args.out:
        model = fit_space_order([f for _, f in frames], document,
                                training={**stamp, "groups": sorted({g for g, _ in frames})},
                                interleave=args.interleave, objective=args.objective)
        save_model(model, args.out)
        print(f"wrote {args.out}: {len(model.trees.trees)} trees on "
              f"{model.training['points']} points of {len(model.training['spaces'])} spaces")
    if args.leave_out_dir:
        folder = Path(args.leave_out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        cheap, learned, both = [], [], []
        for group in sorted({g for g, _ in frames}):
            train = [f for g, f in frames if g != group]
            model = fit_space_order(train, document, training={**stamp, "left_out": group},
                                    interleave=args.interleave, objective=args.objective)
            save_model(model, folder / f"space-order-without-{group}.json.xz")
            names = list(model.trees.features)
            for g, frame in frames:
                if g != group:
                    continue
                seconds = frame["seconds"].to_numpy(dtype=float)
                scores = model.order_keys(frame[names].to_numpy(dtype=float))
                cheap_log = frame["log_prediction"].to_numpy(dtype=float)
                cheap_runs = runs_to(seconds, cheap_log)
                learned_runs = runs_to(seconds, scores)
                # the cheap times' own level does not matter to an order: centred logs
                both_runs = runs_to(seconds, interleaved_times(scores, np.exp(cheap_log)))
                cheap.append(cheap_runs)
                learned.append(learned_runs)
                both.append(both_runs)
                print(f"{group:<10} {frame['space'].iloc[0]:<34} runs to 95 %: cheap "
                      f"{cheap_runs:>3}, trees {learned_runs:>3}, in turn {both_runs:>3}",
                      flush=True)
        print(f"pure order, {len(cheap)} spaces each left out with its group: cheap "
              f"{geometric_mean(cheap):.2f}, trees {geometric_mean(learned):.2f}, the two in "
              f"turn {geometric_mean(both):.2f} runs to 95 % (geometric means)")


if __name__ == "__main__":
    main()
