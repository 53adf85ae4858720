#!/usr/bin/env bash
# Time-tiled stencils on the H100 (Prajapati et al.), through the device tool carrying
# .whl:   bash scripts/h100_timetiling.sh OUTDIR
#   1. the microbenchmarks of L, tau_sync, T_sync and C_iter (Tables 3 and 4), stored in
#      OUTDIR/timetiling.sqlite, and the calibration derived from them
#      (OUTDIR/tiling-calibration.json, with registers per stencil from the build logs);
#   2. the driver against numpy's plain time loop at small sizes on the GPU (the large
#      baseline problems are not verified point by point);
#   3. the baseline set (>= 300 points per stencil and size) of the four 2-D stencils at
#      4096^2 and 8192^2 (T = 48) and the two 3-D ones at 256^3 and 384^3 (T = 24), every
#      point the minimum of five runs of its whole band sequence, into the same store.
# loopy's and pyopencl's caches start empty (first-time costs are real); 12 worker
# processes generate and build ahead while the main process launches.
# Sized for about 450 s on the H100 machine (16 cores); the baseline stage stops itself
# at BASELINE_SECONDS (default 330).  Environment:
#   STAGES="micro check baseline" (default), any subset, or "chosen": section 6, per
#     stencil and size the CHOSEN_POINTS (default 40) best points the model predicts
#     within 10% of its minimum, with the calibration in CALIBRATION (default
#     OUTDIR/tiling-calibration.json; on a fresh machine carry the one of a first call,
#     e.g. sample_data/h100/tiling-calibration.json); stops at CHOSEN_SECONDS (240);
#   TT_FROM=K: measure from the K-th problem of the list on (0: jacobi2d at the small
#     2-D size; the order is that of problems() below);
#   RESUME_FROM=STORE: start from a copy of a store an earlier call left unfinished
#     (carried in the working tree; X.sqlite.xz, or X.sqlite shipped as one, is
#     unpacked); unfinished campaigns resume, finished ones are skipped (before
#     2026-11-23 22:50 UTC they were measured again);
#   TT_DRY_RUN=1 TT_DEVICE=Portable TT_JOBS=2: the whole script at tiny sizes on a CPU
#     (no .whl needed).
set -uo pipefail
out=${1:?output folder}
if [ -z "${TT_DRY_RUN:-}" ]; then
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
if [ -n "${RESUME_FROM:-}" ]; then
  # a shipped store is compressed (X.sqlite.xz; sample_data/h100/README.md): unpack it
  if [ -f "$RESUME_FROM" ] && [[ "$RESUME_FROM" != *.xz ]]; then
    cp "$RESUME_FROM" "$out/timetiling.sqlite" || exit 1
  else
    python3 -m workbench store-unpack "$RESUME_FROM" -o "$out/timetiling.sqlite" || exit 1
  fi
fi
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-timetiling.txt"
driver=$(mktemp --suffix=.py)
cat > "$driver" <<'PY'
import os, statistics, sys, time

from workbench.kernels.timetiled.stencils import STENCILS
from workbench.measure import find_device, open_device
from workbench.errors import ModelError
from workbench.measure.store import MeasurementStore
from workbench.models.tiling import (H100, TilingModel, calibration_from_measurements,
                                     evaluate_grid, feasible_grid, load_calibration,
                                     near_minimum, point_labels, registers_of,
                                     save_calibration, tables)
from workbench.tuning.timetiled_campaign import (check_on_device, explore, failures,
                                                 finished_before)
from workbench.tuning.timetiled_microbench import measure_microbenchmarks

NV = ()
DEVICE = os.environ.get("TT_DEVICE", "NVIDIA")
if os.environ.get("TT_DRY_RUN"):   # a dry run of the whole script on a CPU device
    SIZES_2D = ({"S1": 128, "S2": 128, "T": 48}, {"S1": 160, "S2": 128, "T": 48})
    SIZES_3D = ({"S1": 24, "S2": 24, "S3": 32, "T": 24},
                {"S1": 32, "S2": 24, "S3": 32, "T": 24})
else:
    SIZES_2D = ({"S1": 4096, "S2": 4096, "T": 48}, {"S1": 8192, "S2": 8192, "T": 48})
    SIZES_3D = ({"S1": 256, "S2": 256, "S3": 256, "T": 24},
                {"S1": 384, "S2": 384, "S3": 384, "T": 24})


