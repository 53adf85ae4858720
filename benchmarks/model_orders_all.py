"""Benchmark: each model's pure order on every development space of ``examples/spaces/``
(the older ones and the blind sets already reported), with its ranking cost (issue #33,
``structure-ranking.md`` section 43).

For each space and model, ranks the whole space from scratch (a fresh disk cache of
counts, the space loaded anew, in one process with the default counting processes) and
prints: the ranking's wall and processor seconds (this process and the counting
workers) per variant with the machine's load; against the exhaustive H100 measurements
of the space's store: Spearman's rank correlation, the model's first pick's fraction of
the best, the runs to 95 % (and 90 %) measuring in the model's order, and how many of
the space's structures were counted symbolically.  The last lines give, per model, the
geometric means over the spaces.  ``model_orders.py`` does the same on the six design
spaces and refuses the blind ones; this script refuses any space whose set has not been
reported yet (``--refuse``, default ``blind19``: the set's own files, ``blind19_*``).

Models: the names of ``benchmarks/strategy_study.py``'s ``MODELS`` and ``PENALISED``,
``chains38`` (the shipped default's fit, ``weights-linear-fp64-sectors-chains38.json``),
or a weights file; ``NAME+residency`` adds the residency penalty to any of them.

Run: ``python benchmarks/model_orders_all.py --pairs STORE=FILE.py:space,...;STORE=...
--models linear-nn-residency,chains38 [--csv OUT.csv]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

EXTRA = {"chains38": "sample_data/h100/weights-linear-fp64-sectors-chains38.json"}


def model_named(name: str):
    """A model by the study's name, ``chains38``, a weights file, or ``+residency``."""
    from workbench.models import load_model
    from workbench.models.residency_penalty import ResidencyPenalty

    import strategy_study

    if name.endswith("+residency"):
        return ResidencyPenalty(model_named(name.removesuffix("+residency")))
    if name in EXTRA:
        return load_model(ROOT / EXTRA[name])
    if name in strategy_study.MODELS or name in strategy_study.PENALISED:
        return strategy_study._model(name)
    return load_model(Path(name))


def store_space_pairs(parser, text: str, refuse: str) -> list[tuple[str, str]]:
    """``STORE=FILE.py:VAR,...;STORE=...`` as (store, space) pairs; a space file of the
    set ``refuse`` (``refuse_*``, a blind set not reported yet) is refused: by the
    set's name and its underscore, so ``blind1`` never refuses ``blind10_*``,
    ``blind11_*``, ``blind12_*``, ``blind13_*``, ``blind14_*``, ``blind15_*``,
    ``blind16_*``, ``blind17_*``, ``blind18_*`` or ``blind19_*``."""
    pairs = []
    for part in text.split(";"):
        store, files = part.split("=", 1)
        for ref in files.split(","):
            if Path(ref.split(":")[0]).name.startswith(f"{refuse}_"):
                parser.error(f"{ref}: the {refuse} set is not reported yet")
            pairs.append((store, ref))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", required=True,
                        help="STORE=FILE.py:VAR,FILE.py:VAR;STORE=... (';' between stores)")
    parser.add_argument("--models", default="linear-nn-residency,chains38")
    parser.add_argument("--csv")
    parser.add_argument("--refuse", default="blind19")
    args = parser.parse_args()
    jobs = store_space_pairs(parser, args.pairs, args.refuse)
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="model-orders-all-")
    warnings.filterwarnings("ignore")
    from scipy.stats import spearmanr

    from workbench.models.candidate_features import forget_counts, rank_jobs
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.costs import timed
    from workbench.tuning.metrics import geometric_mean
    from workbench.tuning.ranking import rank_space

    print(f"# model orders, all development spaces: "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host {platform.node()}, "
          f"{os.cpu_count()} cores, {rank_jobs()} counting processes, "
          f"python {platform.python_version()}")
    print("command: python " + " ".join(sys.argv))
    print(f"{'space':<26} {'model':<22} {'pts':>4} {'rank s':>7} {'cpu ms/pt':>9} "
          f"{'load':>5} {'spearman':>8} {'first':>5} {'runs90':>6} {'runs95':>6} "
          f"{'symbolic':>8}")
    rows = []
    for store, ref in jobs:
        previous = None
        for model_name in args.models.split(","):
            # NAME+residency right after NAME: the same counts (the penalty multiplies
            # the predictions), so they are reused, not counted again: its cost is
            # NAME's, printed as "warm"
            warm = model_name == f"{previous}+residency"
            if not warm:
                os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
                space = resolve_space(ref)
                forget_counts(space)
            previous = model_name
            evaluations = load_space_evaluations(Path(store), space)
            model = model_named(model_name)
            load = os.getloadavg()[0]
            ranking, spent = timed(lambda: rank_space(model, space))
            measured = np.array([evaluations[c.point.label].time_s
                                 if c.point.label in evaluations
                                 and evaluations[c.point.label].ok else np.inf
                                 for c in ranking.candidates])
            fraction = measured.min() / measured[ranking.order]
            runs95 = int(np.argmax(fraction >= 0.95)) + 1
            runs90 = int(np.argmax(fraction >= 0.90)) + 1
            finite = np.isfinite(measured) & np.isfinite(ranking.predicted_s)
            rho = float(spearmanr(measured[finite], ranking.predicted_s[finite])[0])
            symbolic = sum(r.method.value == "symbolic" for r in ranking.counting)
            name = Path(ref.split(":")[0]).stem
            n = len(ranking.candidates)
            cpu_ms = spent.cpu_s / n * 1e3
            print(f"{name:<26} {model_name:<22} {n:>4} {spent.wall_s:>7.2f} {cpu_ms:>9.2f} "
                  f"{load:>5.1f} {rho:>8.2f} {fraction[0]:>5.2f} {runs90:>6} {runs95:>6} "
                  f"{f'{symbolic}/{len(ranking.counting)}':>8}"
                  + (" warm (counts of the line above)" if warm else ""), flush=True)
            for r in ranking.counting:
                if r.method.value != "symbolic":
                    print(f"    counted per point: {r.label} ({r.points} points): {r.reason}")
            rows.append(dict(space=name, model=model_name, points=n, wall_s=spent.wall_s,
                             cpu_ms_per_point=cpu_ms, load=load, spearman=rho,
                             first=float(fraction[0]), runs90=runs90, runs95=runs95,
                             symbolic=symbolic, structures=len(ranking.counting),
                             warm=warm))
    print(f"\n{'model':<22} {'spaces':>6} {'runs95 gm':>9} {'runs90 gm':>9} "
          f"{'first gm':>8} {'first>=.95':>10} {'spearman mean':>13} {'cpu ms/pt gm':>12}")
    for model_name in args.models.split(","):
        mine = [r for r in rows if r["model"] == model_name]
        print(f"{model_name:<22} {len(mine):>6} "
              f"{geometric_mean([r['runs95'] for r in mine]):>9.2f} "
              f"{geometric_mean([r['runs90'] for r in mine]):>9.2f} "
              f"{geometric_mean([r['first'] for r in mine]):>8.3f} "
              f"{sum(r['first'] >= 0.95 for r in mine):>10} "
              f"{np.mean([r['spearman'] for r in mine]):>13.3f} "
              f"{geometric_mean([r['cpu_ms_per_point'] for r in mine]):>12.2f}"
              + (" (warm: counts reused)" if any(r["warm"] for r in mine) else ""))
    if args.csv:
        import pandas as pd
        pd.DataFrame(rows).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
