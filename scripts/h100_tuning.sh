#!/usr/bin/env bash
# The catalog's tuning spaces, measured exhaustively on the H100 with the exploration
# runner (through the device tool, carrying .whl).   bash scripts/h100_tuning.sh OUTDIR
# loopy's and pyopencl's caches start empty, so every recorded cost is a first-time
# one; 12 worker processes generate and build ahead while the main process launches.
set -uo pipefail
out=${1:?output folder}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "cpus: $(nproc)"; python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-tuning.txt"
for space in stencil2d matmul transpose; do
  start=$(date +%s)
  timeout -s INT 170 python3 -m workbench tune "$space" --strategy exhaustive \
    --device NVIDIA --jobs 12 --build-option=-cl-nv-verbose --no-progress \
    --store "$out/tuning.sqlite" 2>&1 | tee -a "$out/tuning.log"
  echo "$space wall time: $(( $(date +%s) - start )) s" | tee -a "$out/tuning.log"
done
python3 - "$out/tuning.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
