#!/usr/bin/env bash
# Global loads served by L1 without a prefetch, a private array indexed by loaded keys,
# and exp/log chains on the H100 (issue #34, round 7), in one device command (carrying
# .whl):
#     bash scripts/h100_reuse_stack.sh OUTDIR [SECONDS]
# Runs benchmarks/reuse_stack_microbench.py on the NVIDIA OpenCL device (registers and
# stack of every build first, then the measurements into a store) and packs the store,
# its table, the build-info file, the log and the provenance into OUTDIR/reuse-stack.tgz.
set -uo pipefail
out=${1:?output folder}; limit=${2:-150}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/reuse-stack"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_reuse_stack.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch model3)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-reuse-stack.txt" 2>&1
start=$(date +%s)
timeout -s INT "$limit" python3 benchmarks/reuse_stack_microbench.py --device NVIDIA \
  --store "$dir/reuse-stack.sqlite" --build-info "$dir/build-info-reuse-stack.json" 2>&1 \
  | grep -v -i warn | tee "$dir/reuse-stack-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/reuse-stack-microbench.log"
python3 - "$dir/reuse-stack.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
python3 benchmarks/reuse_stack_microbench.py --table "$dir/reuse-stack.sqlite" \
  > "$dir/reuse-stack-table.txt" 2>/dev/null
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-reuse-stack.txt"
tar czf "$out/reuse-stack.tgz" -C "$out" reuse-stack && rm -rf "$dir"
ls -l "$out"
