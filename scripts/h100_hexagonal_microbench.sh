#!/usr/bin/env bash
# The hexagonal/hybrid microbenchmarks of the tiling model (issue 34, item 4: L and
# C_iter per scheme, as the paper calibrates its own scheme) on the H100, in one call of
# the device tool carrying .whl:
#   bash scripts/h100_hexagonal_microbench.sh OUTDIR      (about 2 minutes)
# Per 1-D and 2-D stencil, the configurations of HEX_CONFIGS
# (workbench/kernels/timetiled/microbench.py: 3 hexagonal ones for jacobi1d on 2^21
# cells, 4 hybrid ones per 2-D stencil on 6144^2; a grid no validation problem has):
# one launch of a full A row of hexagons and its work-removed twin, five runs each
# after a warm-up, the minimum kept, into OUTDIR/hexagonal-microbench.sqlite (kernels
# ttmb.hex_band and ttmb.hex_band_wr, counts in extra["facts"]).  Afterwards, here:
#   python benchmarks/tiling_side_by_side.py \
#       --hex-microbench OUTDIR/hexagonal-microbench.sqlite --update-calibration
# derives the per-scheme constants (workbench.models.tiling.calibrate.scheme_constants),
# with tau_sync, T_sync and the registers of the shipped overlapped calibration (same
# device), writes them into sample_data/h100/tiling-calibration.json and redoes the
# side-by-side table.  HXMB_SECONDS (200): the measuring stops itself there;
# HXMB_COMMIT: the commit to record (the device copy has no git history of its own).
# HXMB_DRY_RUN=1 HXMB_DEVICE=Portable: the quick set on a CPU (no .whl needed).
set -uo pipefail
out=${1:?output folder}
if [ -z "${HXMB_DRY_RUN:-}" ]; then
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXMB_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_microbench.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-microbench.txt"
driver=$(mktemp --suffix=.py)
cat > "$driver" <<'PY'
import os, sys, time

from workbench.kernels.timetiled.microbench import (hex_microbenchmarks,
                                                     quick_hex_microbenchmarks)
from workbench.measure import find_device, open_device
from workbench.measure.store import MeasurementStore
from workbench.models.tiling import H100, load_calibration
from workbench.models.tiling.calibrate import rows_from_measurements, scheme_constants
from workbench.tuning.timetiled_microbench import measure_microbenchmarks

out = sys.argv[1]
dry = bool(os.environ.get("HXMB_DRY_RUN"))
dev = find_device(os.environ.get("HXMB_DEVICE", "NVIDIA"))
nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
_, queue = open_device(dev)
benches = quick_hex_microbenchmarks() if dry else hex_microbenchmarks()
began = time.time()
with MeasurementStore.open(f"{out}/hexagonal-microbench.sqlite") as store:
    cid = measure_microbenchmarks(
        queue, dev.identity, store, benches=benches, build_options=nv,
        name="hexagonal-microbenchmarks",
        on_progress=lambda i, n, what: print(f"[{i + 1}/{n}] {what}", flush=True))
    measured = list(store.measurements(campaign=cid, status=None))
print(f"{len(measured)} of {len(benches)} microbenchmarks recorded in "
      f"{time.time() - began:.1f} s")
for m in measured:
    print(f"  {m.key.kernel:16s} {m.key.variant:40s} {m.status.value:12s} "
          f"min {min(m.raw_times_s) if m.raw_times_s else float('nan'):.6g} s")
base = load_calibration("sample_data/h100/tiling-calibration.json")
try:
    regs = dict(base.provenance.get("registers_per_item") or {})
    for scheme, consts in scheme_constants(rows_from_measurements(measured), H100,
                                           base, regs).items():
        print(f"{scheme}: L = {consts.L:.4g} s/word/SM, C_iter = "
              + ", ".join(f"{s} {v:.4g}" for s, v in sorted(consts.C_iter.items())))
except Exception as err:  # noqa: BLE001 - the store is what counts; derive it here later
    print(f"per-scheme constants not derived here: {err}")
PY
timeout -s INT ${HXMB_SECONDS:-200} python3 "$driver" "$out" 2>&1 | tee "$out/hexagonal-microbench.log"
python3 - "$out/hexagonal-microbench.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
