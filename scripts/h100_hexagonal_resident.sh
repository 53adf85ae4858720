#!/usr/bin/env bash
# The resident-latency extension of the tiling model on the H100 (issue 34, item 4), in
# one call of the device tool carrying .whl:
#   bash scripts/h100_hexagonal_resident.sh OUTDIR      (about 6 minutes)
#   1. ladder: the row-latency ladder (workbench/kernels/timetiled/microbench.py,
#      hex_ladder: one hexagonal and one hybrid tile at 1, 2, 4.. hexagons per SM,
#      band and work-removed twin), into OUTDIR/hexagonal-resident.sqlite;
#   2. picks: the resident-latency constants from the ladder and the shipped
#      hexagonal microbenchmarks (tiling-calibration-resident.json), then per problem
#      (jacobi1d 2^20, the four 2-D stencils at 4096^2 and 8192^2) the best baseline
#      point of the shipped stores again and the picks of each calibration (the
#      paper's form with the schemes' own constants, the resident-latency form and its
#      load-pass variant).
# Driver: scripts/h100_hexagonal_resident.py.  Afterwards, here:
#   python benchmarks/tiling_side_by_side.py --resident-store OUTDIR/hexagonal-resident.sqlite
# HXR_LADDER_SECONDS (60), HXR_PICKS_SECONDS (300): each stage stops itself there;
# HXR_PICKS (16): picks per calibration and problem; HXR_COMMIT: the commit to record.
# HXR_DRY_RUN=1 HXR_DEVICE=Portable HXR_JOBS=2: tiny sizes on a CPU (no .whl needed).
set -uo pipefail
out=${1:?output folder}
if [ -z "${HXR_DRY_RUN:-}" ] && [ -e .whl/prelude.sh ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_resident.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-resident.txt"
for stage in ladder picks; do
  start=$(date +%s)
  case $stage in ladder) limit=${HXR_LADDER_SECONDS:-60};; *) limit=${HXR_PICKS_SECONDS:-300};; esac
  timeout -s INT $((limit + 40)) python3 scripts/h100_hexagonal_resident.py "$out" "$stage" "$limit" 2>&1 \
    | tee -a "$out/hexagonal-resident.log"
  echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-resident.log"
done
python3 - "$out/hexagonal-resident.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
