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
import tempfile
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
    from workbench.tuning.parallel import PrebuildPool
    from workbench.tuning.runner import Explorer
    from workbench.tuning.sequence import SequenceEvaluator

    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    began = time.time()
    space = hxr.hexspaces.hexagonal_space(stencil, baseline=1, only=labels, **sizes)
    name = f"tune/{space.name}/{kind}/{hxr.sizes_text(sizes)}"
    ev = SequenceEvaluator(space, queue, protocol=hxr.PROTOCOL, verify=False,
                           build_options=nv)
    probe = InOrder(labels)
    probe.start(space, space.points())
    order = []
    while (p := probe.ask()) is not None:
        order.append(p)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chosen.py"
        path.write_text(hxr.CHOSEN.format(stencil=stencil, only=sorted(labels)))
        with PrebuildPool(ev, f"{path}:space", order, dev.index,
                          int(os.environ.get("HXR_JOBS", 14))) as pool:
            result = Explorer(space, InOrder(labels), pool, store=store,
                              device=dev.identity, name=name,
                              discard_first=hxr.PROTOCOL.discard_first).run(
                None, should_stop=lambda: time.time() > deadline)
    ok = [e for e in result.evaluations if e.ok]
    best = min(ok, key=lambda e: e.time_s) if ok else None
    print(f"{stencil} {hxr.sizes_text(sizes)} {kind}: {len(result.evaluations)} of "
          f"{len(labels)} points, {len(ok)} ok, {time.time() - began:.1f} s; best "
          f"{best.point.label if best else '-'} "
          f"{best.time_s if best else float('nan'):.6g} s", flush=True)


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
