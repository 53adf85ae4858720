"""Write a weights file: ``chains38``'s fit with some device-feature families left out
(their features read as 0, so a ranking never computes them), every fitted weight and
price kept as it is (issue #33, ``structure-ranking.md`` section 54).  Nothing is
refitted: the kept terms carry chains38's weights, fitted on its training stores only.

Run: ``python benchmarks/subset_model.py --keep fam+fam --out FILE.json``
(family names as ``feature_ablation.py`` prints them: module.function).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SOURCE = ROOT / "sample_data" / "h100" / "weights-linear-fp64-sectors-chains38.json"


def subset_document(document: dict, dropped: tuple[str, ...], note: str) -> dict:
    """``document`` (a fitted expression model) with every feature of ``dropped`` read
    as the constant 0 (a whole name, never a prefix of another)."""
    out = dict(document)
    text = document["model"]
    for name in dropped:
        text = re.sub(rf"(?<![\w:<>=]){re.escape(name)}(?![\w:<>=])", "0", text)
    out["model"] = text
    out["provenance"] = {**document.get("provenance", {}), "derived": note}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", default="", help="family+family (modules' names)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from workbench.models import load_model
    from workbench.models.device_features import device_families

    document = json.loads(SOURCE.read_text())
    model = load_model(SOURCE)
    family_of = {n: ".".join(f.name.split(".")[-2:])
                 for f in device_families() for n in f.features}
    kept = set(filter(None, args.keep.split("+")))
    unknown = kept - set(family_of.values())
    if unknown:
        parser.error(f"no such family: {', '.join(sorted(unknown))}")
    dropped = tuple(n for n in model.features if n in family_of and family_of[n] not in kept)
    note = (f"{SOURCE.name} with the device features of every family but "
            f"{', '.join(sorted(kept)) or 'none'} read as 0 ({', '.join(dropped)}); "
            "weights not refitted (benchmarks/subset_model.py, issue #33)")
    Path(args.out).write_text(json.dumps(subset_document(document, dropped, note), indent=1)
                              + "\n")
    check = load_model(Path(args.out))
    left = [n for n in check.features if n in family_of]
    print(f"{args.out}: {len(check.features)} features, device features kept: {left}")


if __name__ == "__main__":
    main()
