#!/usr/bin/env bash
# Round 3 of the resident-latency extension on the H100 (issue 34, item 4), in one call
# of the device tool carrying .whl:
#   bash scripts/h100_hexagonal_round3.sh OUTDIR      (about 3 minutes)
# picks: per problem of sample_data/h100/hexagonal-round3-plan.json (written here by
# `python benchmarks/tiling_round3.py --plan ...`: the lane-pass form's picks not
# measured before), the best baseline point again, then those picks, into
# OUTDIR/hexagonal-round3.sqlite (campaigns tune/hx_<s>/{best-baseline,
# chosen-lane-passes}/<sizes>).  Driver: scripts/h100_hexagonal_resident.py with
# HXR_ROUND=3.  Afterwards, here: python benchmarks/tiling_round3.py
# HXR_PICKS_SECONDS (200): the stage stops itself there; HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
if [ -e .whl/prelude.sh ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning HXR_ROUND=3
export HXR_PLAN=${HXR_PLAN:-sample_data/h100/hexagonal-round3-plan.json}
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: bash scripts/h100_hexagonal_round3.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round3.txt"
start=$(date +%s)
limit=${HXR_PICKS_SECONDS:-200}
timeout -s INT $((limit + 30)) python3 scripts/h100_hexagonal_resident.py "$out" picks "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round3.log"
echo "picks wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round3.log"
python3 - "$out/hexagonal-round3.sqlite" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
