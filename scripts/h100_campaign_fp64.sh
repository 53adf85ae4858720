#!/usr/bin/env bash
# Both precisions on the H100 (issue "Double precision, unseen kernels"), through the
# device tool carrying .whl:   bash scripts/h100_campaign_fp64.sh OUTDIR PART [SECONDS]
#   PART 1: the bandwidth benchmark, then the catalog in float32 and float64
#   PART 2: the 2019 measurement set in both precisions, then the unseen kernels
set -uo pipefail
out=${1:?output folder}; part=${2:?part 1 or 2}; budget=${3:-540}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
end=$(( $(date +%s) + budget ))
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  python3 --version; python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic|cupy"; } \
  > "$out/environment-fp64-part$part.txt" 2>&1
calibrate() {  # store log name args...
  local store=$1 log=$2 name=$3; shift 3
  local left=$(( end - $(date +%s) - 10 ))
  [ "$left" -gt 20 ] || { echo "no time left for $name" | tee -a "$out/$log"; return; }
  local start=$(date +%s)
  timeout -s INT "$left" python3 -m workbench calibrate --device NVIDIA --dtypes float32,float64 \
    --store "$out/$store" --name "$name" --no-progress "$@" 2>&1 | grep -v -i warn | tee "$out/$log"
  echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/$log"
}
if [ "$part" = 1 ]; then
  python3 benchmarks/bandwidth.py --device NVIDIA --out "$out/bandwidth.json" 2>&1 | grep -v -i warn
  calibrate measurements-fp64.sqlite calibrate-fp64.log h100-f32-f64
else
  calibrate measurements-2019-fp64.sqlite calibrate-2019-fp64.log h100-2019-f32-f64 --set 2019
  calibrate unseen.sqlite calibrate-unseen.log h100-unseen-f32-f64 --set unseen
fi
for db in "$out"/*.sqlite; do
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
done
