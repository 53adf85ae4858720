#!/usr/bin/env bash
# Round 2 of the resident-latency extension on the H100 (issue 34, item 4), in one call
# of the device tool carrying .whl:
#   bash scripts/h100_hexagonal_lanes.sh OUTDIR      (about 5 minutes)
#   1. ladder: the lane-shape ladder (workbench/kernels/timetiled/microbench.py,
#      HEX_LANE_LADDERS: one hexagonal and one hybrid tile under several lane shapes,
#      band and work-removed twin), into OUTDIR/hexagonal-lanes.sqlite;
#   2. picks: the constants of the three resident forms (per row, per load pass, both)
#      from the shipped hexagonal microbenchmarks and row-latency ladders and this
#      ladder (tiling-calibration-resident.json), then, the 8192^2 problems the first
#      call left unmeasured first, each problem's best baseline point again and the
#      picks of the two-term and load-pass forms (and the per-row one where missing).
# Driver: scripts/h100_hexagonal_resident.py with HXR_ROUND=2.  Afterwards, here:
#   python benchmarks/tiling_side_by_side.py
# HXR_LADDER_SECONDS (55), HXR_PICKS_SECONDS (225): each stage stops itself there;
# HXR_PICKS (8): picks per form and problem; HXR_COMMIT: the commit to record.
# HXR_DRY_RUN=1 HXR_DEVICE=Portable HXR_JOBS=2: tiny sizes on a CPU (no .whl needed).
set -uo pipefail
out=${1:?output folder}
if [ -z "${HXR_DRY_RUN:-}" ] && [ -e .whl/prelude.sh ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning HXR_ROUND=2
export HXR_PICKS=${HXR_PICKS:-8}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_lanes.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-lanes.txt"
for stage in ladder picks; do
  start=$(date +%s)
  case $stage in ladder) limit=${HXR_LADDER_SECONDS:-55};; *) limit=${HXR_PICKS_SECONDS:-225};; esac
  timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_resident.py "$out" "$stage" "$limit" 2>&1 \
    | grep -v "warnings generated" | tee -a "$out/hexagonal-lanes.log"
  echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-lanes.log"
done
python3 - "$out/hexagonal-lanes.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
