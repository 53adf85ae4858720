#!/usr/bin/env bash
# Round 9 of the resident-latency extension on the H100 (issue 34), one stage per call of
# the device tool carrying .whl:
#   bash scripts/h100_hexagonal_round9.sh OUTDIR widths   (about 1.5 minutes)
#   HXR_PLAN=sample_data/h100/hexagonal-round9-plan-in.json \
#     bash scripts/h100_hexagonal_round9.sh OUTDIR picks  (about 3 minutes)
# widths: single launches of the hybrid kernel (jacobi2d, 4 tiles, sub-tile widths
# 192-320), what a width that is not a multiple of the lanes costs; picks: the picks of
# sample_data/h100/tiling-calibration-round9.json (fixed and committed before the call)
# and the plan's baseline points, on sizes no call measured.  Driver:
# scripts/h100_hexagonal_round9.py.  Into OUTDIR/hexagonal-round9.sqlite (widths) or
# OUTDIR/hexagonal-round9-picks.sqlite (+ -builds.csv, -plan.json).  Afterwards, here:
# python benchmarks/tiling_widths.py.  HXR_SECONDS (200): the stage stops itself there;
# HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
stage=${2:?stage: widths or picks}
if [ -e .whl/prelude.sh ] && [ -z "${HXR_DRY_RUN:-}" ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_round9.sh OUT $stage";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round9-$stage.txt"
start=$(date +%s)
limit=${HXR_SECONDS:-200}
timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_round9.py "$out" "$stage" "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round9-$stage.log"
echo "$stage wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round9-$stage.log"
for db in "$out"/hexagonal-round9*.sqlite; do
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
done
