#!/usr/bin/env bash
# Round 8 of the resident-latency extension on the H100 (issue 34), one stage per call of
# the device tool carrying .whl:
#   bash scripts/h100_hexagonal_round8.sh OUTDIR sweep    (about 2.5 minutes)
#   HXR_PLAN=sample_data/h100/hexagonal-round8-plan-in.json \
#     bash scripts/h100_hexagonal_round8.sh OUTDIR picks  (about 2.5 minutes)
# sweep: single launches of the hybrid kernel (jacobi2d, 4 tiles) on 5 grids, the 2-D
# sweep's microbenchmark, then the 136 points of jacobi2d 10240^2's baseline set that
# round 7 left; picks: the picks of sample_data/h100/tiling-calibration-round8.json
# (fixed and committed before the call) and the plan's baseline points, on sizes no
# call measured.  Driver: scripts/h100_hexagonal_round8.py.  Into
# OUTDIR/hexagonal-round8.sqlite (+ -builds.csv, -plan.json for picks).  Afterwards,
# here: python benchmarks/tiling_sweep.py.  HXR_SECONDS (200): the stage stops itself
# there; HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
stage=${2:?stage: sweep or picks}
if [ -e .whl/prelude.sh ] && [ -z "${HXR_DRY_RUN:-}" ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_round8.sh OUT $stage";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round8-$stage.txt"
start=$(date +%s)
limit=${HXR_SECONDS:-200}
timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_round8.py "$out" "$stage" "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round8-$stage.log"
echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round8-$stage.log"
python3 - "$out/hexagonal-round8.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
