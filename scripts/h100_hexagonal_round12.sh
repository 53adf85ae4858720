#!/usr/bin/env bash
# Round 12 of the resident-latency extension on the H100 (issue 34), one call of the
# device tool carrying .whl:
#   HXR_PLAN=sample_data/h100/hexagonal-round12-plan.json \
#     bash scripts/h100_hexagonal_round12.sh OUTDIR   (about 2 minutes)
# The shipped constants' picks on the nine fitted problems and at 9216^2 (chosen on the
# device with builds, as rounds 8-11), timed beside the plan's baseline points in
# interleaved rounds (benchmarks/tiling_round12.py --plan wrote the plan before the
# call).  Driver: scripts/h100_hexagonal_round12.py.  Into OUTDIR/hexagonal-round12-*
# (+ .log, environment).  Afterwards, here: python benchmarks/tiling_round12.py.
# HXR_SECONDS (110): no problem starts after it; HXR_COMMIT: the commit to record.
set -uo pipefail
out=${1:?output folder}
if [ -e .whl/prelude.sh ] && [ -z "${HXR_DRY_RUN:-}" ]; then  # else: the caller ran it
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
limit=${HXR_SECONDS:-110}
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1;
  echo "cpus: $(nproc)"; echo "commit: ${HXR_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}";
  echo "command: HXR_PLAN=${HXR_PLAN:-} HXR_SECONDS=$limit HXR_ROUNDS=${HXR_ROUNDS:-7} HXR_RUNS=${HXR_RUNS:-3} bash scripts/h100_hexagonal_round12.sh OUT";
  python3 -c "import loopy, pyopencl, islpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__)"; } > "$out/environment-hexagonal-round12.txt"
start=$(date +%s)
timeout -s INT $((limit + 40)) python3 scripts/h100_hexagonal_round12.py "$out" "$limit" 2>&1 \
  | grep -v "warnings generated" | tee -a "$out/hexagonal-round12.log"
echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/hexagonal-round12.log"
