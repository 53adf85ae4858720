#!/usr/bin/env bash
# The NVIDIA H200 (issue #26), through the device tool carrying .whl, in parts that each
# stay under 9.5 minutes (H100 figures in brackets):
#   bash scripts/h200_campaign.sh OUTDIR PART [SECONDS]
#   PART 1: provenance, devices, the bandwidth benchmark, the catalog in float32 and
#           float64 [294 s], the unseen kernels in both [35 s]                 ~6-7 min
#   PART 2: the 2019 set in both precisions [100 s], the time-tiling calibration
#           (calibrate --set timetiling) [~25 s], and the H100's three exhaustive
#           tuning spaces (matmul, stencil2d, transpose: 506-588 points) replayed on
#           the H200 with --jobs 12 [36-43 s each]                             ~5 min
#   PART 3: throughput on this one-GPU host, same kernels, cold caches each run: the
#           2019 set in float32 [49 s serial] and the first 200 points of transpose
#           (exhaustive order) [~40 s serial], each serial, with --jobs 12, and with
#           --scheduler local-gpus (1 GPU worker, 15 CPU build workers); the Dask
#           dashboard fetched; a campaign whose GPU worker and a CPU worker are killed
#           (SIGKILL) mid-run, checked row for row against the serial run      ~5 min
#   PART "2,3" runs both (about 9 minutes: only where a command may run 10).
# SECONDS (default 540) bounds the whole part: each step gets what is left, and every
# campaign is resumable (run the part again with the same OUTDIR on the same machine).
# At the end OUTDIR is packed into ${TARBALL:-OUTDIR.tgz} (one file for the device
# tool) and a summary is printed.  Every run starts with empty loopy, pyopencl and
# NVIDIA compute caches (XDG_CACHE_HOME, CUDA_CACHE_PATH), so first-time costs are real.
# A dry run of part 3 on a CPU device (no .whl, no GPU): H200_DRY_RUN=1 DEVICE=Portable
#   JOBS=2 TUNE_EVALS=6 CAMPAIGN_ARGS="--set 2019 --dtypes float32 --quick --kernels K1,K2"
#   KILL_ARGS="$CAMPAIGN_ARGS" bash scripts/h200_campaign.sh /tmp/dry 3 300
set -uo pipefail
out=${1:?output folder}; parts=${2:?part 1, 2, 3 or 2,3}; budget=${3:-540}
export DEVICE=${DEVICE:-NVIDIA}
JOBS=${JOBS:-12}; TUNE_EVALS=${TUNE_EVALS:-200}
read -ra CAMPAIGN <<< "${CAMPAIGN_ARGS:---set 2019 --dtypes float32}"
NV=(--build-option=-cl-nv-verbose)
if [ -n "${H200_DRY_RUN:-}" ]; then
  NV=(); export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
else
  bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
fi
export PYTHONWARNINGS=ignore::UserWarning
mkdir -p "$out"
end=$(( $(date +%s) + budget ))
left() { echo $(( end - $(date +%s) - ${1:-10} )); }
fresh_caches() { export XDG_CACHE_HOME=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d); }

provenance() {  # FILE
  { date -u +%FT%TZ; echo "command: bash scripts/h200_campaign.sh $out $parts $budget"
    echo "git: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,clocks.max.sm \
      --format=csv 2>&1
    echo "cpus: $(nproc)"; python3 --version
    python3 -m pip list 2>/dev/null | grep -i -E \
      "^(loopy|islpy|pyopencl|numpy|pymbolic|dask|distributed|bokeh|cloudpickle) "
    python3 -c "import loopy, pyopencl, islpy
print('loopy', loopy.VERSION, 'pyopencl', pyopencl.VERSION, 'islpy', islpy.__version__)"
    python3 -c "import distributed, bokeh; print('distributed', distributed.__version__,
'bokeh', bokeh.__version__)" 2>&1 | tail -1
  } > "$1" 2>&1
}

calibrate() {  # STORE LOG NAME ARGS...: a campaign in both precisions, bounded by the budget
  local store=$1 log=$2 name=$3; shift 3
  local limit; limit=$(left)
  [ "$limit" -gt 20 ] || { echo "no time left for $name" | tee -a "$out/$log"; return; }
  local start=$(date +%s)
  timeout -s INT "$limit" python3 -m workbench calibrate --device NVIDIA \
    --dtypes float32,float64 --store "$out/$store" --name "$name" --no-progress "$@" 2>&1 \
    | grep -v -i warn | tee -a "$out/$log"
  echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/$log"
}

part1() {
  provenance "$out/environment-part1.txt"
  python3 -m workbench devices | tee "$out/devices.txt"
  fresh_caches
  timeout -s INT 90 python3 benchmarks/bandwidth.py --device NVIDIA \
    --out "$out/bandwidth.json" 2>&1 | grep -v -i warn | tee "$out/bandwidth.log"
  calibrate measurements-fp64.sqlite calibrate-fp64.log h200-f32-f64
  calibrate unseen.sqlite calibrate-unseen.log h200-unseen-f32-f64 --set unseen
}

