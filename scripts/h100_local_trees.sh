#!/usr/bin/env bash
# Local-memory trees, scans, barriers and barrier-free local streams on the H100
# (issue #34, item 3), in one device command (carrying .whl):
#     bash scripts/h100_local_trees.sh OUTDIR
# Runs benchmarks/local_trees_microbench.py on the NVIDIA OpenCL device (registers of
# every build first, then the measurements into a store) and packs the store, its
# table, the build-info file, the log and the provenance into OUTDIR/local-trees.tgz.
set -uo pipefail
out=${1:?output folder}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/local-trees"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_local_trees.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch scans)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-local-trees.txt" 2>&1
start=$(date +%s)
timeout -s INT 230 python3 benchmarks/local_trees_microbench.py --device NVIDIA \
  --store "$dir/local-trees.sqlite" --build-info "$dir/build-info-local-trees.json" 2>&1 \
  | grep -v -i warn | tee "$dir/local-trees-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/local-trees-microbench.log"
python3 - "$dir/local-trees.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
python3 benchmarks/local_trees_microbench.py --table "$dir/local-trees.sqlite" \
  > "$dir/local-trees-table.txt" 2>/dev/null
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-local-trees.txt"
tar czf "$out/local-trees.tgz" -C "$out" local-trees && rm -rf "$dir"
ls -l "$out"
