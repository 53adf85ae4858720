#!/usr/bin/env bash
# Issue #33: the ranking's wall time on the GPU host's 16 cores, before and after branch
# rank16 (counting as results come on a pool forked ahead and warmed, speculation on
# idle workers), through the device tool, carrying .whl and this checkout with before/
# (the code before: `git archive <commit> workbench benchmarks | tar -x -C before`, its
# commit in before/COMMIT) and .whl2/pandas (installed where the host lacks pandas):
#     bash scripts/h100_ranking16.sh OUTDIR   (PRELUDE_DONE=1: the wheels are installed)
# Runs benchmarks/ranking.py --models linear --spaces examples with 16 processes (the
# code before; after with the pool warm, started before the timed ranking, and cold,
# forked inside it; where its time goes: benchmarks/ranking_timeline.py), then with one
# process (after, before), then the 16-process runs
# again while DEADLINE (seconds, default 250) allows.  SPACES (default examples) is
# ranking.py's --spaces (examples,blind,blind2: all of them but the unranked blind3).  Every run a new process, loopy's
# and the count caches fresh.  MODELS (default linear) is ranking.py's --models; ONLY
# (names of the runs below, space-separated) runs those alone, in this order.
set -uo pipefail
out=${1:?output folder}
began=$(date +%s)
{ [ -n "${PRELUDE_DONE:-}" ] || bash .whl/prelude.sh > /dev/null; } || exit 1
PYTHONPATH=/tmp/site python3 -c "import pandas" 2>/dev/null || \
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/pandas/*.whl
export PYTHONUNBUFFERED=1 PYTHONWARNINGS=ignore
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "cpus: $(nproc)"; lscpu | grep -m1 "Model name"; echo "load average: $(cat /proc/loadavg)"
  echo "commit: $(cat COMMIT 2>/dev/null)"; echo "before: $(cat before/COMMIT 2>/dev/null)"
  PYTHONPATH=/tmp/site:$PWD python3 -c "import loopy, pyopencl, islpy, numpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__, 'numpy', numpy.__version__)"; } \
  > "$out/environment-ranking16.txt" 2>&1
bench() {   # name, code (after|before), ranking.py's arguments
  local name=$1 code=$2; shift 2
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return; fi
  if [ $(( $(date +%s) - began )) -gt ${DEADLINE:-250} ]; then
    echo "deadline: $name not run" >> "$out/environment-ranking16.txt"; return
  fi
  local root=$PWD; [ "$code" = before ] && root=$PWD/before
  XDG_CACHE_HOME=$(mktemp -d) PYTHONPATH=/tmp/site:$root timeout ${RUN_TIMEOUT:-90} \
    python3 "$root/benchmarks/ranking.py" --models "${MODELS:-linear}" --spaces "${SPACES:-examples}" "$@" \
    >> "$out/$name.txt" 2>&1
}
bench ranking-h100-jobs16-before before --jobs 16
bench ranking-h100-jobs16-warm after --jobs 16
bench ranking-h100-jobs16-cold after --jobs 16 --pool cold
[ -z "${ONLY:-}" ] && XDG_CACHE_HOME=$(mktemp -d) PYTHONPATH=/tmp/site:$PWD \
  timeout ${RUN_TIMEOUT:-90} python3 benchmarks/ranking_timeline.py --jobs 16 \
  > "$out/ranking-h100-timeline-jobs16.txt" 2>&1
bench ranking-h100-jobs1 after --jobs 1
bench ranking-h100-jobs1-before before --jobs 1
bench ranking-h100-jobs16-before before --jobs 16
bench ranking-h100-jobs16-warm after --jobs 16
bench ranking-h100-jobs16-cold after --jobs 16 --pool cold
