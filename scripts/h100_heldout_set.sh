#!/usr/bin/env bash
# A held-out kernel set (issue #34 item 7: heldout4 to heldout22) on the device,
# in one command (carrying .whl):
#     bash scripts/h100_heldout_set.sh SET OUTDIR [SECONDS]
# (scripts/h100_heldout4.sh to h100_heldout22.sh name their set and
# call this)
#  1. workbench calibrate --set $heldout, both precisions (the protocol of heldout3's
#     campaign in scripts/h100_heldout.sh);
#  2. if time is left, workbench build-info --set $heldout with -cl-nv-verbose
#     (registers, spills, shared memory of every configuration measured).
# Nothing here is fitted, tuned or predicted: the data is kept out of all design and
# reported apart. Everything ends up in OUTDIR/$heldout.tgz (the store checkpointed,
# logs, provenance). SECONDS (default 140) bounds the whole script, the prelude included.
set -uo pipefail
heldout=${1:?held-out set (heldout4 to heldout22)}; shift
out=${1:?output folder}; budget=${2:-140}
end=$(( $(date +%s) + budget ))
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# loopy's and pyopencl's caches start empty: the build costs are first-time
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/$heldout"; mkdir -p "$dir"
left() { echo $(( end - $(date +%s) )); }
# the device copy has no git metadata of its own: the dev machine writes the commit
# measured into HELDOUT_COMMIT beside the scripts
commit=$(cat HELDOUT_COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)

{ date -u +%FT%TZ; echo "command: bash scripts/h100_$heldout.sh $*"
  echo "commit: $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic|pytools"
} > "$dir/environment-$heldout.txt" 2>&1

# 1. the kernels (heldout4: 432 configurations and the empty kernel's 36, 29 s; heldout5:
#    the same count, 26 s)
start=$(date +%s)
timeout -s INT $(( $(left) > 120 ? 100 : $(left) - 20 )) python3 -m workbench calibrate \
  --set $heldout --dtypes float32,float64 --device NVIDIA --store "$dir/$heldout.sqlite" \
  --name h100-$heldout-f32-f64 --no-progress 2>&1 | grep -v -i warn \
  | tee "$dir/calibrate-$heldout.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/calibrate-$heldout.log"

# 2. the compiler's view of the same builds (registers instead of the estimate); fresh
# caches, so that every build is a real one whose log carries ptxas's report
if [ "$(left)" -gt 30 ]; then
  start=$(date +%s)
  XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_DISABLE=1 timeout -s INT $(( $(left) - 10 )) python3 -m workbench build-info \
    --set $heldout --dtypes float32,float64 --device NVIDIA --jobs 12 \
    --build-option=-cl-nv-verbose --no-progress --out "$dir/build-info-$heldout.json" 2>&1 \
    | grep -v -i warn | tee "$dir/buildinfo-$heldout.log"
  echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/buildinfo-$heldout.log"
else
  echo "skipped build-info: $(left) s left" | tee "$dir/buildinfo-$heldout.log"
fi

python3 - "$dir/$heldout.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
echo "finished $(date -u +%FT%TZ), $(left) s of the budget left" >> "$dir/environment-$heldout.txt"
tar czf "$out/$heldout.tgz" -C "$out" $heldout && rm -rf "$dir"
ls -l "$out"
