#!/usr/bin/env bash
# One GPU against two, on the 2-GPU H200 machine (through the device tool, carrying .whl,
# which must then hold dask[distributed] and its dependencies for Python 3.12 when the
# machine lacks them): the full calibration campaign and the exhaustive matmul space,
# each run with --scheduler local-gpus on one GPU, then on both, one after the other.
#   bash scripts/h200x2_campaign.sh OUTDIR [all|calibrate|tune]
# (all: about 4.5 minutes on two H100s, 2026-11-25; split it into calibrate and tune where
# a command may run less).  OUTDIR is packed into ${TARBALL:-OUTDIR.tgz} at the end.
# One GPU is the first one, chosen with CUDA_VISIBLE_DEVICES (NVIDIA's OpenCL honours
# it); every run starts with empty loopy and pyopencl caches, so that the second run
# does not build from the first one's caches, and writes a store of its own.
set -uo pipefail
out=${1:?output folder}; what=${2:-all}
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
export PYTHONWARNINGS=ignore::UserWarning
python3 -c "import distributed, workbench.distributed" 2>/dev/null || {
  echo "dask[distributed] is not importable here: carry its wheels in .whl/, e.g." \
       "pip download -d .whl --only-binary=:all: --python-version 3.12" \
       "'dask[distributed]==2026.8.0'"; exit 1; }
mkdir -p "$out"
{ date -u +%FT%TZ; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  echo "cpus: $(nproc)"; python3 -c "import dask, distributed, loopy, pyopencl, sys
print('python', sys.version.split()[0], 'dask', dask.__version__, 'distributed',
      distributed.__version__, 'loopy', loopy.VERSION, 'pyopencl', pyopencl.VERSION)"
} > "$out/environment-h200x2.txt" 2>&1
python3 -m workbench devices | tee "$out/devices.txt"

# run LABEL GPUS LIMIT_S COMMAND...: times one command on GPUS ("0" or "0,1") into
# OUTDIR/LABEL.wall, which the summary reads (the runs may be split over invocations:
# all four take longer than one device-tool command may)
run() {
  local label=$1 gpus=$2 limit=$3; shift 3
  local start end rc
  start=$(date +%s.%N)
  CUDA_VISIBLE_DEVICES=$gpus XDG_CACHE_HOME=$(mktemp -d) \
    timeout -s INT "$limit" python3 -m workbench "$@" 2>&1 | tee "$out/$label.log"
  rc=${PIPESTATUS[0]}
  end=$(date +%s.%N)
  if [[ $rc == 0 ]]; then
    python3 -c "print(f'{$end - $start:.1f}')" > "$out/$label.wall"
  else   # a stopped run's wall time is no campaign's: no speed-up from it
    rm -f "$out/$label.wall"
  fi
  echo "$label: exit $rc, wall time $(python3 -c "print(f'{$end - $start:.1f}')") s" \
    | tee -a "$out/$label.log"
}

if [[ $what == all || $what == calibrate ]]; then
  for n in 1 2; do
    gpus=$([[ $n == 1 ]] && echo 0 || echo 0,1)
    run "calibrate-${n}gpu" "$gpus" 280 calibrate --device NVIDIA --scheduler local-gpus \
      --store "$out/calibrate-${n}gpu.sqlite" --name "h200-full-${n}gpu"
  done
fi
if [[ $what == all || $what == tune ]]; then
  for n in 1 2; do
    gpus=$([[ $n == 1 ]] && echo 0 || echo 0,1)
    run "tune-matmul-${n}gpu" "$gpus" 170 tune matmul --strategy exhaustive \
      --device NVIDIA --scheduler local-gpus --build-option=-cl-nv-verbose --no-progress \
      --store "$out/tune-matmul-${n}gpu.sqlite"
  done
fi

for f in "$out"/*gpu.sqlite; do
  python3 - "$f" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)"); c.close()
PY
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
{ echo "speed-up from one ${gpu:-GPU} to two (wall time, one GPU / two GPUs):"
  for job in calibrate tune-matmul; do
    if [[ -s $out/$job-1gpu.wall && -s $out/$job-2gpu.wall ]]; then
      one=$(cat "$out/$job-1gpu.wall"); two=$(cat "$out/$job-2gpu.wall")
      python3 -c "print(f'  $job: {$one:.1f} s -> {$two:.1f} s, speed-up {$one / $two:.2f}x')"
    else
      echo "  $job: not both runs finished (see $out/$job-*gpu.log)"
    fi
  done; } | tee "$out/speedup-h200x2.txt"
# one file for the device tool, which returns a limited number of files per call
tar czf "${TARBALL:-$out.tgz}" -C "$out" . && echo "packed: ${TARBALL:-$out.tgz}"
