"""Benchmark: an expression model's feature values at every point of development spaces,
with each point's measured time and residency factor, for screening simplified models
offline (issue #33, ``structure-ranking.md`` section 54).

For each space (``--pairs`` as ``model_orders_all.py``, which refuses the unreported
blind set), predicts every point cold with the model (a fresh count cache) and writes a
pickle: space -> dict(labels, measured_s, residency, features: name -> array, cpu_s).
:func:`orders` then evaluates the model's expression with some features set to 0.

Run: ``python benchmarks/feature_dump.py --pairs ... --model chains38 --out FILE.pkl``
"""

from __future__ import annotations

import argparse
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


def runs_to(measured: np.ndarray, predicted: np.ndarray, share: float = 0.95) -> int:
    """Runs until a point within ``share`` of the best is measured, in the predicted
    order (``make_ranking``'s: stable, unpredicted last)."""
    keys = np.where(np.isfinite(predicted), predicted, np.inf)
    order = np.argsort(keys, kind="stable")
    fraction = measured.min() / measured[order]
    return int(np.argmax(fraction >= share)) + 1


def orders(dump: dict, model, zeroed: frozenset[str], residency: bool = True
           ) -> dict[str, int]:
    """Runs to 95 % per space of ``model``'s expression with ``zeroed`` features at 0,
    lifted to each point's physical floor as ``predict`` lifts it (``floor_s``, where
    dumped: ``--floors``)."""
    out = {}
    for name, entry in dump.items():
        features = {k: (np.zeros_like(v) if k in zeroed else v)
                    for k, v in entry["features"].items()}
        predicted = np.asarray(model.evaluate(features), dtype=float)
        floor = entry.get("floor_s")
        if floor is None:
            raise ValueError(f"{name}: no floors dumped (run with --floors)")
        lift = np.isfinite(predicted) & np.isfinite(floor) & (predicted < floor)
        predicted = np.where(lift, floor, predicted)
        if residency:
            predicted = predicted * entry["residency"]
        out[name] = runs_to(entry["measured_s"], predicted)
    return out


def add_floors(path: Path) -> None:
    """Each dumped space's points' physical floors (``candidate_floors`` without a
    prediction: every bound counted), written back into the dump."""
    import os
    import tempfile
    import warnings

    from workbench.kernels.candidate import Candidate
    from model_orders_all import model_named

    from workbench.models.floors import candidate_floors, model_floors
    from workbench.tuning import resolve_space

    warnings.filterwarnings("ignore")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="feature-dump-")
    os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
    with open(path, "rb") as f:
        dump = pickle.load(f)
    device = model_floors(model_named("chains38"))   # every dumped model's device
    for name, entry in dump.items():
        if "floor_s" in entry:
            continue
        space = resolve_space(f"examples/spaces/{name}.py:space")
        by_label = {p.label: p for p in space.points()}
        candidates = [Candidate.of_point(space, by_label[lab]) for lab in entry["labels"]]
        floors = candidate_floors(candidates, device, None)
        entry["floor_s"] = np.array([f.seconds if f is not None else np.nan for f in floors])
        print(f"{name:<26} floors: {np.isfinite(entry['floor_s']).sum()} of "
              f"{len(floors)}", flush=True)
        with open(path, "wb") as f:
            pickle.dump(dump, f)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--model", default="chains38")
    parser.add_argument("--out", required=True)
    parser.add_argument("--floors", action="store_true",
                        help="add every point's physical floor to the dump in --out "
                             "(all of it, whatever the prediction: an ablated model's "
                             "lower times may meet a floor the full model's did not)")
    args = parser.parse_args()
    if args.floors:
        add_floors(Path(args.out))
        return
    from model_orders_all import model_named, store_space_pairs

    jobs = store_space_pairs(parser, args.pairs, "blind19")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="feature-dump-")
    warnings.filterwarnings("ignore")
    from workbench.kernels.candidate import Candidate
    from workbench.models.candidate_features import forget_counts
    from workbench.models.prediction import predict
    from workbench.models.residency_penalty import residency_factors
    from workbench.tuning import load_space_evaluations, resolve_space

    model = model_named(args.model)
    device = dict(model.device).get("device", "")
    dump = {}
    for store, ref in jobs:
        os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
        space = resolve_space(ref)
        forget_counts(space)
        evaluations = load_space_evaluations(Path(store), space)
        candidates = [Candidate.of_point(space, p) for p in space.points()]
        start = time.process_time()
        result = predict(model, candidates)
        cpu_s = time.process_time() - start
        names = model.features
        features = {n: np.array([dict(b.details)["features"][n] if b is not None
                                 else np.nan for b in result.breakdowns]) for n in names}
        labels = [c.point.label for c in result.candidates]
        measured = np.array([evaluations[lab].time_s if lab in evaluations
                             and evaluations[lab].ok else np.inf for lab in labels])
        factors, _ = residency_factors(result.candidates, device)
        name = Path(ref.split(":")[0]).stem
        dump[name] = dict(labels=labels, measured_s=measured, residency=factors,
                          features=features, cpu_s=cpu_s)
        print(f"{name:<26} {len(labels):>4} pts {cpu_s / len(labels) * 1e3:7.1f} cpu ms/pt "
              f"load {os.getloadavg()[0]:.1f} runs95 "
              f"{orders({name: dump[name]}, model, frozenset())[name]}", flush=True)
        with open(args.out, "wb") as f:
            pickle.dump(dump, f)


if __name__ == "__main__":
    main()
