#!/usr/bin/env bash
# Held-out evaluation data on the H100, in one device command (carrying .whl):
#     bash scripts/h100_heldout.sh OUTDIR [SECONDS]
#  1. the held-out spaces examples/spaces/heldout_{box9,batched_gemv,pool2x2,cmac}.py
#     (issue #33), each measured exhaustively with -cl-nv-verbose build logs;
#  2. the held-out kernel set (issue #34): workbench calibrate --set heldout3, both
#     precisions;
#  3. the same spaces a second time into another store, space by space as long as a
#     whole space still fits the time.
# Nothing here is fitted or tuned: the data is kept out of all design and reported apart.
# Everything ends up in OUTDIR/heldout.tgz (the stores checkpointed, logs, provenance).
# SECONDS (default 270) bounds the whole script, the prelude included.
set -uo pipefail
out=${1:?output folder}; budget=${2:-270}
end=$(( $(date +%s) + budget ))
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# loopy's and pyopencl's caches start empty: the first pass's build costs are first-time
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/heldout"; mkdir -p "$dir"
left() { echo $(( end - $(date +%s) )); }
# the device copy's git metadata (if any) is the session's start: the dev machine
# writes the commit measured into HELDOUT_COMMIT beside the scripts
commit=$(cat HELDOUT_COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)

{ date -u +%FT%TZ; echo "command: bash scripts/h100_heldout.sh $*"
  echo "commit: $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic|pocl"
} > "$dir/environment-heldout.txt" 2>&1

spaces=(84:heldout_box9 68:heldout_batched_gemv 94:heldout_pool2x2 70:heldout_cmac)
tune() {  # store log file seconds
  local store=$1 log=$2 file=$3 seconds=$4 start=$(date +%s)
  echo "== $file (limit ${seconds} s)" | tee -a "$dir/$log"
  timeout -s INT "$seconds" python3 -m workbench tune "examples/spaces/$file.py:space" \
    --strategy exhaustive --jobs 12 --device NVIDIA --build-option=-cl-nv-verbose \
    --no-progress --store "$dir/$store" 2>&1 | tee -a "$dir/$log"
  echo "$file wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/$log"
}
# ~0.2 s a point with 12 workers, plus ~20 s to start, make inputs and references
need() { echo $(( $1 / 4 + 25 )); }

# 1. the spaces, pass 1
for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  limit=$(( $(need "$points") * 2 )); room=$(( $(left) - 100 ))
  [ "$room" -gt 30 ] || { echo "no time left for $file (pass 1)" | tee -a "$dir/tune-heldout-run1.log"; continue; }
  tune heldout-spaces.sqlite tune-heldout-run1.log "$file" $(( limit < room ? limit : room ))
done

# 2. the heldout3 kernels (~350 configurations; unseen2's 348 took 79 s)
start=$(date +%s)
timeout -s INT $(( $(left) > 160 ? 140 : $(left) - 20 )) python3 -m workbench calibrate \
  --set heldout3 --dtypes float32,float64 --device NVIDIA --store "$dir/heldout3.sqlite" \
  --name h100-heldout3-f32-f64 --no-progress 2>&1 | grep -v -i warn | tee "$dir/calibrate-heldout3.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/calibrate-heldout3.log"

# 3. pass 2: a space only if all of it fits (a partial run says nothing of its best point)
for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  if [ $(( $(left) - 15 )) -lt $(( $(need "$points") + 10 )) ]; then
    echo "skipped $file (pass 2): $(left) s left" | tee -a "$dir/tune-heldout-run2.log"; continue
  fi
  tune heldout-spaces-run2.sqlite tune-heldout-run2.log "$file" $(( $(left) - 15 ))
done

for db in "$dir"/*.sqlite; do
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
done
echo "finished $(date -u +%FT%TZ), $(left) s of the budget left" >> "$dir/environment-heldout.txt"
tar czf "$out/heldout.tgz" -C "$out" heldout && rm -rf "$dir"
ls -l "$out"
