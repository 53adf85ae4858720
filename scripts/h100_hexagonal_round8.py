"""The driver of ``scripts/h100_hexagonal_round8.sh`` (issue 34, round 8): the 2-D
sweep's microbenchmark, the rest of jacobi2d 10240^2's baseline set, and the picks of
constants fixed before the call on sizes no call measured.

    python3 scripts/h100_hexagonal_round8.py OUT STAGE SECONDS

Stages:

* ``sweep``: one launch of a full A row of the hybrid kernel (``hex_pair``'s band, as
  the scheme's microbenchmarks time it) for the tiles of :data:`SWEEP_TILES` on the
  grids of :data:`SWEEP_SIZES` (jacobi2d, ``T = 48``), into
  ``OUT/hexagonal-round8.sqlite`` (campaign ``hexagonal-sweep``, kernel
  ``ttmb.hex_band``, variants ending in ``,S=<n>``); then the points of jacobi2d
  10240^2's baseline set that round 7 did not measure (every label not among its
  every-third, campaign ``tune/hx_jacobi2d/baseline/S1=10240,S2=10240,T=48``).
* ``picks``: per problem of the plan file ``HXR_PLAN`` (JSON ``{"<stencil> <sizes>":
  {"<kind>": [labels]}}``, written here by ``benchmarks/tiling_sweep.py --plan``):
  the lane-rows form's first ``HXR_TOP`` points the generator builds with the
  constants of ``sample_data/h100/tiling-calibration-round8.json`` (and with round
  7's, ``tiling-calibration-round7.json``), built for their registers, priced again,
  at most ``HXR_PICKS`` within 10 % of the new minimum measured (campaign kinds
  ``chosen-with-builds`` and ``chosen-round7``), then the plan's own kinds (baseline
  points).

Both stop themselves at ``SECONDS``.  ``HXR_DRY_RUN=1 HXR_DEVICE=Portable``: tiny
problems on a CPU.
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

DRY = bool(os.environ.get("HXR_DRY_RUN"))
STORE = "hexagonal-round8.sqlite"
TOP = int(os.environ.get("HXR_TOP", 24))
PICKS = int(os.environ.get("HXR_PICKS", 4))
#: grids of the sweep microbenchmark (none is a hold-out size of this round's picks)
SWEEP_SIZES = (64, 96) if DRY else (4096, 6144, 8192, 10240, 14336)
#: tiles (t_T, tiles, lanes per axis, axis 0 first): the best baseline and pick shapes
#: of 4096^2-10240^2, and a one-row-of-lanes tile
SWEEP_TILES = (((4, (2, 32), (1, 32)),) if DRY else
               ((6, (2, 512), (2, 128)), (8, (4, 352), (2, 128)),
                (12, (4, 256), (2, 128)), (8, (1, 384), (1, 128))))
REST = ("jacobi2d", {"S1": 96, "S2": 96, "T": 48} if DRY else
        {"S1": 10240, "S2": 10240, "T": 48})


def sweep(out, dev, queue, seconds):
    from workbench.kernels.timetiled.microbench import hex_pair
    from workbench.measure.store import MeasurementStore
    from workbench.tuning.timetiled_microbench import measure_microbenchmarks

    deadline = time.time() + seconds
    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    benches = [hex_pair("jacobi2d", t_T, tiles, lanes, (n, n), 48, suffix=f",S={n}")[0]
               for t_T, tiles, lanes in SWEEP_TILES for n in SWEEP_SIZES]
    began = time.time()
    with MeasurementStore.open(f"{out}/{STORE}") as store:
        cid = measure_microbenchmarks(
            queue, dev.identity, store, benches=benches, build_options=nv,
            name="hexagonal-sweep",
            on_progress=lambda i, n, what: print(f"[{i + 1}/{n}] {what}", flush=True))
        for m in store.measurements(campaign=cid, status=None):
            print(f"  {m.key.variant:52s} {m.status.value:8s} min "
                  f"{min(m.raw_times_s) if m.raw_times_s else float('nan'):.6g} s")
        print(f"sweep microbenchmarks: {time.time() - began:.1f} s", flush=True)
        stencil, sizes = REST
        labels = sorted(p.label for p in hxr.hexspaces.hexagonal_space(
            stencil, baseline=1, **sizes).points())
        measured = set(labels[::3])             # round 7's third (its HOLDOUT_STRIDE)
        rest = [lb for lb in labels if lb not in measured][:4 if DRY else None]
        print(f"{stencil} {hxr.sizes_text(sizes)}: {len(rest)} baseline points left of "
              f"{len(labels)}", flush=True)
        hxr.measure(store, dev, queue, stencil, sizes, "baseline", rest, deadline)


#: (calibration file, campaign kind, builds file suffix) of the picks stage: round 8's
#: constants, and round 7's (the shipped ones) on the same problems, for comparison
PICK_SETS = (("tiling-calibration-round8.json", "chosen-with-builds", ""),
             ("tiling-calibration-round7.json", "chosen-round7", "-round7"))


def picks(out, dev, queue, seconds, *, store=STORE, pick_sets=PICK_SETS,
          prefix="hexagonal-round8"):
    """The picks stage (module docstring); round 9 passes its own ``store``,
    ``pick_sets`` and file ``prefix``."""
    import pandas as pd

    from workbench.measure.store import MeasurementStore
    from workbench.models.tiling import TilingModel, load_calibration, near_minimum
    from workbench.models.tiling.points import parse_label
    from workbench.models.tiling.schemes import Scheme
    from workbench.models.tiling.selection import reprice_with_registers, top_candidates
    from workbench.tuning.tiling_builds import build_points

    deadline = time.time() + seconds
    plan_in = json.loads(Path(os.environ["HXR_PLAN"]).read_text())
    order = []
    for key in plan_in:
        stencil, text = key.split(" ", 1)
        order.append((stencil, {k: int(v) for k, v in (x.split("=") for x in
                                                       text.split(","))}))
    began = time.time()
    tops, models = {}, {}
    for file, kind, _ in pick_sets:
        cal = load_calibration(hxr.H100_DIR / file)
        regs = dict(cal.provenance.get("registers_per_item") or {})
        for stencil, sizes in order:
            dims = len(sizes) - 1
            key = (kind, stencil, hxr.sizes_text(sizes))
            models[key] = model = TilingModel().ready(
                device_model="h100", calibration=cal, form="resident-lane-rows",
                registers=regs, scheme=Scheme.paper(dims).value)
            tops[key] = top_candidates(model, stencil, sizes, TOP, keep=lambda lb,
                                       s=stencil, z=sizes: hxr.hexspaces.feasible(
                                           hxr.hexspaces.hex_config(s, parse_label(lb), z)))
    print(f"models and top {TOP} of {len(order)} problems: {time.time() - began:.1f} s")
    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    jobs = int(os.environ.get("HXR_JOBS", 14))
    work = []
    for (kind, stencil, text), frame in tops.items():
        sizes = next(z for s, z in order if s == stencil and hxr.sizes_text(z) == text)
        work += [(stencil, sizes, lb) for lb in frame["label"]
                 if (stencil, sizes, lb) not in work]
    began = time.time()
    builds = build_points(dev.index, work, nv, jobs=jobs)
    wall = time.time() - began
    print(f"{len(builds)} builds in {wall:.1f} s wall ({jobs} processes)", flush=True)
    found = {(s, hxr.sizes_text(z), b.label): b for (s, z, _), b in zip(work, builds)}
    plan = {(s, hxr.sizes_text(z)): {} for s, z in order}
    for file, kind, suffix in pick_sets:
        rows = []
        for stencil, sizes in order:
            key = (stencil, hxr.sizes_text(sizes))
            top = tops[(kind, *key)]
            priced = reprice_with_registers(models[(kind, *key)], stencil, sizes, top, {
                lb: found[(*key, lb)].registers for lb in top["label"]})
            chosen = list(near_minimum(priced, 0.10)["label"])[:PICKS]
            for rank, row in enumerate(priced.itertuples(index=False)):
                b = found[(*key, row.label)]
                rows.append({"stencil": stencil, "sizes": key[1], "label": row.label,
                             "estimated_s": row.estimated_s, "registers": row.registers,
                             "repriced_s": row.T_alg_s, "rank": rank,
                             "picked": row.label in chosen, "codegen_s": b.codegen_s,
                             "build_s": b.build_s, "failure": (b.failure or "")[-200:]})
            plan[key][kind] = chosen
            print(f"{stencil} {key[1]} {kind}: picks {chosen}", flush=True)
        pd.DataFrame(rows).to_csv(Path(out, f"{prefix}-builds{suffix}.csv"),
                                  index=False)
    for stencil, sizes in order:
        plan[(stencil, hxr.sizes_text(sizes))].update(
            plan_in[f"{stencil} {hxr.sizes_text(sizes)}"])
    Path(out, f"{prefix}-build-wall.txt").write_text(
        f"{len(builds)} builds, {wall:.2f} s wall, {jobs} processes\n")
    Path(out, f"{prefix}-plan.json").write_text(json.dumps(
        {f"{s} {z}": v for (s, z), v in plan.items()}, indent=1) + "\n")
    with MeasurementStore.open(f"{out}/{store}") as db:
        for stencil, sizes in order:
            for kind, labels in plan[(stencil, hxr.sizes_text(sizes))].items():
                if time.time() > deadline:
                    print(f"time is up before {stencil} {hxr.sizes_text(sizes)} {kind}")
                    continue
                if labels:
                    hxr.measure(db, dev, queue, stencil, sizes, kind, labels, deadline)


if __name__ == "__main__":
    out, stage, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dev = hxr.find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = hxr.open_device(dev)
    {"sweep": sweep, "picks": picks}[stage](out, dev, queue, seconds)
