#!/usr/bin/env bash
# On the H100 through the device tool (carrying .whl and build/ncu-kernels.json):
#  1. the work-removed twins of the variant families (in-situ features, OpenCL);
#  2. Nsight Compute L2/DRAM volumes of the block-size study kernels (CUDA via CuPy).
#   bash scripts/h100_ncu_and_twins.sh OUTDIR [SECONDS]
set -uo pipefail
out=${1:?output folder}; budget=${2:-560}
start=$(date +%s)
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "ncu: $ncu"; "$ncu" --version 2>&1 | tail -1;
  python3 -c "import cupy; print('cupy', cupy.__version__)"; } > "$out/environment-ncu-twins.txt"
cat "$out/environment-ncu-twins.txt"
[ "${SKIP_TWINS:-0}" = 1 ] || timeout -s INT 150 python3 -m workbench calibrate --device NVIDIA --families \
  --set work-removed --store "$out/families-work-removed.sqlite" --no-progress 2>&1 \
  | grep -v -i warn | tail -5 | tee "$out/families-work-removed.log"
[ "${SKIP_TWINS:-0}" = 1 ] || python3 - "$out/families-work-removed.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
echo "twins done after $(( $(date +%s) - start )) s"
parts=$(mktemp -d)
metrics=$(python3 benchmarks/ncu_volumes.py metrics)
total=$(python3 -c "import json; print(len(json.load(open('build/ncu-kernels.json'))))")
a=0; chunk=3   # a first tiny chunk shows whether the counters can be read at all
while [ $a -lt $total ]; do
  left=$(( budget - ($(date +%s) - start) ))
  [ $left -lt 30 ] && { echo "time budget spent at config $a of $total"; break; }
  b=$(( a + chunk )); [ $b -gt $total ] && b=$total
  timeout $(( left - 10 )) "$ncu" --csv --metrics "$metrics" \
    python3 benchmarks/ncu_volumes.py launch build/ncu-kernels.json --start $a --stop $b \
    > "$parts/ncu-part-$(printf %03d $a).csv" 2> "$parts/ncu-part-$(printf %03d $a).err"
  rc=$?
  echo "configs $a..$b rc=$rc after $(( $(date +%s) - start )) s"
  if [ $a -eq 0 ] && ! grep -q lts__t_sectors "$parts/ncu-part-000.csv"; then
    echo "ncu could not read the counters:"; tail -20 "$parts/ncu-part-000.err"; head -20 "$parts/ncu-part-000.csv"; break
  fi
  a=$b; chunk=40
done
# few files come back from the device: one table, plus the raw ncu output zipped
python3 benchmarks/ncu_volumes.py collect "$parts"/ncu-part-*.csv -o "$out/ncu-volumes.csv"
tar czf "$out/ncu-raw.tgz" -C "$parts" .
ls -la "$out"
