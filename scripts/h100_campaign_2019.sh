#!/usr/bin/env bash
# The 2019 measurement set and the work-removed catalog on the H100 (device tool,
# carrying .whl).   bash scripts/h100_campaign_2019.sh OUTDIR [SECONDS]
set -uo pipefail
out=${1:?output folder}; budget=${2:-520}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$out/environment-2019.txt"
end=$(( $(date +%s) + budget ))
for set in 2019 work-removed; do
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 20 ] || break
  start=$(date +%s)
  timeout -s INT "$left" python3 -m workbench calibrate --device NVIDIA --set $set \
    --store "$out/measurements-2019.sqlite" --name "h100-$set" --no-progress 2>&1 \
    | tee "$out/calibrate-$set.log"
  echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/calibrate-$set.log"
done
python3 - "$out/measurements-2019.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
