#!/usr/bin/env bash
# Round 12 of #34: op_chain's pow and mixes of exp, log and sqrt (OP_CHAIN_ROUND12=1)
# on the H100, in one device command (carrying
# .whl):
#     bash scripts/h100_op_mixes.sh OUTDIR [SECONDS]
# Runs benchmarks/op_chain_microbench.py on the NVIDIA OpenCL device (registers and
# stack of every build first, then the measurements into a store) and packs the store,
# its table, the build-info file, the log and the provenance into OUTDIR/op-mix.tgz.
set -uo pipefail
out=${1:?output folder}; limit=${2:-150}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/op-mix"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_op_mixes.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch model8)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-op-mix.txt" 2>&1
start=$(date +%s)
OP_CHAIN_ROUND12=1 timeout -s INT "$limit" python3 benchmarks/op_chain_microbench.py --device NVIDIA \
  --store "$dir/op-mix.sqlite" --build-info "$dir/build-info-op-mix.json" 2>&1 \
  | grep -v -i warn | tee "$dir/op-mix-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/op-mix-microbench.log"
python3 - "$dir/op-mix.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
python3 benchmarks/op_chain_microbench.py --table "$dir/op-mix.sqlite" \
  > "$dir/op-mix-table.txt" 2>/dev/null
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-op-mix.txt"
tar czf "$out/op-mix.tgz" -C "$out" op-mix && rm -rf "$dir"
ls -l "$out"