def micro(out, store, dev, queue):
    began = time.time()
    cid = measure_microbenchmarks(queue, dev.identity, store, build_options=NV,
                                  stencils=["heat2d"] if os.environ.get("TT_DRY_RUN")
                                  else None,
                                  on_progress=lambda i, n, what: print(
                                      f"  [{i + 1}/{n}] {what}", flush=True))
    rows = store.measurements(campaign=cid)
    regs = {}
    for m in rows:
        if m.key.kernel == "ttmb.band" and m.extra.get("build_log"):
            stencil = m.key.variant.split(":")[0]
            r = registers_of(m.extra["build_log"], f"{stencil}_band")
            if r is not None:
                regs.setdefault(stencil, []).append(r)
    try:
        cal = calibration_from_measurements(
            rows, H100, device=dev.identity.device,
            provenance={"store": "timetiling.sqlite", "campaign": cid,
                        "created": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                        "registers_per_item": {k: statistics.median(v)
                                               for k, v in regs.items()},
                        "script": "scripts/h100_timetiling.sh"})
    except ModelError as err:   # the timings are stored: derive it again later
        print(f"no calibration: {err}")
        return
    save_calibration(cal, f"{out}/tiling-calibration.json")
    for name, table in tables(cal, H100).items():
        print(f"{name}\n{table.to_string(index=False)}")
    print(f"microbenchmarks: {len(rows)} timings in {time.time() - began:.1f} s")


def check(queue):
    began = time.time()
    checked = check_on_device(list(STENCILS), queue, points_per_stencil=4,
                              build_options=NV)
    bad = failures(checked)
    n = sum(len(v) for v in checked.values())
    print(f"check against numpy: {n - len(bad)}/{n} points agree "
          f"({time.time() - began:.1f} s)")
    for line in bad:
        print("  FAILED", line)


def problems():
    """Every stencil and size, the smaller sizes first (a cut run keeps whole sizes)."""
    jobs = [(s, z) for z in SIZES_2D for s in ("jacobi2d", "heat2d", "laplacian2d",
                                                 "gradient2d")]
    jobs[4:4] = [(s, SIZES_3D[0]) for s in ("heat3d", "laplacian3d")]
    jobs += [(s, SIZES_3D[1]) for s in ("heat3d", "laplacian3d")]
    # TT_FROM=K: start at the K-th problem (a store carried in already holds the others)
    return jobs[int(os.environ.get("TT_FROM", 0)):]


def chosen(out, stencil, sizes):
    """Section 6: the points the model predicts within 10% of its minimum (the best
    CHOSEN_POINTS of them, default 40), with the calibration measured above."""
    cal = load_calibration(os.environ.get("CALIBRATION") or f"{out}/tiling-calibration.json")
    regs = dict(cal.provenance.get("registers_per_item") or {})
    model = TilingModel().ready(device_model="h100", calibration=cal, registers=regs)
    near = near_minimum(evaluate_grid(model, stencil, sizes, feasible_grid(
        len(sizes) - 1, sizes["T"])), 0.10)
    return point_labels(near.head(int(os.environ.get("CHOSEN_POINTS", 40))),
                        len(sizes) - 1)


def measure(store, dev, queue, seconds, stage, out):
    deadline = time.time() + seconds
    for stencil, sizes in problems():
        if time.time() > deadline:
            print(f"time is up before {stencil} {sizes}: run again to resume")
            break
        began = time.time()
        try:
            only = chosen(out, stencil, sizes) if stage == "chosen" else None
        except ModelError as err:
            print(f"{stencil} {sizes}: no model choice ({err})")
            continue
        if finished_before(store, dev, stencil, sizes, only=only):
            print(f"{stencil} {sizes}: measured already (a finished campaign): skipped")
            continue
        result = explore(stencil, sizes, device=dev, queue=queue, store=store,
                         only=only, jobs=int(os.environ.get("TT_JOBS", 12)),
                         build_options=NV,
                         should_stop=lambda: time.time() > deadline)
        ok = [e for e in result.evaluations if e.ok]
        best = min(ok, key=lambda e: e.time_s) if ok else None
        print(f"{stencil} {sizes}: {len(result.evaluations)} points, {len(ok)} ok, "
              f"stopped by {result.stopped_by.value}, {time.time() - began:.1f} s; best "
              f"{best.point.label if best else '-'} "
              f"{best.time_s if best else float('nan'):.6g} s", flush=True)


if __name__ == "__main__":
    out, stage, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dev = find_device(DEVICE)
    if "NVIDIA" in dev.label:
        NV = ("-cl-nv-verbose",)     # the build log then names registers per kernel
    _, queue = open_device(dev)
    with MeasurementStore.open(f"{out}/timetiling.sqlite") as store:
        if stage == "micro":
            micro(out, store, dev, queue)
        elif stage == "check":
            check(queue)
        else:
            measure(store, dev, queue, seconds, stage, out)
PY
for stage in ${STAGES:-micro check baseline}; do
  start=$(date +%s)
  case $stage in micro) limit=100;; check) limit=60;; chosen) limit=${CHOSEN_SECONDS:-240};;
    *) limit=${BASELINE_SECONDS:-330};; esac
  timeout -s INT $((limit + 30)) python3 "$driver" "$out" "$stage" "$limit" 2>&1 \
    | tee -a "$out/timetiling.log"
  echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/timetiling.log"
done
python3 - "$out/timetiling.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
