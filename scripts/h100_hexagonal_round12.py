"""The driver of ``scripts/h100_hexagonal_round12.sh`` (issue 34, round 12): the shipped
constants' picks on the nine fitted problems and at 9216^2, timed beside the best
baseline points with repeats.

    python3 scripts/h100_hexagonal_round12.py OUT SECONDS

Per problem of the plan file ``HXR_PLAN`` (``benchmarks/tiling_round12.py --plan``
wrote it before the call), in its order: the first ``HXR_TOP`` points the generator
builds under each constants file of :data:`PICK_SETS` (rounds 8-11's selection with
builds); a point whose registers the plan names (an earlier call's build of the same
stencil, size and label; builds are deterministic) is not built again, the others are
built here.  Priced again with their registers, at most ``HXR_PICKS`` within 10 % of
the new minimum are the picks.  Then the picks and the plan's baseline points are each
compiled once and timed in ``HXR_ROUNDS`` interleaved rounds (the order turns by one
point each round); in a round a point gets one warm-up launch sequence and
``HXR_RUNS`` timed ones, each the whole sequence from first start to last end (the
profile of :func:`workbench.tuning.sequence.run_sequence`).  Every timed run goes to
``OUT/hexagonal-round12-times.csv``, the selection to ``-builds.csv``.  Stops at
``SECONDS`` from its start: a problem that would start later is skipped, and a problem
under way keeps the rounds it finished.  ``HXR_DRY_RUN=1 HXR_DEVICE=Portable`` with a
plan of tiny problems: a CPU.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

H100_DIR = ROOT / "sample_data" / "h100"
TOP = int(os.environ.get("HXR_TOP", 24))
PICKS = int(os.environ.get("HXR_PICKS", 4))
ROUNDS = int(os.environ.get("HXR_ROUNDS", 7))
RUNS = int(os.environ.get("HXR_RUNS", 3))
#: (constants file, kind of its picks); a candidate of the round would be added here
PICK_SETS = (("tiling-calibration.json", "chosen-shipped"),)
PREFIX = "hexagonal-round12"


def sizes_text(sizes):
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def problems(plan):
    for key in plan:
        stencil, text = key.split(" ", 1)
        yield key, stencil, {k: int(v) for k, v in (x.split("=") for x in text.split(","))}


def select(out, dev, plan, nv):
    """Per problem and constants set, the picks (module docstring)."""
    import pandas as pd

    from workbench.kernels.timetiled import hexspaces
    from workbench.models.tiling import TilingModel, load_calibration, near_minimum
    from workbench.models.tiling.points import parse_label
    from workbench.models.tiling.schemes import Scheme
    from workbench.models.tiling.selection import reprice_with_registers, top_candidates
    from workbench.tuning.tiling_builds import build_points

    began = time.time()
    tops, models = {}, {}
    for file, kind in PICK_SETS:
        cal = load_calibration(H100_DIR / file)
        regs = dict(cal.provenance.get("registers_per_item") or {})
        for key, stencil, sizes in problems(plan):
            models[(kind, key)] = model = TilingModel().ready(
                device_model="h100", calibration=cal, form="resident-lane-rows",
                registers=regs, scheme=Scheme.paper(len(sizes) - 1).value)
            tops[(kind, key)] = top_candidates(
                model, stencil, sizes, TOP, keep=lambda lb, s=stencil, z=sizes:
                hexspaces.feasible(hexspaces.hex_config(s, parse_label(lb), z)))
    known = {(key, lb): r for key, _, _ in problems(plan)
             for lb, r in plan[key].get("registers", {}).items()}
    work = []
    for (kind, key), frame in tops.items():
        _, stencil, sizes = next(p for p in problems(plan) if p[0] == key)
        work += [(stencil, sizes, lb) for lb in frame["label"]
                 if (key, lb) not in known and (stencil, sizes, lb) not in work]
    print(f"top {TOP} of {len(plan)} problems: {time.time() - began:.1f} s; "
          f"{len(work)} points to build", flush=True)
    began = time.time()
    builds = build_points(dev.index, work, nv, jobs=int(os.environ.get("HXR_JOBS", 14)))
    print(f"{len(builds)} builds in {time.time() - began:.1f} s", flush=True)
    for (stencil, sizes, _), b in zip(work, builds):
        known[(f"{stencil} {sizes_text(sizes)}", b.label)] = b.registers
    chosen, rows = {}, []
    for (kind, key), top in tops.items():
        _, stencil, sizes = next(p for p in problems(plan) if p[0] == key)
        priced = reprice_with_registers(models[(kind, key)], stencil, sizes, top, {
            lb: known.get((key, lb)) for lb in top["label"]})
        chosen[(kind, key)] = picks = list(near_minimum(priced, 0.10)["label"])[:PICKS]
        rows += [{"stencil": stencil, "sizes": sizes_text(sizes), "kind": kind,
                  "label": r.label, "estimated_s": r.estimated_s,
                  "registers": r.registers, "repriced_s": r.T_alg_s, "rank": rank,
                  "picked": r.label in picks, "built_here": (stencil, sizes, r.label)
                  in work} for rank, r in enumerate(priced.itertuples(index=False))]
        print(f"{key} {kind}: picks {picks}", flush=True)
    pd.DataFrame(rows).to_csv(Path(out, f"{PREFIX}-builds.csv"), index=False)
    return chosen


def timed_points(queue, stencil, sizes, labels, nv):
    """Each label compiled once: label -> a function that times one whole sequence."""
    from workbench.kernels.timetiled.hexspaces import hexagonal_space
    from workbench.tuning.live import compile_code, kernel_inputs, launcher, prepare_point
    from workbench.tuning.sequence import SequenceEvaluator, run_sequence

    space = hexagonal_space(stencil, baseline=1, only=labels, **sizes)
    ev = SequenceEvaluator(space, queue, verify=False, build_options=nv)
    out = {}
    for point in space.points():
        prepared = prepare_point(space, point, queue.context)
        if prepared.failure is not None:
            print(f"  {point.label}: {prepared.failure[-200:]}", flush=True)
            continue
        _, failure, _, program = compile_code(queue.context, prepared.code, nv)
        if failure is not None:
            print(f"  {point.label}: build failed {failure[-200:]}", flush=True)
            continue
        args = kernel_inputs(prepared.kernel, ev._inputs())
        scratch = ev._scratch_arrays(args)
        count = int(space.sequence.count(point))

        def once(launch=launcher(prepared, program), args=args, count=count,
                 scratch=scratch):
            event, _ = run_sequence(launch, queue, args, space.sequence, count, scratch)
            event.wait()
            return (event.profile.end - event.profile.start) * 1e-9, count

        out[point.label] = once
    return out


def prebuild(dev, plan, kinds, nv):
    """Every point to be timed, generated and built in a pool first (fills loopy's and
    pyopencl's disk caches, so the timing process only reads them)."""
    from workbench.tuning.tiling_builds import build_points

    work = [(stencil, sizes, lb) for key, stencil, sizes in problems(plan)
            for lb in dict.fromkeys(sum(kinds[key].values(), []))]
    began = time.time()
    build_points(dev.index, work, nv, jobs=int(os.environ.get("HXR_JOBS", 14)))
    print(f"{len(work)} points to time, built in {time.time() - began:.1f} s", flush=True)


def main(out, seconds):
    from workbench.measure import find_device, open_device

    began = time.time()
    deadline = began + seconds
    dev = find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = open_device(dev)
    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    plan = json.loads(Path(os.environ["HXR_PLAN"]).read_text())
    chosen = select(out, dev, plan, nv)
    kinds = {key: {**{kind: chosen[(kind, key)] for _, kind in PICK_SETS},
                   "baseline": plan[key]["baseline"]} for key, _, _ in problems(plan)}
    Path(out, f"{PREFIX}-plan.json").write_text(json.dumps(kinds, indent=1) + "\n")
    prebuild(dev, plan, kinds, nv)
    with open(Path(out, f"{PREFIX}-times.csv"), "w", newline="") as f:
        rows = csv.writer(f)
        rows.writerow(["stencil", "sizes", "label", "kinds", "round", "run", "time_s",
                       "launches"])
        for key, stencil, sizes in problems(plan):
            if time.time() > deadline:
                print(f"time is up before {key}", flush=True)
                continue
            start = time.time()
            labels = list(dict.fromkeys(sum(kinds[key].values(), [])))
            tags = {lb: "+".join(k for k, v in kinds[key].items() if lb in v)
                    for lb in labels}
            timers = timed_points(queue, stencil, sizes, labels, nv)
            order = [lb for lb in labels if lb in timers]
            done, mins = 0, {lb: [] for lb in order}
            for r in range(ROUNDS):
                if time.time() > deadline:
                    break
                turn = order[r % len(order):] + order[:r % len(order)]
                for lb in turn:
                    timers[lb]()                      # warm-up: not recorded
                    for run in range(RUNS):
                        t, count = timers[lb]()
                        mins[lb].append(t)
                        rows.writerow([stencil, sizes_text(sizes), lb, tags[lb], r, run,
                                       f"{t:.9g}", count])
                done = r + 1
            f.flush()
            print(f"{key}: {len(order)} of {len(labels)} points, {done} rounds, "
                  f"{time.time() - start:.1f} s", flush=True)
            for lb in sorted(order, key=lambda x: min(mins[x] or [9])):
                if mins[lb]:
                    print(f"  {tags[lb]:28s} {lb:34s} min {1e3 * min(mins[lb]):.4f} ms "
                          f"max {1e3 * max(mins[lb]):.4f} ms", flush=True)
            del timers
    print(f"driver: {time.time() - began:.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
