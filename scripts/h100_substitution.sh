#!/usr/bin/env bash
# The step of a substitution chain on the device (issue #34, item 3), in one
# device command (carrying .whl):
#     bash scripts/h100_substitution.sh OUTDIR
# Runs benchmarks/substitution_microbench.py on the NVIDIA OpenCL device and packs its JSON,
# log and provenance into OUTDIR/substitution.tgz.
set -uo pipefail
out=${1:?output folder}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/substitution"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_substitution.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch trsv)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-substitution.txt" 2>&1
start=$(date +%s)
timeout -s INT 100 python3 benchmarks/substitution_microbench.py --device NVIDIA \
  --out "$dir/substitution-microbench.json" 2>&1 | grep -v -i warn | tee "$dir/substitution-microbench.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/substitution-microbench.log"
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-substitution.txt"
tar czf "$out/substitution.tgz" -C "$out" substitution && rm -rf "$dir"
ls -l "$out"
