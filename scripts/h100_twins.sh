#!/usr/bin/env bash
# Work-removed twins of every shipped H100 configuration (catalog and 2019 set), for
# the in-situ model's f_wr_wall_time; through the device tool carrying .whl.
#   bash scripts/h100_twins.sh OUTDIR [SECONDS]
set -uo pipefail
out=${1:?output folder}; budget=${2:-560}
start=$(date +%s)
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$out/environment-twins.txt"
for src in measurements measurements-2019; do
  left=$(( budget - ($(date +%s) - start) ))
  timeout -s INT $(( left - 15 )) python3 -m workbench calibrate --device NVIDIA \
    --twins-of sample_data/h100/$src.sqlite --store "$out/twins.sqlite" 2>&1 \
    | grep -v -i warn | tail -3 | tee -a "$out/twins.log"
done
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/twins.log"
python3 - "$out/twins.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
