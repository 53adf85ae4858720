"""Benchmark: runs to 95 % in the order of a model's expression with whole device-feature
families set to 0, from ``feature_dump.py``'s values (issue #33, ``structure-ranking.md``
section 54).  No kernel is built or counted: the screen only re-evaluates the expression
at each point's dumped features (and multiplies by the dumped residency factor).

Prints, per variant (all families; without one family; with only one; with none; and
the ``--keep`` sets given), the geometric mean of runs to 95 % over all dumped spaces and
per group (the 12 older spaces, blind, blind2, ..., blind9).

Run: ``python benchmarks/feature_ablation.py --dump FILE.pkl [--model chains38]
[--keep fam1+fam2,...]``
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def group_of(space: str) -> str:
    """The ten groups of section 51: the 12 older spaces, then each blind set."""
    return space.split("_", 1)[0] if space.startswith("blind") else "older"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", required=True)
    parser.add_argument("--model", default="chains38")
    parser.add_argument("--keep", default="", help="family+family,... variants to add")
    parser.add_argument("--per-space", action="store_true")
    args = parser.parse_args()
    from feature_dump import orders
    from model_orders_all import model_named

    from workbench.models.device_features import device_families
    from workbench.tuning.metrics import geometric_mean

    with open(args.dump, "rb") as f:
        dump = pickle.load(f)
    model = model_named(args.model)
    family_of = {n: ".".join(f.name.split(".")[-2:])
                 for f in device_families() for n in f.features}
    families = sorted({family_of[n] for n in model.features if n in family_of})
    device = frozenset(n for n in model.features if n in family_of)

    def zeroed(kept: set[str]) -> frozenset[str]:
        return frozenset(n for n in device if family_of[n] not in kept)

    variants = [("all families", zeroed(set(families)))]
    variants += [(f"without {f}", zeroed(set(families) - {f})) for f in families]
    variants += [("none (counts only)", zeroed(set()))]
    variants += [(f"only {f}", zeroed({f})) for f in families]
    variants += [(f"keep {k}", zeroed(set(k.split("+")))) for k in args.keep.split(",") if k]
    groups = sorted({group_of(s) for s in dump}, key=lambda g: (g != "older", g))
    print(f"{len(dump)} spaces; families: {', '.join(families)}")
    print(f"{'gm':>5} " + " ".join(f"{g:>7}" for g in groups) + "  variant")
    for label, zero in variants:
        runs = orders(dump, model, zero)
        per = {g: geometric_mean([r for s, r in runs.items() if group_of(s) == g])
               for g in groups}
        print(f"{geometric_mean(list(runs.values())):>5.2f} "
              + " ".join(f"{per[g]:>7.2f}" for g in groups) + f"  {label}")
        if args.per_space:
            print("    " + " ".join(f"{s}={r}" for s, r in sorted(runs.items())))


if __name__ == "__main__":
    main()
