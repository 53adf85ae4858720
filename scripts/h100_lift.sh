#!/usr/bin/env bash
# The Lift paper's eight stencil benchmarks (workbench/kernels/tunable/lift_stencils.py),
# every point of every space at 512^2, 2048^2 and 8192^2, measured exhaustively on the
# H100 with the exploration runner (through the device tool, carrying .whl).
#   bash scripts/h100_lift.sh OUTDIR DEADLINE_S [BENCHMARK ...]
# Stops launching new spaces DEADLINE_S seconds after it starts (the device tool allows
# 600 s a call); a space cut short resumes from OUTDIR/lift.sqlite on the next call.
# loopy's and pyopencl's caches start empty, so every recorded cost is a first-time one.
set -uo pipefail
out=${1:?output folder}; deadline=${2:?seconds}; shift 2
benchmarks=${*:-stencil2d srad1 srad2 hotspot2d gradient jacobi5 jacobi9 gaussian}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "cpus: $(nproc)"; python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } >> "$out/environment-lift.txt"
start=$(date +%s)
for bench in $benchmarks; do
  for n in 512 2048 8192; do
    left=$(( deadline - ($(date +%s) - start) ))
    if [ "$left" -lt 20 ]; then echo "deadline: lift_$bench n=$n not started" | tee -a "$out/lift.log"; continue; fi
    t0=$(date +%s)
    timeout -s INT "$left" python3 -m workbench tune "lift_$bench" --param "n=$n" \
      --strategy exhaustive --device NVIDIA --jobs 14 --build-option=-cl-nv-verbose \
      --no-progress --store "$out/lift.sqlite" 2>&1 | tail -3 | tee -a "$out/lift.log"
    echo "lift_$bench n=$n wall time: $(( $(date +%s) - t0 )) s" | tee -a "$out/lift.log"
  done
done
python3 - "$out/lift.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
