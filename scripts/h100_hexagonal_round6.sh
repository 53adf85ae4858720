#!/usr/bin/env bash
# Round 6 of the resident-latency extension on the H100 (issue 34, item 4), in one call
# of the device tool carrying .whl:
#   bash scripts/h100_hexagonal_round6.sh OUTDIR      (about 4 minutes)
# Round 5's selection with builds, with the lane-rows form and the constants of
# sample_data/h100/tiling-calibration-round6.json (fitted before the call by
# benchmarks/tiling_round6.py --write-calibration: a fixed cost per launch added): per
# problem (8192^2, then the hold-out 6144^2 of jacobi2d and gradient2d, then 4096^2,
# then 1-D) the form's first HXR_TOP (24) points the generator builds are built with
# -cl-nv-verbose (no run) in one pool of HXR_JOBS (14) processes, priced again with
# their own registers, and the points within 10 % of the new minimum (at most
# HXR_PICKS, 4) measured after the best baseline point again (none at the hold-out
# size: there, every third point of its baseline set after the picks), into
# OUTDIR/hexagonal-round6.sqlite (campaigns tune/hx_<s>/{best-baseline,
# chosen-with-builds,baseline}/<sizes>); every candidate with its registers, both prices
# and its build seconds in OUTDIR/hexagonal-round6-builds.csv.  Driver:
# scripts/h100_hexagonal_resident.py with HXR_ROUND=6.  Afterwards, here:
# python benchmarks/tiling_round6.py
# HXR_HOLDOUT=0: the nine problems alone (no 6144^2 problem);
# HXR_PICKS_SECONDS (190): the stage (builds included) stops itself there;
# HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
if [ -e .whl/prelude.sh ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning HXR_ROUND=6
export HXR_TOP=${HXR_TOP:-24} HXR_PICKS=${HXR_PICKS:-4}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_round6.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round6.txt"
start=$(date +%s)
limit=${HXR_PICKS_SECONDS:-190}
timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_resident.py "$out" picks "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round6.log"
echo "picks wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round6.log"
python3 - "$out/hexagonal-round6.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
