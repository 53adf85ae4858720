#!/usr/bin/env bash
# The NVIDIA H100 calibration campaign, as run through the device tool (see
# sample_data/h100/README.md).  Usage on the GPU machine, from the repository root,
# with the carried wheels in .whl/:   bash scripts/h100_campaign.sh OUTDIR [SECONDS]
set -uo pipefail
out=${1:?output folder}; budget=${2:-480}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 --version; } > "$out/environment.txt" 2>&1
python3 -m workbench devices | tee "$out/devices.txt"
start=$(date +%s)
timeout -s INT "$budget" python3 -m workbench calibrate --device NVIDIA \
  --store "$out/measurements.sqlite" --name h100-full 2>&1 | tee "$out/calibrate.log"
echo "campaign wall time: $(( $(date +%s) - start )) s" | tee -a "$out/calibrate.log"
python3 - "$out/measurements.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
