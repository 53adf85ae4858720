#!/usr/bin/env bash
# Registers, spills and shared memory per configuration on the H100 (issue #24), in one
# device command (carrying .whl); nothing runs on the GPU, every configuration is built:
#     bash scripts/h100_buildinfo.sh OUTDIR [SECONDS]
#  1. catalog, unseen and unseen2 in float32 and float64 -> OUTDIR/build-info.json
#     (318 builds; ~1 s each, 14 in parallel: well under two minutes);
#  2. the generated 2019 set, both precisions -> OUTDIR/build-info-2019.json, if time is left.
# SECONDS (default 450) bounds the whole script, the prelude included.
set -uo pipefail
out=${1:?output folder}; budget=${2:-450}
end=$(( $(date +%s) + budget ))
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# fresh caches: every build is a real one, whose log carries ptxas's report
export XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_DISABLE=1 PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
left() { echo $(( end - $(date +%s) )); }

{ date -u +%FT%TZ; echo "command: bash scripts/h100_buildinfo.sh $*"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$out/environment-buildinfo.txt" 2>&1

start=$(date +%s)
timeout -s INT $(( $(left) - 30 )) python3 -m workbench build-info \
  --set catalog,unseen,unseen2 --dtypes float32,float64 --device NVIDIA --jobs 14 \
  --build-option=-cl-nv-verbose --no-progress --out "$out/build-info.json" 2>&1 \
  | tee "$out/buildinfo.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/buildinfo.log"

if [ "$(left)" -gt 150 ]; then
  start=$(date +%s)
  timeout -s INT $(( $(left) - 15 )) python3 -m workbench build-info \
    --set 2019 --dtypes float32,float64 --device NVIDIA --jobs 14 \
    --build-option=-cl-nv-verbose --no-progress --out "$out/build-info-2019.json" 2>&1 \
    | tee -a "$out/buildinfo.log"
  echo "2019 wall time: $(( $(date +%s) - start )) s" | tee -a "$out/buildinfo.log"
else
  echo "skipped the 2019 set: $(left) s left" | tee -a "$out/buildinfo.log"
fi
echo "finished $(date -u +%FT%TZ), $(left) s of the budget left" >> "$out/environment-buildinfo.txt"
ls -l "$out"
