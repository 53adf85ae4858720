#!/usr/bin/env bash
# Round 11 of the resident-latency extension on the H100 (issue 34), one call of the
# device tool carrying .whl:
#   HXR_PLAN=sample_data/h100/hexagonal-round11-plan.json \
#     bash scripts/h100_hexagonal_round11.sh OUTDIR   (about 4 minutes)
# Round 11's constants' picks and the shipped ones' (chosen on the device with builds,
# as rounds 8-9), then the baseline sets fastest-first in the plan's order
# (benchmarks/tiling_round11.py --plan wrote it before the call).  Driver: scripts/h100_hexagonal_round11.py.  Into OUTDIR/hexagonal-round11.sqlite
# (+ .log, environment).  Afterwards, here: python benchmarks/tiling_round11.py.
# HXR_SECONDS (205): the measuring stops itself there; HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
if [ -e .whl/prelude.sh ] && [ -z "${HXR_DRY_RUN:-}" ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
limit=${HXR_SECONDS:-205}
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: HXR_PLAN=${HXR_PLAN:-} HXR_SECONDS=$limit bash scripts/h100_hexagonal_round11.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round11.txt"
start=$(date +%s)
timeout -s INT $((limit + 20)) python3 scripts/h100_hexagonal_round11.py "$out" "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round11.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round11.log"
for db in "$out"/hexagonal-round11*.sqlite; do
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
done
