#!/usr/bin/env bash
# The paper's own tiling on the H100: hexagonal (jacobi1d) and hybrid hexagonal/classic
# (the four 2-D stencils) tiles, the hx_<stencil> spaces, through the device tool:
#   bash scripts/h100_hexagonal.sh "$OUT"      (about 7 minutes; --jobs via HX_JOBS, 14)
#   HX_SIZES="8192" HX_1D=0 HX_STAGES="baseline chosen": only the 2-D stencils at 8192^2
#   1. check: every 2-D stencil and jacobi1d at small sizes against numpy on the GPU
#      (4 points each, the whole launch sequence);
#   2. baseline: the hx_ baseline sets (2-D: local footprint >= 35% of 48 KiB, the
#      baseline's four thread shapes, ~200 points per stencil and size; jacobi1d
#      S1=2^20, T=256: 73 points) at 4096^2 and 8192^2, T = 48, the minimum of five
#      runs of the whole sequence (2T/tT + 1 launches) per point, into
#      OUT/hexagonal.sqlite; stops itself at HX_BASELINE_SECONDS (300);
#   3. chosen: per stencil and size the 40 best points the hybrid model predicts
#      within 10% of its minimum (calibration: sample_data/h100/tiling-calibration.json,
#      carried in the tree), measured the same way; stops at HX_CHOSEN_SECONDS (90).
# Afterwards, here: python benchmarks/tiling_side_by_side.py --hex-store OUT/hexagonal.sqlite
# HX_DRY_RUN=1 HX_DEVICE=Portable HX_JOBS=2: the whole script at tiny sizes on a CPU.
set -uo pipefail
out=${1:?output folder}
if [ -z "${HX_DRY_RUN:-}" ]; then
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: $(git rev-parse HEAD 2>/dev/null)";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal.txt"
driver=$(mktemp --suffix=.py)
cat > "$driver" <<'PY'
import os, sys, tempfile, time
from pathlib import Path

from workbench.errors import ModelError
from workbench.kernels.timetiled import hexspaces
from workbench.measure import find_device, open_device
from workbench.measure.runner import TimingProtocol
from workbench.measure.store import MeasurementStore, Status
from workbench.models.tiling import (TilingModel, evaluate_grid, feasible_grid,
                                     load_calibration, near_minimum, point_labels)
from workbench.models.tiling.schemes import Scheme
from workbench.tuning.parallel import PrebuildPool
from workbench.tuning.runner import Explorer
from workbench.tuning.sequence import SequenceEvaluator
from workbench.tuning.strategies import make_strategy

DRY = bool(os.environ.get("HX_DRY_RUN"))
NV = ()
if DRY:
    PROBLEMS = [("jacobi1d", {"S1": 4096, "T": 16})] + [
        (s, {"S1": n, "S2": n, "T": 48}) for n in (128, 160)
        for s in ("jacobi2d", "heat2d")]
else:
    # HX_SIZES="8192" HX_1D=0: a second call for what the first one's time left out
    PROBLEMS = [("jacobi1d", {"S1": 1 << 20, "T": 256})] * (os.environ.get("HX_1D", "1") == "1") + [
        (s, {"S1": n, "S2": n, "T": 48})
        for n in map(int, os.environ.get("HX_SIZES", "4096 8192").split())
        for s in ("jacobi2d", "heat2d", "laplacian2d", "gradient2d")]
CHECK = {1: {"S1": 5000, "T": 64}, 2: {"S1": 200, "S2": 300, "T": 48}}
PROTOCOL = TimingProtocol(runs=5, discard_first=0)
FILE = hexspaces.__file__
CHOSEN = """from workbench.kernels.timetiled.hexspaces import hexagonal_space


def space(**sizes):
    return hexagonal_space({stencil!r}, only={only!r}, **sizes)
"""


