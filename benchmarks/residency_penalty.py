"""Benchmark: occupancy corrections of the non-negative linear fit's order on the user
spaces, and what they cost (issue #33, ``structure-ranking.md`` section 13).

Per space (replay of the H100's exhaustive measurements, no GPU), the linear fit
(``weights-linear-non-negative.json``) ranks the space once; each correction then
multiplies its predictions by a factor computed from what each point declares (its
group shape, the space's ``local_bytes``; nothing built or counted):

* ``residency S``: ``1 + S / k``, ``k`` the groups resident per multiprocessor
  (:mod:`workbench.models.residency_penalty`; S = 0 is the plain fit);
* ``waves``: the wave balance, ``waves x slots / groups`` (a launch's last wave's idle
  slots, :func:`workbench.hardware.occupancy.occupancy`; the group count is the
  linear fit's own ``f_thread_groups``, already counted);
* ``residency 1 x waves``: both;
* ``1/occupancy``: resident warps over the warp slots (registers unbound).

Printed per space and correction: ``order/ei``, the points measured in the corrected
order until one is within 95 % of the best, and the same for ``model-ei`` replayed on
the corrected ranking (no early start, the ranking charged nothing: the order and the
correction alone).  Then geometric means and medians, the design spaces and the
held-out ones apart (the held-out ones were never used to choose), and the factor's own
cost per space (wall and processor milliseconds, ``residency_factors`` timed alone).

Run: ``python benchmarks/residency_penalty.py [--store user-spaces.sqlite]
[--heldout-store heldout-spaces.sqlite]`` (the stores decompressed first).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DESIGN = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad", "stencil3d_7pt")
HELDOUT_EXAMPLES = ("heldout_conv1d", "heldout_batched_gemm")
HELDOUT_LATER = ("heldout_box9", "heldout_batched_gemv", "heldout_pool2x2", "heldout_cmac")
STRENGTHS = (0.0, 0.25, 0.5, 1.0, 2.0)
WEIGHTS = "sample_data/h100/weights-linear-non-negative.json"


def corrections(candidates, groups, device: str) -> dict[str, np.ndarray]:
    from workbench.hardware.occupancy import occupancy
    from workbench.models.occupancy_features import limits_of_device
    from workbench.models.residency_penalty import residency_factors

    limits = limits_of_device(device)
    threads = np.array([np.prod(c.group_size) for c in candidates], dtype=float)
    shared = np.array([float(c.space.local_bytes(c.point)) for c in candidates])
    occ = occupancy(limits, threads, groups, shared_bytes_per_group=shared)
    out = {f"residency {s:g}": residency_factors(candidates, device, s)[0]
           for s in STRENGTHS}
    out["waves"] = occ.wave_balance
    out["residency 1 x waves"] = out["residency 1"] * occ.wave_balance
    out["1/occupancy"] = 1.0 / occ.occupancy
    return out


def runs_to_95(order: np.ndarray, measured: np.ndarray) -> int:
    fraction = measured.min() / measured[order]
    return int(np.argmax(fraction >= 0.95)) + 1


def study(name: str, store: str, model) -> tuple[dict[str, tuple[int, int]], float, float]:
    from workbench.models.candidate_features import candidate_feature_values
    from workbench.models.expressions.features import parse_feature_ref
    from workbench.models.prediction import make_ranking
    from workbench.models.residency_penalty import residency_factors
    from workbench.tuning import ReplayEvaluator, load_space_evaluations, resolve_space
    from workbench.tuning.guided import ModelEI
    from workbench.tuning.ranking import rank_space
    from workbench.tuning.replay import replay
    from workbench.tuning.runner import Budget

    space = resolve_space(f"{ROOT}/examples/spaces/{name}.py:space")
    evaluations = load_space_evaluations(store, space)
    plain = rank_space(model, space)
    candidates = plain.candidates
    measured = np.array([evaluations[c.point.label].time_s
                         if evaluations[c.point.label].ok else np.inf for c in candidates])
    best = measured.min()
    groups = candidate_feature_values(candidates, [parse_feature_ref("f_thread_groups")])[0][
        "f_thread_groups"]
    device = model.device["device"]
    wall, cpu = time.perf_counter(), time.process_time()
    residency_factors(candidates, device)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {}
    for label, factor in corrections(candidates, groups, device).items():
        predicted = plain.predicted_s * factor
        ranking = dataclasses.replace(make_ranking(candidates, predicted, time.perf_counter()),
                                      seconds=0.0)
        result = replay(space, ReplayEvaluator(space, evaluations),
                        ModelEI(model, "linear-nn", ranking=ranking),
                        budget=Budget(evaluations=len(candidates)))
        ei = next(k for k, e in enumerate(result.evaluations, start=1)
                  if e.ok and e.time_s <= best / 0.95)
        out[label] = (runs_to_95(ranking.order, measured), ei)
    return out, wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="sample_data/h100/user-spaces.sqlite")
    parser.add_argument("--heldout-store", default="sample_data/h100/heldout-spaces.sqlite")
    args = parser.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="residency-penalty-")
    warnings.filterwarnings("ignore")
    from workbench.models import load_model

    print(f"# residency penalty: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, load average "
          + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    print("command: python " + " ".join(sys.argv))
    print(f"weights: {WEIGHTS}; cells: runs to 95 % in the corrected order / model-ei "
          "on it (no early start, ranking uncharged)")
    model = load_model(ROOT / WEIGHTS)
    groups = (("design spaces", DESIGN, args.store),
              ("held-out spaces (examples/)", HELDOUT_EXAMPLES, args.store),
              ("held-out spaces (later four)", HELDOUT_LATER, args.heldout_store))
    every: dict[str, dict[str, list]] = {"design": {}, "held-out": {}}
    for title, names, store in groups:
        print(f"\n## {title}\n")
        for name in names:
            cells, wall, cpu = study(name, store, model)
            if name == names[0]:
                print(f"{'space':<22} " + " ".join(f"{k:>20}" for k in cells)
                      + f" {'factor ms (cpu)':>16}")
            print(f"{name:<22} " + " ".join(f"{f'{o}/{e}':>20}" for o, e in cells.values())
                  + f" {f'{wall * 1e3:.2f} ({cpu * 1e3:.2f})':>16}", flush=True)
            group = every["design" if names is DESIGN else "held-out"]
            for k, v in cells.items():
                group.setdefault(k, []).append(v)
    for group, cells in every.items():
        print(f"\n{group}: geometric mean (median) of runs to 95 %, order / model-ei\n")
        for label, values in cells.items():
            a = np.array(values, dtype=float)
            geo = np.exp(np.log(a).mean(axis=0))
            med = np.median(a, axis=0)
            print(f"{label:<22} {geo[0]:6.2f} ({med[0]:4.1f}) / {geo[1]:6.2f} ({med[1]:4.1f})")


if __name__ == "__main__":
    main()
