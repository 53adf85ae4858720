#!/usr/bin/env bash
# Regenerate the shipped H100 weights and tables from the shipped store (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
d=sample_data/h100
wb() { .venv/bin/python -m workbench "$@"; }
wb fit --store $d/measurements.sqlite -o $d/weights-linear.json > $d/fit.txt
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json > $d/tables.txt
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format md > $d/tables.md
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format csv > $d/tables.csv
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format json > $d/table1.json
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --all-groups \
  --format md > $d/tables-all-groups.md