def check(queue):
    began, bad, n = time.time(), [], 0
    for stencil, _ in PROBLEMS[:1] + PROBLEMS[1:5]:
        dims = 1 if stencil == "jacobi1d" else 2
        space = hexspaces.hexagonal_space(stencil, **CHECK[dims])
        ev = SequenceEvaluator(space, queue, protocol=TimingProtocol(runs=1, discard_first=0),
                               build_options=NV)
        points = space.points()
        for p in points[::max(1, len(points) // 4)][:4]:
            e = ev.evaluate(p)
            n += 1
            if e.status is not Status.OK:
                bad.append(f"{stencil} {p.label}: {e.status.value} {e.log[-300:]}")
    print(f"check against numpy: {n - len(bad)}/{n} points agree ({time.time() - began:.1f} s)")
    for line in bad:
        print("  FAILED", line)


def chosen_labels(stencil, sizes):
    cal = load_calibration(os.environ.get("CALIBRATION",
                                          "sample_data/h100/tiling-calibration.json"))
    regs = dict(cal.provenance.get("registers_per_item") or {})
    dims = len(sizes) - 1
    model = TilingModel().ready(device_model="h100", calibration=cal, registers=regs,
                                scheme=Scheme.paper(dims).value)
    grid = feasible_grid(dims, sizes["T"], scheme=Scheme.paper(dims))
    frame = evaluate_grid(model, stencil, sizes, grid)
    labels = point_labels(near_minimum(frame, 0.10), dims)
    space_ok = []
    for label in labels:        # the generator's own limits (lanes within the rows)
        p = {k: int(v) for k, v in (x.split("=") for x in label.split(","))}
        cfg = hexspaces.hex_config(stencil, p, sizes)
        if hexspaces.feasible(cfg):
            space_ok.append(label)
        if len(space_ok) == 40:
            break
    return space_ok


def measure(store, dev, queue, seconds, stage):
    deadline = time.time() + seconds
    jobs = int(os.environ.get("HX_JOBS", 14))
    for stencil, sizes in PROBLEMS:
        if time.time() > deadline:
            print(f"time is up before {stencil} {sizes}")
            break
        began = time.time()
        only = None
        if stage == "chosen":
            try:
                only = chosen_labels(stencil, sizes)
            except ModelError as err:
                print(f"{stencil} {sizes}: no model choice ({err})")
                continue
            if not only:
                print(f"{stencil} {sizes}: no point within 10% of the model's minimum "
                      "fits the generator's lane limits")
                continue
        space = hexspaces.hexagonal_space(stencil, baseline=1, only=only, **sizes)
        kind = "chosen" if only is not None else "baseline"
        name = f"tune/{space.name}/{kind}/" + ",".join(f"{k}={v}" for k, v in sizes.items())
        ev = SequenceEvaluator(space, queue, protocol=PROTOCOL, verify=False,
                               build_options=NV)
        probe = make_strategy("exhaustive")
        probe.start(space, space.points())
        order = []
        while (p := probe.ask()) is not None:
            order.append(p)
        with tempfile.TemporaryDirectory() as folder:
            ref = f"{FILE}:{stencil}_space"
            if only is not None:
                path = Path(folder) / "chosen.py"
                path.write_text(CHOSEN.format(stencil=stencil, only=sorted(only)))
                ref = f"{path}:space"
            with PrebuildPool(ev, ref, order, dev.index, jobs) as pool:
                result = Explorer(space, make_strategy("exhaustive"), pool, store=store,
                                  device=dev.identity, name=name,
                                  discard_first=PROTOCOL.discard_first).run(
                    None, should_stop=lambda: time.time() > deadline)
        ok = [e for e in result.evaluations if e.ok]
        best = min(ok, key=lambda e: e.time_s) if ok else None
        print(f"{stencil} {sizes} {kind}: {len(result.evaluations)} points, {len(ok)} ok, "
              f"stopped by {result.stopped_by.value}, {time.time() - began:.1f} s; best "
              f"{best.point.label if best else '-'} "
              f"{best.time_s if best else float('nan'):.6g} s", flush=True)


if __name__ == "__main__":
    out, stage, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dev = find_device(os.environ.get("HX_DEVICE", "NVIDIA"))
    if "NVIDIA" in dev.label:
        NV = ("-cl-nv-verbose",)     # registers per kernel in the build log
    _, queue = open_device(dev)
    if stage == "check":
        check(queue)
    else:
        with MeasurementStore.open(f"{out}/hexagonal.sqlite") as store:
            measure(store, dev, queue, seconds, stage)
PY
for stage in ${HX_STAGES:-check baseline chosen}; do
  start=$(date +%s)
  case $stage in check) limit=45;; chosen) limit=${HX_CHOSEN_SECONDS:-90};;
    *) limit=${HX_BASELINE_SECONDS:-300};; esac
  timeout -s INT $((limit + 30)) python3 "$driver" "$out" "$stage" "$limit" 2>&1 \
    | tee -a "$out/hexagonal.log"
  echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal.log"
done
python3 - "$out/hexagonal.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
