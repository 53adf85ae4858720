#!/usr/bin/env bash
# New evaluation data on the H100, in one device command (carrying .whl):
#     bash scripts/h100_evaldata.sh OUTDIR [SECONDS]
#  1. the wider unseen set (issue #24): workbench calibrate --set unseen2, both precisions;
#  2. the user-written spaces of examples/spaces/ (issue #23), each measured exhaustively,
#     with -cl-nv-verbose build logs (registers, spills, shared memory per point);
#  3. the same spaces a second time into another store (how often the best point changes
#     between two runs), space by space as long as a whole space still fits the time.
# Everything ends up in OUTDIR/evaldata.tgz (the stores checkpointed, logs, provenance).
# SECONDS (default 520) bounds the whole script, the prelude included.
set -uo pipefail
out=${1:?output folder}; budget=${2:-520}
end=$(( $(date +%s) + budget ))
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# loopy's and pyopencl's caches start empty: the first pass's build costs are first-time
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
dir="$out/evaldata"; mkdir -p "$dir"
left() { echo $(( end - $(date +%s) )); }

{ date -u +%FT%TZ; echo "command: bash scripts/h100_evaldata.sh $*"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic|pocl"
} > "$dir/environment-evaldata.txt" 2>&1

# 1. the unseen2 campaign (~400 configurations; the first unseen set's 372 took 35 s)
start=$(date +%s)
timeout -s INT $(( $(left) > 200 ? 180 : $(left) - 20 )) python3 -m workbench calibrate \
  --set unseen2 --dtypes float32,float64 --device NVIDIA --store "$dir/unseen2.sqlite" \
  --name h100-unseen2-f32-f64 --no-progress 2>&1 | grep -v -i warn | tee "$dir/calibrate-unseen2.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$dir/calibrate-unseen2.log"

# 2./3. the spaces: design spaces first, the held-out ones last (points, then file)
spaces=(108:matmul_tiled 108:stencil2d_5pt 96:transpose 71:rowsum 66:triad
        90:stencil3d_7pt 80:heldout_conv1d 80:heldout_batched_gemm)
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
for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  # pass 1: each space gets what it needs plus slack, never past the end
  limit=$(( $(need "$points") * 2 )); room=$(( $(left) - 15 ))
  [ "$room" -gt 30 ] || { echo "no time left for $file (pass 1)" | tee -a "$dir/tune-run1.log"; continue; }
  tune user-spaces.sqlite tune-run1.log "$file" $(( limit < room ? limit : room ))
done
for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  # pass 2: a space only if all of it fits (a partial run says nothing of its best point)
  if [ $(( $(left) - 15 )) -lt $(( $(need "$points") + 10 )) ]; then
    echo "skipped $file (pass 2): $(left) s left" | tee -a "$dir/tune-run2.log"; continue
  fi
  tune user-spaces-run2.sqlite tune-run2.log "$file" $(( $(left) - 15 ))
done

for db in "$dir"/*.sqlite; do
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
done
echo "finished $(date -u +%FT%TZ), $(left) s of the budget left" >> "$dir/environment-evaldata.txt"
tar czf "$out/evaldata.tgz" -C "$out" evaldata && rm -rf "$dir"
ls -l "$out"
