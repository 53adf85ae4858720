#!/usr/bin/env bash
# Rows walked along one work item (lanes a row apart) and erfc chains
# on the H100 (issue #34, round 10), in one device command (carrying
# .whl):
#     bash scripts/h100_row_walk.sh OUTDIR [SECONDS]
# Runs benchmarks/row_walk_microbench.py on the NVIDIA OpenCL device (registers and
# stack of every build first, then the measurements into a store) and packs the store,
# its table, the build-info file, the log and the provenance into OUTDIR/row-walk.tgz.
set -uo pipefail
out=${1:?output folder}; limit=${2:-150}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/row-walk"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_row_walk.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch model6)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-row-walk.txt" 2>&1
start=$(date +%s)
timeout -s INT "$limit" python3 benchmarks/row_walk_microbench.py --device NVIDIA \
  --store "$dir/row-walk.sqlite" --build-info "$dir/build-info-row-walk.json" 2>&1 \
  | grep -v -i warn | tee "$dir/row-walk-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/row-walk-microbench.log"
python3 - "$dir/row-walk.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
python3 benchmarks/row_walk_microbench.py --table "$dir/row-walk.sqlite" \
  > "$dir/row-walk-table.txt" 2>/dev/null
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-row-walk.txt"
tar czf "$out/row-walk.tgz" -C "$out" row-walk && rm -rf "$dir"
ls -l "$out"
