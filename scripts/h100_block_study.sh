#!/usr/bin/env bash
# The block-size study (Ernst et al.) on the H100, through the device tool carrying .whl.
#   bash scripts/h100_block_study.sh OUTDIR [SECONDS]
set -uo pipefail
out=${1:?output folder}; budget=${2:-500}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; } > "$out/environment-block-study.txt"
timeout -s INT "$budget" python3 benchmarks/block_study.py --device NVIDIA \
  --store "$out/block-study.sqlite" 2>&1 | grep -v -i warn | tee "$out/block-study.log"
python3 - "$out/block-study.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
