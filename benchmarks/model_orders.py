"""Benchmark: how well each shipped model orders the user-written design spaces, and
at what ranking cost (issue #33: why the linear model's order misses the best).

For each of the six *design* spaces of ``examples/spaces/`` (never the ``heldout_*``
or ``blind_*`` ones: they are kept out of all design, ``examples/spaces/README.md``)
and each model, ranks the whole space from scratch (a fresh disk cache of counts, the space loaded
anew) and prints: the ranking's wall and processor seconds (this process and the
counting workers) with the machine's load; how the order compares with the H100's
exhaustive measurements (``sample_data/h100/user-spaces.sqlite``): Spearman's rank
correlation, the fractions of the best reached by the model's first three picks, the
runs to 95 % when measuring in the model's order, and the measured best point's place
in it.  With ``--terms``, for the linear models, the largest terms (weight times
count, in seconds) of the model's first pick and of the measured best point: what
misranks them.

Models: ``linear`` (``weights-linear.json``), ``linear-nn`` (the same features fitted
with non-negative weights, ``weights-linear-non-negative.json``: once counted, its
predictions cost nothing more), ``default`` (``weights-overlap-fp64.json``),
``occupancy`` (``weights-overlap-fp64-occupancy.json``), ``roofline`` (the H100's
device description), and the sector-priced models of #34 (counted per sub-group):
``linear-sectors`` (``weights-linear-fp64-sectors.json``, the fit of the shipped
default ``models/linear-fp64-sectors.json``), ``sectors`` and ``sectors-trees``
(``weights-overlap-fp64-sectors{,-trees}.json``).  The last column says how many of a
factory space's structures were counted symbolically; those counted point by point
are listed with the reason.  A model may also be given as a weights file, and any
model with the residency penalty as ``NAME+residency`` (e.g. ``linear-nn+residency``:
:mod:`workbench.models.residency_penalty`).

Run: ``.venv/bin/python benchmarks/model_orders.py [--models linear,linear-nn,default,
occupancy,roofline,linear-sectors,sectors,sectors-trees] [--spaces matmul_tiled,...]
[--terms]``
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
sys.path.insert(0, str(ROOT))   # this checkout's package, whatever is installed

MODELS = {
    "linear": "sample_data/h100/weights-linear.json",
    "linear-nn": "sample_data/h100/weights-linear-non-negative.json",
    "default": "sample_data/h100/weights-overlap-fp64.json",
    "occupancy": "sample_data/h100/weights-overlap-fp64-occupancy.json",
    "linear-sectors": "sample_data/h100/weights-linear-fp64-sectors.json",
    "sectors": "sample_data/h100/weights-overlap-fp64-sectors.json",
    "sectors-trees": "sample_data/h100/weights-overlap-fp64-sectors-trees.json",
}
DESIGN = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad", "stencil3d_7pt")


def _model(name: str):
    from workbench.models import get_family, load_model

    if name == "roofline":
        return get_family("roofline").ready(device_model="h100")
    if name.endswith("+residency"):    # a model above with the residency penalty
        from workbench.models.residency_penalty import ResidencyPenalty
        return ResidencyPenalty(_model(name.removesuffix("+residency")))
    return load_model(ROOT / MODELS[name] if name in MODELS else Path(name))


def _terms(model, candidates) -> list[list[tuple[str, float]]]:
    """The five largest terms of each candidate's prediction, in seconds.  An
    expression model's breakdown gives its features' counts; where the expression is
    a plain sum of ``p*f`` products (``linear-sectors``) a term is its weight times
    its count."""
    import re

    from workbench.models.prediction import TermKind, predict

    result = predict(model, candidates)
    weights = {f: model.parameters[p] for p, f in
               re.findall(r"(p_\w+)\*(f_[^\s+*()]+)", getattr(model, "expression", ""))}
    out = []
    for b in result.breakdowns:
        terms = [(t.name, t.value) for t in b.terms if t.kind == TermKind.SECONDS]
        if not terms and weights:
            terms = [(t.name, weights[t.name] * t.value) for t in b.terms
                     if t.kind == TermKind.COUNT and t.name in weights]
        out.append(sorted(terms, key=lambda nv: -abs(nv[1]))[:5])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="linear,linear-nn,default,occupancy,roofline")
    parser.add_argument("--spaces", default=",".join(DESIGN))
    parser.add_argument("--store", default="sample_data/h100/user-spaces.sqlite")
    parser.add_argument("--terms", action="store_true")
    args = parser.parse_args()
    if any("heldout" in s or "blind" in s for s in args.spaces.split(",")):
        parser.error("the heldout_* and blind_* spaces are kept out of all design")
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="model-orders-")
    warnings.filterwarnings("ignore")
    from scipy.stats import spearmanr

    from workbench.models.candidate_features import forget_counts, rank_jobs
    from workbench.tuning import load_space_evaluations, resolve_space
    from workbench.tuning.costs import timed
    from workbench.tuning.ranking import rank_space

    print(f"# model orders: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host "
          f"{platform.node()}, {os.cpu_count()} cores, {rank_jobs()} counting processes, "
          f"python {platform.python_version()}")
    print("command: python " + " ".join(sys.argv))
    print(f"{'space':<15} {'model':<10} {'rank s':>7} {'cpu s':>6} {'load':>5} "
          f"{'spearman':>8} {'first 3 picks (fraction of best)':>32} {'runs95':>6} "
          f"{'best at':>7} {'symbolic':>8}")
    for name in args.spaces.split(","):
        for model_name in args.models.split(","):
            os.environ["WORKBENCH_COUNT_CACHE"] = tempfile.mktemp(suffix=".sqlite")
            space = resolve_space(f"{ROOT}/examples/spaces/{name}.py:space")
            forget_counts(space)
            evaluations = load_space_evaluations(ROOT / args.store, space)
            model = _model(model_name)
            shown = Path(model_name).stem.removeprefix("weights-")
            load = os.getloadavg()[0]
            ranking, spent = timed(lambda: rank_space(model, space))
            measured = np.array([evaluations[c.point.label].time_s
                                 if evaluations[c.point.label].ok else np.inf
                                 for c in ranking.candidates])
            best = measured.min()
            fraction = best / measured[ranking.order]
            runs95 = int(np.argmax(fraction >= 0.95)) + 1
            best_at = int(np.flatnonzero(measured[ranking.order] == best)[0]) + 1
            finite = np.isfinite(measured) & np.isfinite(ranking.predicted_s)
            rho = spearmanr(measured[finite], ranking.predicted_s[finite])[0]
            picks = " ".join(f"{f:.2f}" for f in fraction[:3])
            symbolic = sum(r.method.value == "symbolic" for r in ranking.counting)
            print(f"{name:<15} {shown:<10} {spent.wall_s:>7.2f} {spent.cpu_s:>6.2f} "
                  f"{load:>5.1f} {rho:>8.2f} {picks:>32} {runs95:>6} {best_at:>7} "
                  f"{f'{symbolic}/{len(ranking.counting)}':>8}", flush=True)
            for r in ranking.counting:
                if r.method.value != "symbolic":
                    print(f"    counted per point: {r.label} ({r.points} points): {r.reason}")
            if args.terms and shown.startswith("linear") and "+" not in shown:
                first = ranking.candidates[int(ranking.order[0])]
                top = ranking.candidates[int(np.argmin(measured))]
                for label, c, terms in zip(("model's first", "measured best"),
                                           (first, top), _terms(model, [first, top])):
                    i = ranking.candidates.index(c)
                    print(f"    {label}: {c.point.label} predicted "
                          f"{ranking.predicted_s[i] * 1e3:.4f} ms, measured "
                          f"{measured[i] * 1e3:.4f} ms; terms (ms): "
                          + ", ".join(f"{n} {v * 1e3:.4f}" for n, v in terms))


if __name__ == "__main__":
    main()
