#!/usr/bin/env bash
# Round 7 of the resident-latency extension on the H100 (issue 34, item 4), in one call
# of the device tool carrying .whl:
#   bash scripts/h100_hexagonal_round7.sh OUTDIR      (about 4 minutes)
# Round 6's selection with builds, with the lane-rows form and the constants of
# sample_data/h100/tiling-calibration-round7.json (fitted and committed before the call
# by benchmarks/tiling_holdout.py --write-calibration: round 7's 1-D term, round 6's 2-D
# constants), on sizes no earlier call measured: jacobi1d 2^21 and 2^22 (T = 256; the
# picks, then the whole baseline set of 73 points), jacobi1d 2^20 (its best baseline
# point again and the new picks), jacobi2d 10240^2 (the picks, then every third point
# of its baseline set), in that order, into OUTDIR/hexagonal-round7.sqlite (campaigns
# tune/hx_<s>/{best-baseline,chosen-with-builds,baseline}/<sizes>); every candidate
# with its registers, both prices and its build seconds in
# OUTDIR/hexagonal-round7-builds.csv.  Driver: scripts/h100_hexagonal_resident.py with
# HXR_ROUND=7.  Afterwards, here: python benchmarks/tiling_holdout.py
# HXR_PICKS_SECONDS (200): the stage (builds included) stops itself there;
# HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
if [ -e .whl/prelude.sh ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning HXR_ROUND=7
export HXR_TOP=${HXR_TOP:-24} HXR_PICKS=${HXR_PICKS:-4}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_round7.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round7.txt"
start=$(date +%s)
limit=${HXR_PICKS_SECONDS:-200}
timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_resident.py "$out" picks "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round7.log"
echo "picks wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round7.log"
python3 - "$out/hexagonal-round7.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
