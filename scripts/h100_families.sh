#!/usr/bin/env bash
# Variant families on the H100 (through the device tool, carrying .whl).
#   bash scripts/h100_families.sh OUTDIR
set -uo pipefail
out=${1:?output folder}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$out/environment-families.txt"
start=$(date +%s)
timeout -s INT 400 python3 -m workbench calibrate --device NVIDIA --families \
  --store "$out/families.sqlite" 2>&1 | tee "$out/families.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/families.log"
python3 - "$out/families.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
