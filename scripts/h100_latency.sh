#!/usr/bin/env bash
# Serial work and memory-level parallelism on the H100 (issue #34, item 1), in one
# device command (carrying .whl):
#     bash scripts/h100_latency.sh OUTDIR
# Runs benchmarks/latency_microbench.py on the NVIDIA OpenCL device and packs its JSON,
# log and provenance into OUTDIR/latency.tgz.
set -uo pipefail
out=${1:?output folder}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/latency"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_latency.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch predict)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-latency.txt" 2>&1
start=$(date +%s)
timeout -s INT 240 python3 benchmarks/latency_microbench.py --device NVIDIA \
  --out "$dir/latency-microbench.json" 2>&1 | grep -v -i warn | tee "$dir/latency-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/latency-microbench.log"
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-latency.txt"
tar czf "$out/latency.tgz" -C "$out" latency && rm -rf "$dir"
ls -l "$out"
