#!/usr/bin/env bash
# Issue #33 on the H100 (through the device tool, carrying .whl and this checkout with
# .whl2: optuna and its dependencies, pandas if missing):   bash scripts/h100_structure_tuning.sh OUTDIR
# 1. ranking cost of the user factory spaces, counted per structure, on the host's
#    16 cores (benchmarks/ranking.py --jobs 16; every space loaded anew, caches fresh);
# 2. live tuning with every cost on the clock: model:linear against TPE (seeds 0-2) on
#    six user spaces, 10 evaluations each, each run a new process with empty loopy,
#    pyopencl and count caches (a first session); one store per run.
# LIVE_STRATEGIES (default "model tpe"; e.g. "model-ei tpe", "model-hedge-base tpe":
# model-hedge, model-hedge-base, model-hedge-check, model-hedge-stream and model-hedge-handover are seeded, run under SEEDS like TPE) and SEEDS (default "0 1 2")
# narrow step 2; WEIGHTS (default sample_data/h100/weights-linear.json; e.g.
# sample_data/h100/weights-linear-non-negative.json) is the model of the model strategies;
# NO_RANKING=1 skips step 1.  EARLY=1: the model strategies measure while they rank
# (--early-start); MODEL_REPEATS="1 2" repeats the (seedless) model runs under those
# seeds after all others, as time allows; SKIP="SPACE-STRATEGY-SEED ..." leaves out runs made before; JOBS (default 12) sets tune --jobs (1: no
# prebuild workers; with more, a worker builds the points a strategy says come next:
# an order's, a model's next picks once it has ranked; TPE only its first draw).  EVALS (default 10): evaluations a run.
# SPACES (default the six design spaces): examples/spaces/ names to tune (blind_*,
# blind2_* to blind19_* names too, once the method is fixed; step 1's ranking never takes them).
# RESIDENCY=1: the model strategies with --residency-penalty (structure-ranking.md s. 13).
# Each run gets an empty NVIDIA compute cache too (CUDA_CACHE_PATH; before live run 9
# a point built by an earlier run was built again from the driver's cache in 0.005 s).
set -uo pipefail
out=${1:?output folder}
began=$(date +%s)
{ [ -n "${PRELUDE_DONE:-}" ] || bash .whl/prelude.sh; } && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/*.whl
python3 -c "import pandas" 2>/dev/null || \
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/pandas/*.whl
python3 -c "import sklearn" 2>/dev/null || [ ! -d .whl2/sk ] || \
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl2/sk/*.whl
export PYTHONWARNINGS=ignore
mkdir -p "$out/runs"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv;
  echo "cpus: $(nproc)"; echo "load average: $(cat /proc/loadavg)"; cat COMMIT 2>/dev/null; python3 -c "import loopy, pyopencl, islpy, optuna, numpy, sys
print('python', sys.version.split()[0], 'loopy', loopy.VERSION, 'pyopencl',
      pyopencl.VERSION, 'islpy', islpy.__version__, 'optuna', optuna.__version__, 'numpy', numpy.__version__)"; } \
  > "$out/environment-structure-tuning.txt" 2>&1
[ -n "${NO_RANKING:-}" ] || XDG_CACHE_HOME=$(mktemp -d) timeout ${RANKING_TIMEOUT:-150} python3 benchmarks/ranking.py \
  --models linear --spaces examples --jobs 16 > "$out/ranking-h100-jobs16.txt" 2>&1
spaces=${SPACES:-matmul_tiled stencil2d_5pt transpose rowsum triad stencil3d_7pt}
early=""; [ -n "${EARLY:-}" ] && early="--early-start"
for pass in ${SEEDS:-0 1 2} $(for r in ${MODEL_REPEATS:-}; do echo "r$r"; done); do
  seed=${pass#r}
  for space in $spaces; do
    for strategy in ${LIVE_STRATEGIES:-model tpe}; do
      if [ "$pass" != "$seed" ]; then       # a repeat: the seedless model strategies only
        case $strategy in model|model-bo|model-ei) ;; *) continue;; esac
      else                                  # the model's order is seedless
        case $strategy in model|model-bo|model-ei) [ "$seed" != 0 ] && continue;; esac
      fi
      case " ${SKIP:-} " in *" $space-$strategy-$seed "*) continue;; esac   # run before
      if [ $(( $(date +%s) - began )) -gt ${DEADLINE:-330} ]; then
        echo "deadline: $space $strategy seed $seed not run" >> "$out/live.log"; continue
      fi
      weights=""
      case $strategy in model*) weights="--weights ${WEIGHTS:-sample_data/h100/weights-linear.json} $early ${RESIDENCY:+--residency-penalty}";; esac
      start=$(date +%s.%N)
      XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d) timeout 60 python3 -m workbench tune \
        "examples/spaces/$space.py:space" --strategy $strategy $weights --seed $seed \
        --device NVIDIA --jobs ${JOBS:-12} --budget-evals ${EVALS:-10} --no-progress --format json \
        --store "$out/runs/$space-$strategy-$seed.sqlite" >> "$out/live.jsonl" 2>> "$out/live.log"
      echo "$space $strategy seed $seed process wall $(python3 -c "import time; print(round(time.time() - $start, 2))") s" \
        >> "$out/live.log"
    done
  done
done
python3 - "$out"/runs/*.sqlite <<'PY'
import sqlite3, sys
for f in sys.argv[1:]:
    c = sqlite3.connect(f); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
tar -C "$out" -czf "$out/runs.tgz" runs && rm -rf "$out/runs"
