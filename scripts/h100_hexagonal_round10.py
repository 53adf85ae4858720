"""The driver of ``scripts/h100_hexagonal_round10.sh`` (issue 34, round 10): the shipped
constants' picks and the whole baseline set on sizes no fit saw.

    python3 scripts/h100_hexagonal_round10.py OUT SECONDS

Measures the stages of the plan file ``HXR_PLAN`` (written before the call by
``benchmarks/tiling_round10.py --plan``) in their order, into
``OUT/hexagonal-round10.sqlite`` (campaigns ``tune/hx_<stencil>/<kind>/<sizes>``).  A
stage is ``{"stencil", "sizes", "kind", "labels", "leave_s"}``: its points are measured
in the order of ``labels`` (builds run ahead in ``HXR_JOBS`` processes) until the
call's ``SECONDS`` less ``leave_s`` have passed; a stage that would start after that is
skipped.  Each point is timed as its whole launch sequence, the minimum of five runs
(the protocol of rounds 1-9).  ``HXR_DRY_RUN=1 HXR_DEVICE=Portable`` with a plan of
tiny problems: a CPU.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import h100_hexagonal_resident as hxr  # noqa: E402

STORE = "hexagonal-round10.sqlite"


class InOrder:
    """A strategy that asks for the points in the plan's order of labels."""

    name = "plan-order"

    def __init__(self, labels):
        self.labels = list(labels)
        self._queue = []

    def start(self, space, points) -> float:
        by_label = {p.label: p for p in points}
        self._queue = [by_label[lb] for lb in reversed(self.labels) if lb in by_label]
        return 0.0

    def ask(self):
        return self._queue.pop() if self._queue else None

    def tell(self, evaluation) -> None:
        pass


def measure_in_order(store, dev, queue, stencil, sizes, kind, labels, deadline):
    """``hxr.measure`` with the points in the order of ``labels`` (so that a stage cut
    by its deadline has measured the head of its list)."""
    hxr.measure(store, dev, queue, stencil, sizes, kind, labels, deadline,
                order_by=lambda: InOrder(labels))


def run(out, dev, queue, seconds):
    from workbench.measure.store import MeasurementStore

    plan = json.loads(Path(os.environ["HXR_PLAN"]).read_text())
    end = time.time() + seconds
    with MeasurementStore.open(f"{out}/{STORE}") as db:
        for stage in plan["stages"]:
            deadline = end - float(stage.get("leave_s", 0))
            what = f"{stage['stencil']} {hxr.sizes_text(stage['sizes'])} {stage['kind']}"
            if time.time() > deadline:
                print(f"time is up before {what}", flush=True)
                continue
            measure_in_order(db, dev, queue, stage["stencil"], stage["sizes"],
                             stage["kind"], stage["labels"], deadline)


if __name__ == "__main__":
    out, seconds = sys.argv[1], float(sys.argv[2])
    dev = hxr.find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = hxr.open_device(dev)
    began = time.time()
    run(out, dev, queue, seconds)
    print(f"measured in {time.time() - began:.1f} s", flush=True)
