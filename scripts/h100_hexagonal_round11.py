"""The driver of ``scripts/h100_hexagonal_round11.sh`` (issue 34, round 11): the picks
of round 11's constants and of the shipped ones (round 7's) on a size no call
measured, and the baseline sets fastest-first.

    python3 scripts/h100_hexagonal_round11.py OUT SECONDS

Round 8's picks stage (``scripts/h100_hexagonal_round8.py``) with the constants of
``sample_data/h100/tiling-calibration-round11.json`` (campaign kind ``chosen-round11``)
and ``tiling-calibration-round7.json`` (kind ``chosen-round7``): per problem of the
plan file ``HXR_PLAN`` (written before the call by ``benchmarks/tiling_round11.py
--plan``), in its order, the first ``HXR_TOP`` points the generator builds, built for
their registers, priced again, at most ``HXR_PICKS`` within 10 % of the new minimum
measured; then the plan's baseline labels in their order until ``SECONDS`` have
passed, into ``OUT/hexagonal-round11.sqlite`` (+ ``-builds.csv``, ``-plan.json``).
``HXR_DRY_RUN=1 HXR_DEVICE=Portable`` with a plan of tiny problems: a CPU.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import h100_hexagonal_resident as hxr  # noqa: E402
import h100_hexagonal_round8 as r8  # noqa: E402

STORE = "hexagonal-round11.sqlite"
PICK_SETS = (("tiling-calibration-round11.json", "chosen-round11", ""),
             ("tiling-calibration-round7.json", "chosen-round7", "-round7"))

if __name__ == "__main__":
    out, seconds = sys.argv[1], float(sys.argv[2])
    dev = hxr.find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = hxr.open_device(dev)
    r8.picks(out, dev, queue, seconds, store=STORE, pick_sets=PICK_SETS,
             prefix="hexagonal-round11")
