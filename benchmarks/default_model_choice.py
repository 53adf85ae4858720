"""Benchmark: which shipped model is the default, by leave-one-kernel-out over the catalog.

Every candidate model is refitted once per held-out catalog kernel (every kernel of the
H100's float32 + float64 store except the microbenchmarks, which identify the weights:
``arith``, ``empty``, ``filled_access``, ``global_access``), and the held-out kernel's
points (all group sizes) are predicted.  Beside that, the shipped fit of each model
predicts the two unseen sets (never fitted on) through :func:`~workbench.models.
prediction.predict`, physical floors applied, and the count of raw predictions below a
floor is given.  The default is chosen by :func:`choose`: every candidate whose
cross-kernel LOKO error is within 0.10 percentage points of the lowest (:data:`TIE_BAND`) is
tied, and the tie goes to the lowest geometric mean over the blind-era sets heldout10-21
(:data:`BLIND_ERA`, each set's error as ``benchmarks/set_errors.py`` computes it, i.e. as
``workbench report --all-groups`` does), then to the lower sum of the two unseen sets' errors.
``--write`` records the comparison in ``sample_data/h100/default-model.json``.

The tie band changed in round 17 of #34 (2026-11-27, the protocol "heldout15 and round 17" of
``docs/default-model.md``, written before the round had a result).  Until then candidates were
compared at a tenth of a LOKO point, ties going to the unseen errors; twice (rounds 15 and 16) a
candidate that met its round's rule lost on 0.05 points (7.27 % against 7.22 %), within what a
re-measurement of a space's best times (1-2 %) moves.  The blind-era sets are computed only for
the tied candidates (about half a minute of CPU per set and candidate).  Round 18 (the protocol
"heldout16 and round 18") added heldout15 to them, round 19 ("heldout17 and round 19")
heldout16, round 20 ("heldout18 and round 20") heldout17, round 21 ("heldout19 and round 21")
heldout18, round 22 ("heldout21 and round 22") heldout19 and heldout20, round 23 ("heldout22
and round 23") heldout21; a stored row whose
figures are over other
sets (``blind_era``'s names) is computed again.  Set
``WORKBENCH_BUILD_INFO=sample_data/h100/build-info.json`` to give the occupancy features
the compiler's registers instead of the estimate.

Run: ``.venv/bin/python benchmarks/default_model_choice.py [--write] [--only LABEL]
[--candidate LABEL=MODEL.json,WEIGHTS.json]`` (about ten minutes on two cores: the
expression fits dominate; ``--candidate`` adds a model to the comparison).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
STORE = H100 / "measurements-fp64.sqlite"
UNSEEN = {"unseen": [H100 / "unseen.sqlite"], "unseen2": [H100 / "unseen2.sqlite"]}
MICROBENCHMARKS = ("arith", "empty", "filled_access", "global_access")

#: label -> (model expression file, or the linear family's fit, shipped weights)
CANDIDATES = {
    "overlap-fp64": ("models/overlap-fp64.json", "weights-overlap-fp64.json"),
    "overlap-fp64-floor": ("models/overlap-fp64-floor.json", "weights-overlap-fp64-floor.json"),
    "overlap-fp64-occupancy": ("models/overlap-fp64-occupancy.json",
                               "weights-overlap-fp64-occupancy.json"),
    "overlap-fp64-trees": ("models/overlap-fp64-trees.json", "weights-overlap-fp64-trees.json"),
    "overlap-fp64-sectors": ("models/overlap-fp64-sectors.json",
                             "weights-overlap-fp64-sectors.json"),
    "overlap-fp64-sectors-trees": ("models/overlap-fp64-sectors-trees.json",
                                   "weights-overlap-fp64-sectors-trees.json"),
    "linear-fp64-sectors": ("models/linear-fp64-sectors.json",
                            "weights-linear-fp64-sectors.json"),
    "linear-fp64-sectors-trees": ("models/linear-fp64-sectors-trees.json",
                                  "weights-linear-fp64-sectors-trees.json"),
    "hybrid-fp64-sectors-trees": ("models/hybrid-fp64-sectors-trees.json",
                                  "weights-hybrid-fp64-sectors-trees.json"),
    "linear-fp64-sectors-chains": ("models/linear-fp64-sectors-chains.json",
                                   "weights-linear-fp64-sectors-chains.json"),
    "hybrid-fp64-sectors-chains": ("models/hybrid-fp64-sectors-chains.json",
                                   "weights-hybrid-fp64-sectors-chains.json"),
    "linear-fp64-sectors-chains2": ("models/linear-fp64-sectors-chains2.json",
                                    "weights-linear-fp64-sectors-chains2.json"),
    "linear-fp64-sectors-chains3": ("models/linear-fp64-sectors-chains3.json",
                                    "weights-linear-fp64-sectors-chains3.json"),
    "linear-fp64-sectors-chains4": ("models/linear-fp64-sectors-chains4.json",
                                    "weights-linear-fp64-sectors-chains4.json"),
    "linear-fp64-sectors-chains5": ("models/linear-fp64-sectors-chains5.json",
                                    "weights-linear-fp64-sectors-chains5.json"),
    "linear-fp64-sectors-chains6": ("models/linear-fp64-sectors-chains6.json",
                                    "weights-linear-fp64-sectors-chains6.json"),
    "linear-fp64-sectors-chains7": ("models/linear-fp64-sectors-chains7.json",
                                    "weights-linear-fp64-sectors-chains7.json"),
    "linear-fp64-sectors-chains8": ("models/linear-fp64-sectors-chains8.json",
                                    "weights-linear-fp64-sectors-chains8.json"),
    "linear-fp64-sectors-chains9": ("models/linear-fp64-sectors-chains9.json",
                                    "weights-linear-fp64-sectors-chains9.json"),
    "linear-fp64-sectors-chains10": ("models/linear-fp64-sectors-chains10.json",
                                     "weights-linear-fp64-sectors-chains10.json"),
    "linear-fp64-sectors-chains11": ("models/linear-fp64-sectors-chains11.json",
                                     "weights-linear-fp64-sectors-chains11.json"),
    "linear-fp64-sectors-chains12": ("models/linear-fp64-sectors-chains12.json",
                                     "weights-linear-fp64-sectors-chains12.json"),
    "linear-fp64-sectors-chains13": ("models/linear-fp64-sectors-chains13.json",
                                     "weights-linear-fp64-sectors-chains13.json"),
    "linear-fp64-sectors-chains14": ("models/linear-fp64-sectors-chains14.json",
                                     "weights-linear-fp64-sectors-chains14.json"),
    "linear-fp64-sectors-chains15": ("models/linear-fp64-sectors-chains15.json",
                                     "weights-linear-fp64-sectors-chains15.json"),
    "linear-fp64-sectors-chains16": ("models/linear-fp64-sectors-chains16.json",
                                     "weights-linear-fp64-sectors-chains16.json"),
    "linear-fp64-sectors-chains17": ("models/linear-fp64-sectors-chains17.json",
                                     "weights-linear-fp64-sectors-chains17.json"),
    "linear-fp64-sectors-chains18": ("models/linear-fp64-sectors-chains18.json",
                                     "weights-linear-fp64-sectors-chains18.json"),
    "linear-fp64-sectors-chains20": ("models/linear-fp64-sectors-chains20.json",
                                     "weights-linear-fp64-sectors-chains20.json"),
    "linear-fp64-sectors-chains22": ("models/linear-fp64-sectors-chains22.json",
                                     "weights-linear-fp64-sectors-chains22.json"),
    "linear-fp64-sectors-chains24": ("models/linear-fp64-sectors-chains24.json",
                                     "weights-linear-fp64-sectors-chains24.json"),
    "linear-fp64-sectors-chains25": ("models/linear-fp64-sectors-chains25.json",
                                     "weights-linear-fp64-sectors-chains25.json"),
    "linear-fp64-sectors-chains26": ("models/linear-fp64-sectors-chains26.json",
                                     "weights-linear-fp64-sectors-chains26.json"),
    "linear-fp64-sectors-chains27": ("models/linear-fp64-sectors-chains27.json",
                                     "weights-linear-fp64-sectors-chains27.json"),
    "linear-fp64-sectors-chains28": ("models/linear-fp64-sectors-chains28.json",
                                     "weights-linear-fp64-sectors-chains28.json"),
    "linear-fp64-sectors-chains30": ("models/linear-fp64-sectors-chains30.json",
                                     "weights-linear-fp64-sectors-chains30.json"),
    "linear-fp64-sectors-chains31": ("models/linear-fp64-sectors-chains31.json",
                                     "weights-linear-fp64-sectors-chains31.json"),
    "linear-fp64-sectors-chains32": ("models/linear-fp64-sectors-chains32.json",
                                     "weights-linear-fp64-sectors-chains32.json"),
    "linear-fp64-sectors-chains33": ("models/linear-fp64-sectors-chains33.json",
                                     "weights-linear-fp64-sectors-chains33.json"),
    "linear-fp64-sectors-chains34": ("models/linear-fp64-sectors-chains34.json",
                                     "weights-linear-fp64-sectors-chains34.json"),
    "linear-fp64-sectors-chains35": ("models/linear-fp64-sectors-chains35.json",
                                     "weights-linear-fp64-sectors-chains35.json"),
    "linear-fp64-sectors-chains36": ("models/linear-fp64-sectors-chains36.json",
                                     "weights-linear-fp64-sectors-chains36.json"),
    "linear-fp64-sectors-chains37": ("models/linear-fp64-sectors-chains37.json",
                                     "weights-linear-fp64-sectors-chains37.json"),
    "linear-fp64-sectors-chains38": ("models/linear-fp64-sectors-chains38.json",
                                     "weights-linear-fp64-sectors-chains38.json"),
    "linear-fp64-sectors-chains39": ("models/linear-fp64-sectors-chains39.json",
                                     "weights-linear-fp64-sectors-chains39.json"),
    "linear-fp64-sectors-chains40": ("models/linear-fp64-sectors-chains40.json",
                                     "weights-linear-fp64-sectors-chains40.json"),
    "linear-fp64-sectors-chains41": ("models/linear-fp64-sectors-chains41.json",
                                     "weights-linear-fp64-sectors-chains41.json"),
    "linear-fp64-sectors-chains42": ("models/linear-fp64-sectors-chains42.json",
                                     "weights-linear-fp64-sectors-chains42.json"),
    "linear-fp64-sectors-chains43": ("models/linear-fp64-sectors-chains43.json",
                                     "weights-linear-fp64-sectors-chains43.json"),
    "linear-fp64-sectors-chains44": ("models/linear-fp64-sectors-chains44.json",
                                     "weights-linear-fp64-sectors-chains44.json"),
    "linear-fp64-sectors-chains46": ("models/linear-fp64-sectors-chains46.json",
                                     "weights-linear-fp64-sectors-chains46.json"),
    "linear-fp64-sectors-chains47": ("models/linear-fp64-sectors-chains47.json",
                                     "weights-linear-fp64-sectors-chains47.json"),
    "linear-fp64-sectors-chains48": ("models/linear-fp64-sectors-chains48.json",
                                     "weights-linear-fp64-sectors-chains48.json"),
    "linear-fp64": ("non-negative", "weights-linear-fp64-non-negative.json"),
    "linear-fp64-plain": ("plain", "weights-linear-fp64.json"),
}


#: stores of microbenchmarks a candidate is always fitted on besides the catalog's (never
#: held out: they are not catalog kernels)
EXTRA_STORES = {"models/overlap-fp64-trees.json": [H100 / "local-trees-train.sqlite"],
                "models/overlap-fp64-sectors-trees.json": [H100 / "local-trees-train.sqlite"],
                "models/linear-fp64-sectors-trees.json": [H100 / "local-trees-train.sqlite"],
                "models/hybrid-fp64-sectors-trees.json": [H100 / "local-trees-train.sqlite"],
                "models/linear-fp64-sectors-chains.json": [H100 / "local-trees-train.sqlite"],
                "models/hybrid-fp64-sectors-chains.json": [H100 / "local-trees-train.sqlite"],
                "models/linear-fp64-sectors-chains2.json": [H100 / "local-trees-train.sqlite"],
                "models/linear-fp64-sectors-chains3.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack.sqlite"],
                "models/linear-fp64-sectors-chains4.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains5.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains6.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains7.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains8.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains9.json": [H100 / "local-trees-train.sqlite",
                                                            H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains10.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains11.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite",
                                                             H100 / "row-walk.sqlite"],
                "models/linear-fp64-sectors-chains12.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite",
                                                             H100 / "row-walk.sqlite"],
                "models/linear-fp64-sectors-chains13.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains14.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains15.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains16.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains17.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains18.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains20.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains22.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains24.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains25.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains26.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains27.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains28.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains30.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains31.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains32.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains33.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains34.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains35.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains36.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains37.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains38.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains39.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains40.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains41.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains42.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains43.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains44.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains46.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains47.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"],
                "models/linear-fp64-sectors-chains48.json": [H100 / "local-trees-train.sqlite",
                                                             H100 / "reuse-stack-train.sqlite"]}

#: candidates some of whose weights are written into their model file as another model's fit:
#: model file -> (the same expression with those weights as parameters, the model whose fit
#: gives them, their names; None: all of them).  Leave-one-kernel-out fits the anchor in each
#: fold and holds its weights there (``AnchoredExpressionFit``), so no held-out kernel
#: informs them.
ANCHORED = {"models/linear-fp64-sectors-chains47.json": (
    "models/linear-fp64-sectors-chains46.json", "models/linear-fp64-sectors-chains38.json",
    ("p_launch", "p_groups", "p_waves")),
    "models/linear-fp64-sectors-chains48.json": (
    "models/linear-fp64-sectors-chains48.json", "models/linear-fp64-sectors-chains38.json",
    None)}


def loko(model_file, held_out=None):
    """The leave-one-kernel-out report of one candidate on the catalog store (and its
    microbenchmarks' stores, :data:`EXTRA_STORES`, which are never held out)."""
    import pandas as pd

    from workbench.models import get_family, load_store_dataset
    from workbench.models.validation import (
        AnchoredExpressionFit,
        ExpressionFit,
        GroupSelection,
        LinearFit,
        leave_one_kernel_out,
    )

    if model_file in ("non-negative", "plain"):
        fit = LinearFit(non_negative=model_file == "non-negative")
        data = load_store_dataset(STORE)
    else:
        spec = get_family("expression").spec(str(ROOT / model_file))
        fit = ExpressionFit(spec, name=model_file)
        if model_file in ANCHORED:
            template, anchor, held = ANCHORED[model_file]
            family = get_family("expression")
            spec = family.spec(str(ROOT / template))
            held = spec.model.parameters if held is None else held
            fit = AnchoredExpressionFit(spec, family.spec(str(ROOT / anchor)), held,
                                        name=model_file)
        data = load_store_dataset(STORE, granularity=spec.granularity,
                                  subgroup_size=spec.subgroup_size)
    catalog = set(data["kernel"])
    extra = [load_store_dataset(p, granularity=spec.granularity,
                                subgroup_size=spec.subgroup_size)
             for p in EXTRA_STORES.get(model_file, ())]
    if extra:
        data = pd.concat([data, *extra], ignore_index=True, sort=False)
        features = [c for c in data.columns if c.startswith("f_")]
        data[features] = data[features].fillna(0.0)
    kernels = held_out or sorted(catalog - set(MICROBENCHMARKS))
    return leave_one_kernel_out(data, fit, held_out=kernels, groups=GroupSelection.ALL)


def unseen_errors(weights_file):
    """Geometric-mean error, worst kernel and raw predictions below a floor per set."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from unseen_accuracy import evaluate, measured_candidates

    from workbench.models import load_model
    from workbench.models.contract import geometric_mean

    out = {}
    model = load_model(H100 / weights_file)
    for name, stores in UNSEEN.items():
        candidates, measured = measured_candidates(stores)
        frame = evaluate(model, candidates, measured)
        per_kernel = frame.groupby(["kernel", "dtype"])["rel_error"].apply(geometric_mean)
        out[name] = {"geomean_rel_error": round(float(geometric_mean(frame["rel_error"])), 4),
                     "within_25pct": round(float(np.mean(frame["rel_error"] <= 0.25)), 3),
                     "worst_kernel": "/".join(per_kernel.idxmax()),
                     "worst_kernel_geomean": round(float(per_kernel.max()), 3),
                     "raw_below_floor": int(frame["below_floor"].sum())}
    return out


#: candidates whose LOKO is within this of the lowest are tied (0.10 percentage points)
TIE_BAND = 0.0010
#: the blind sets reported since the 12 % goal was set, whose geometric mean breaks a tie
BLIND_ERA = ("heldout10", "heldout11", "heldout12", "heldout13", "heldout14", "heldout15",
             "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21")
#: how the reasons and the printout name them
BLIND_ERA_NAME = f"{BLIND_ERA[0]}-{BLIND_ERA[-1].removeprefix('heldout')}"
BLIND_ERA_KEY = "blind_era_geomean_rel_error"
#: build information of the catalog and of the calibration microbenchmarks, to which each
#: set's own file is added (as the rounds' ``set_errors.py`` runs set it)
BUILD_INFO = ("build-info.json", "build-info-local-trees.json", "build-info-reuse-stack.json",
              "build-info-row-walk.json", "build-info-op-chain.json")


def tied_candidates(rows: dict) -> list:
    """The candidates (keys of ``rows``) whose LOKO is within :data:`TIE_BAND` of the lowest,
    lowest LOKO first."""
    lowest = min(row["loko_all_catalog_kernels"] for row in rows.values())
    # the figures are stored to four decimals: the epsilon keeps a candidate exactly 0.10
    # points away inside the band
    tied = [w for w, row in rows.items()
            if row["loko_all_catalog_kernels"] <= lowest + TIE_BAND + 1e-9]
    return sorted(tied, key=lambda w: rows[w]["loko_all_catalog_kernels"])


def lacking_blind_era(rows: dict, tied) -> list:
    """The tied candidates whose blind-era figures are missing or over other sets than
    :data:`BLIND_ERA` (a row stored before a set was added)."""
    return [w for w in tied if rows[w].get(BLIND_ERA_KEY) is None
            or set(rows[w].get("blind_era", {})) != set(BLIND_ERA)]


def choose(rows: dict) -> str:
    """The default among ``rows`` (weights file -> comparison row): among the tied
    candidates (:func:`tied_candidates`) the lowest blind-era geometric mean
    (:data:`BLIND_ERA_KEY`, needed on every tied row when more than one is tied), then the
    lower sum of the two unseen sets' errors."""
    tied = tied_candidates(rows)
    if len(tied) == 1:
        return tied[0]
    missing = [w for w in tied if rows[w].get(BLIND_ERA_KEY) is None]
    if missing:
        raise ValueError(f"tied candidates without {BLIND_ERA_KEY}: {', '.join(missing)}")
    return min(tied, key=lambda w: (rows[w][BLIND_ERA_KEY],
                                    rows[w]["unseen_geomean_rel_error"]
                                    + rows[w]["unseen2_geomean_rel_error"]))


def reason(rows: dict, chosen: str, stamp: str) -> str:
    """Why ``chosen`` is the default, for ``default-model.json``."""
    tied = tied_candidates(rows)
    loko = ("cross-kernel leave-one-kernel-out error over the catalog's non-microbenchmark "
            "kernels, float32 and float64, all group sizes")
    if len(tied) == 1:
        why = f"lowest {loko} ({rows[chosen]['loko_all_catalog_kernels']:.2%})"
    else:
        lowest = min(rows[w]["loko_all_catalog_kernels"] for w in tied)
        why = (f"{loko} {rows[chosen]['loko_all_catalog_kernels']:.2%}, within "
               f"{TIE_BAND * 100:.2f} points of the lowest ({lowest:.2%}; {len(tied)} candidates "
               f"tied), and the lowest geometric mean over the blind-era sets {BLIND_ERA_NAME} among them "
               f"({rows[chosen][BLIND_ERA_KEY]:.2%})")
    return (f"{why}; the unseen sets (never fitted) are reported beside it; "
            f"benchmarks/default_model_choice.py, {stamp}")


def blind_era_errors(weights_files) -> dict:
    """``{weights file: {set: error, ..., BLIND_ERA_KEY: geometric mean}}`` over
    :data:`BLIND_ERA`, each set by ``benchmarks/set_errors.py`` (its store decompressed from
    ``sample_data/h100/<set>.sqlite.xz`` into a temporary folder) with the set's build
    information added to :data:`BUILD_INFO`."""
    import lzma
    import os
    import subprocess
    import sys
    import tempfile

    from workbench.models.contract import geometric_mean

    out = {w: {} for w in weights_files}
    with tempfile.TemporaryDirectory() as tmp:
        for name in BLIND_ERA:
            store = Path(tmp) / f"{name}.sqlite"
            store.write_bytes(lzma.decompress((H100 / f"{name}.sqlite.xz").read_bytes()))
            # a set's build info ships as .json.xz (issue #25), a newer one may still be plain
            plain = H100 / f"build-info-{name}.json"
            info = [*(H100 / f for f in BUILD_INFO),
                    plain if plain.exists() else plain.with_name(plain.name + ".xz")]
            env = {**os.environ, "WORKBENCH_BUILD_INFO": os.pathsep.join(map(str, info))}
            result = Path(tmp) / f"{name}.json"
            subprocess.run([sys.executable, str(ROOT / "benchmarks" / "set_errors.py"),
                            str(store), str(result), *(str(H100 / w) for w in weights_files)],
                           check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
            for w, figures in json.loads(result.read_text()).items():
                out[w][name] = round(figures["geomean"], 4)
    for figures in out.values():
        figures[BLIND_ERA_KEY] = round(float(geometric_mean(
            np.array([figures[n] for n in BLIND_ERA]))), 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="record the comparison and the choice in default-model.json")
    parser.add_argument("--only", action="append", help="candidate label(s) to run")
    parser.add_argument("--candidate", action="append", default=[],
                        metavar="LABEL=MODEL.json,WEIGHTS.json",
                        help="one more candidate: its model file (from the project root) "
                             "and its shipped fit (in sample_data/h100/)")
    args = parser.parse_args()
    for text in args.candidate:
        label, _, files = text.partition("=")
        model_file, _, weights = files.partition(",")
        if not (label and model_file and weights):
            parser.error(f"--candidate {text!r}: expected LABEL=MODEL.json,WEIGHTS.json")
        CANDIDATES[label] = (model_file, weights)
    unknown = sorted(set(args.only or ()) - set(CANDIDATES))
    if unknown:
        parser.error(f"--only: no candidate named {', '.join(unknown)}")
    warnings.filterwarnings("ignore")
    start = time.time()
    rows = {}
    print(f"{'model':<20} {'LOKO geomean':>12} {'worst held-out kernel':>28} "
          f"{'unseen':>8} {'unseen2':>8} {'raw<floor':>9}")
    for label, (model_file, weights) in CANDIDATES.items():
        if args.only and label not in args.only:
            continue
        report = loko(model_file)
        per_kernel = {k: v.loko_geomean_rel_error for k, v in report.kernels.items()}
        worst = max(per_kernel, key=per_kernel.get)
        unseen = unseen_errors(weights)
        rows[weights] = {"loko_all_catalog_kernels": round(report.cross_kernel_loko, 4),
                         "loko_per_kernel": {k: round(v, 4) for k, v in per_kernel.items()},
                         **{f"{k}_{m}": v for k, d in unseen.items() for m, v in d.items()}}
        print(f"{label:<20} {report.cross_kernel_loko:>12.1%} "
              f"{worst + f' {per_kernel[worst]:.0%}':>28} "
              f"{unseen['unseen']['geomean_rel_error']:>8.1%} "
              f"{unseen['unseen2']['geomean_rel_error']:>8.1%} "
              f"{unseen['unseen']['raw_below_floor'] + unseen['unseen2']['raw_below_floor']:>9}",
              flush=True)
        print("  LOKO per held-out kernel: " + ", ".join(
            f"{k} {v:.1%}" for k, v in sorted(per_kernel.items())), flush=True)
    path = H100 / "default-model.json"
    record = json.loads(path.read_text())
    if args.write and args.only:
        # a partial run keeps the other candidates' earlier figures from this benchmark
        rows = {**{w: r for w, r in record.get("compared", {}).items()
                   if "loko_all_catalog_kernels" in r}, **rows}
    tied = tied_candidates(rows)
    if len(tied) > 1:
        need = lacking_blind_era(rows, tied)
        for w, figures in (blind_era_errors(need) if need else {}).items():
            rows[w] = {**rows[w], "blind_era": {n: figures[n] for n in BLIND_ERA},
                       BLIND_ERA_KEY: figures[BLIND_ERA_KEY]}
        for w in tied:
            print(f"tied (LOKO within {TIE_BAND * 100:.2f} points of the lowest): {w} LOKO "
                  f"{rows[w]['loko_all_catalog_kernels']:.2%}, {BLIND_ERA_NAME} "
                  f"{rows[w][BLIND_ERA_KEY]:.2%} ("
                  + ", ".join(f"{n} {v:.2%}" for n, v in rows[w]["blind_era"].items())
                  + f"), unseen + unseen2 {rows[w]['unseen_geomean_rel_error']:.4f} + "
                  f"{rows[w]['unseen2_geomean_rel_error']:.4f}", flush=True)
    chosen = choose(rows)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"chosen among {len(rows)} by LOKO over the "
          f"{len(rows[chosen]['loko_per_kernel'])} non-"
          f"microbenchmark catalog kernels (all group sizes): {chosen}; {stamp}, "
          f"{time.time() - start:.0f} s")
    if args.write:
        record.update(weights=chosen, reason=reason(rows, chosen, stamp), compared=rows)
        path.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
