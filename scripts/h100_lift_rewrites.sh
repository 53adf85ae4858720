#!/usr/bin/env bash
# The Lift benchmarks' rewrite spaces (workbench.tuning.catalog.lift_rewrite_space:
# strided or blocked work assignment, 1 to 8 rows and columns per work item, groups of
# 32 to 1024 items, local tiles, unrolling, 1D or 2D launch; a fixed one-in-six sample
# of each full product), every point at 2048^2 and 8192^2, measured exhaustively on the
# H100 with the exploration runner (through the device tool, carrying .whl).
#   [SIZES="2048 8192"] [ONLY="vw > 1"] [START=STORE.sqlite.xz] \
#     bash scripts/h100_lift_rewrites.sh OUTDIR DEADLINE_S [BENCHMARK ...]
# ONLY measures only the points that meet a restriction (workbench tune --only): the
# vector widths were added to measured spaces that way (2026-11-26).  START: a
# compressed store to go on from when OUTDIR has none (the shipped one).
# Every benchmark at 2048^2 first, then at 8192^2.  Stops launching new spaces
# DEADLINE_S seconds after it starts (the device tool allows 600 s a call); a space
# cut short resumes from OUTDIR/lift-rewrites.sqlite on the next call (copy the
# store there first).  loopy's and pyopencl's caches start empty, so every recorded
# cost is a first-time one; -cl-nv-verbose keeps registers and spills in each log.
set -uo pipefail
out=${1:?output folder}; deadline=${2:?seconds}; shift 2
benchmarks=${*:-stencil2d srad1 srad2 hotspot2d gradient jacobi5 jacobi9 gaussian}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# CUDA_CACHE_DISABLE: the driver keeps built kernels across calls on a warm machine,
# and a cached build is cheaper and leaves an empty log
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning CUDA_CACHE_DISABLE=1
mkdir -p "$out"
if [ -n "${START:-}" ] && [ ! -e "$out/lift-rewrites.sqlite" ]; then
  xz -dc "$START" > "$out/lift-rewrites.sqlite" || exit 1
fi
only=(); [ -n "${ONLY:-}" ] && only=(--only "$ONLY")
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "cpus: $(nproc)"; python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } >> "$out/environment-lift-rewrites.txt"
start=$(date +%s)
for n in ${SIZES:-2048 8192}; do
  for bench in $benchmarks; do
    left=$(( deadline - ($(date +%s) - start) ))
    if [ "$left" -lt 20 ]; then echo "deadline: lift_rewrites_$bench n=$n not started" | tee -a "$out/lift-rewrites.log"; continue; fi
    t0=$(date +%s)
    timeout -s INT "$left" python3 -m workbench tune "lift_rewrites_$bench" --param "n=$n" \
      "${only[@]}" --strategy exhaustive --device NVIDIA --jobs 15 --build-option=-cl-nv-verbose \
      --no-progress --store "$out/lift-rewrites.sqlite" 2>&1 | tail -3 | tee -a "$out/lift-rewrites.log"
    echo "lift_rewrites_$bench n=$n${ONLY:+ ($ONLY)} wall time: $(( $(date +%s) - t0 )) s" | tee -a "$out/lift-rewrites.log"
  done
done
python3 - "$out/lift-rewrites.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
# the store is past the device tool's file-size limit: bring it back compressed
xz -T8 -6 -k -f "$out/lift-rewrites.sqlite" && rm "$out/lift-rewrites.sqlite"