part2() {
  provenance "$out/environment-part2.txt"
  fresh_caches
  calibrate measurements-2019-fp64.sqlite calibrate-2019-fp64.log h200-2019-f32-f64 --set 2019
  local limit start; limit=$(left)
  if [ "$limit" -gt 30 ]; then
    start=$(date +%s)
    timeout -s INT "$(( limit < 150 ? limit : 150 ))" python3 -m workbench calibrate \
      --device NVIDIA --set timetiling --device-model h100 --name h200-timetiling \
      --store "$out/timetiling.sqlite" --calibration-out "$out/tiling-calibration.json" \
      --no-progress 2>&1 | grep -v -i warn | tee "$out/timetiling.log"
    echo "wall time: $(( $(date +%s) - start )) s" | tee -a "$out/timetiling.log"
  fi
  # the H100's exhaustive spaces (sample_data/h100/tuning.sqlite), all points, as there
  for space in matmul stencil2d transpose; do
    limit=$(left); [ "$limit" -gt 30 ] || { echo "no time left for $space" |
      tee -a "$out/tuning.log"; break; }
    start=$(date +%s); fresh_caches
    timeout -s INT "$(( limit < 170 ? limit : 170 ))" python3 -m workbench tune "$space" \
      --strategy exhaustive --device NVIDIA --jobs 12 --build-option=-cl-nv-verbose \
      --no-progress --store "$out/tuning.sqlite" 2>&1 | tee -a "$out/tuning.log"
    echo "$space wall time: $(( $(date +%s) - start )) s" | tee -a "$out/tuning.log"
  done
  if [ -s "$out/tuning.sqlite" ]; then
    python3 benchmarks/carry_over.py --source sample_data/h100/tuning.sqlite \
      --target "$out/tuning.sqlite" --out "$out" 2>&1 | tail -8
  fi
}

# timed RUNNER LABEL COMMAND...: one throughput run, cold caches, its own store
timed() {
  local label=$1; shift
  local limit; limit=$(left 15)
  [ "$limit" -gt 15 ] || { echo "$label: no time left" | tee -a "$out/throughput.log"; return; }
  fresh_caches
  local start end rc
  start=$(date +%s.%N)
  timeout -s INT "$limit" python3 -m workbench "$@" 2>&1 | grep -v -i warn \
    > "$out/throughput-$label.log"
  rc=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  python3 -c "print(f'$label exit $rc wall {$end - $start:.2f} s')" | tee -a "$out/throughput.log"
  tail -n 2 "$out/throughput-$label.log" | tee -a "$out/throughput.log"
}

part3() {
  provenance "$out/environment-part3.txt"
  local mode
  for mode in serial jobs dask; do
    local extra=()
    case $mode in jobs) extra=(--jobs "$JOBS");; dask) extra=(--scheduler local-gpus);; esac
    timed "campaign-$mode" calibrate --device "$DEVICE" "${CAMPAIGN[@]}" \
      --name "h200-2019-$mode" --store "$out/throughput-campaign-$mode.sqlite" \
      --no-progress "${extra[@]}"
    timed "tune-$mode" tune transpose --strategy exhaustive --budget-evals "$TUNE_EVALS" \
      --device "$DEVICE" "${NV[@]}" --no-progress \
      --store "$out/throughput-tune-$mode.sqlite" "${extra[@]}"
  done
  python3 scripts/h200_throughput.py summary "$out" | tee "$out/throughput.txt"
  [ "$(left)" -gt 40 ] && python3 scripts/h200_throughput.py dashboard "$out" 2>&1 \
    | grep -v -i warn | tee -a "$out/throughput.txt"
  [ "$(left)" -gt 60 ] && { fresh_caches; timeout -s INT "$(left)" python3 \
    scripts/h200_throughput.py kill "$out" 2>&1 | grep -v -i warn | tee "$out/killed-worker.txt"; }
}

IFS=, read -ra chosen <<< "$parts"
for p in "${chosen[@]}"; do
  case $p in 1) part1;; 2) part2;; 3) part3;; *) echo "unknown part $p"; exit 2;; esac
done
for db in "$out"/*.sqlite; do
  [ -e "$db" ] || continue
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
done
tarball=${TARBALL:-$out.tgz}
tar czf "$tarball" -C "$(dirname "$out")" "$(basename "$out")" && ls -l "$tarball"
echo "== summary"
for f in "$out"/*.log "$out"/*.txt; do
  case $f in */throughput-*.log|*/environment-*|*/devices.txt) continue;; esac
  [ -e "$f" ] && grep -H -E "^done in|wall time|evaluations|best:|speed-up|throughput|rows lost|killed|dashboard: GET|goal|^\| " "$f"
done 2>/dev/null | sed "s|^$out/||" | tail -n 70
