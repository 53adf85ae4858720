#!/usr/bin/env bash
# The shipped tuning report: every strategy replayed on the H100 spaces (no GPU
# needed; model rankings are timed on this machine).   bash scripts/h100_tuning_report.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=sample_data/h100
wb=".venv/bin/python -m workbench"
{ echo "# generated $(date -u +%FT%TZ) on $(hostname) ($(nproc) cores) by scripts/h100_tuning_report.sh"
  $wb tuning-report --store $out/tuning.sqlite \
    --weights linear=$out/weights-linear.json --weights overlap=$out/weights-overlap.json \
    --tpe-seeds 10 --format md --plot $out/plots/tuning
} > $out/tuning-report.md
.venv/bin/python benchmarks/ranking.py --models linear,overlap > $out/tuning-ranking-cost.txt
# the roofline ranks per point (its volumes are per block): minutes on matmul, so only stencil2d
.venv/bin/python benchmarks/ranking.py --models roofline --spaces stencil2d >> $out/tuning-ranking-cost.txt
