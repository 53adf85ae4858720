#!/usr/bin/env bash
# The step of a substitution chain on the device (issue #34, item 3), in one
# device command (carrying .whl):
#     bash scripts/h100_substitution.sh OUTDIR [NAME] [SECONDS]
# Runs benchmarks/substitution_microbench.py on the NVIDIA OpenCL device and packs its JSON,
# log and provenance into OUTDIR/NAME.tgz (NAME: substitution-microbench for round 6's
# 8/16/32 rows, substitution-ladder for the ladder of SIZES; SECONDS: the benchmark's limit).
set -uo pipefail
out=${1:?output folder}; name=${2:-substitution-ladder}; limit=${3:-100}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/substitution"; mkdir -p "$dir"
{ date -u +%FT%TZ; echo "command: bash scripts/h100_substitution.sh $*"
  echo "commit: $(cat COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown) (branch trsv2)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic"
} > "$dir/environment-$name.txt" 2>&1
start=$(date +%s)
timeout -s INT "$limit" python3 benchmarks/substitution_microbench.py --device NVIDIA \
  --out "$dir/$name.json" 2>&1 | grep -v -i warn | tee "$dir/$name.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/$name.log"
echo "finished $(date -u +%FT%TZ)" >> "$dir/environment-$name.txt"
tar czf "$out/$name.tgz" -C "$out" substitution && rm -rf "$dir"
ls -l "$out"
