#!/usr/bin/env bash
# Regenerate the shipped H100 weights and tables from the shipped store (no GPU needed).
set -euo pipefail
cd "$(dirname "$0")/.."
d=sample_data/h100
wb() { .venv/bin/python -m workbench "$@"; }
wb fit --store $d/measurements.sqlite --fit plain -o $d/weights-linear.json > $d/fit.txt
# the default fit (every weight >= 0): what the dashboard shows beside a live device's
wb fit --store $d/measurements.sqlite --fit non-negative \
  -o $d/weights-linear-non-negative.json > $d/fit-linear-non-negative.txt
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json > $d/tables.txt
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format md > $d/tables.md
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format csv > $d/tables.csv
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --format json > $d/table1.json
wb report --store $d/measurements.sqlite --weights $d/weights-linear.json --all-groups \
  --format md > $d/tables-all-groups.md

# The 2019 mechanism: an overlap model (models/overlap.json) fitted on the catalog, the
# same model fitted on every H100 measurement set, and model-guided variant selection.
wb fit --store $d/measurements.sqlite --model models/overlap.json \
  -o $d/weights-overlap.json > $d/fit-overlap.txt
wb report --store $d/measurements.sqlite --weights $d/weights-overlap.json \
  --format md > $d/tables-overlap.md
wb report --store $d/measurements.sqlite --weights $d/weights-overlap.json \
  --format json > $d/table1-overlap.json
wb fit --store $d/measurements.sqlite --store $d/measurements-2019.sqlite \
  --model models/overlap.json -o $d/weights-overlap-all-sets.json > $d/fit-overlap-all-sets.txt
wb report --store $d/measurements.sqlite --store $d/measurements-2019.sqlite \
  --weights $d/weights-overlap-all-sets.json --format md > $d/tables-overlap-all-sets.md
for m in linear overlap; do
  wb select --store $d/families.sqlite --weights $d/weights-$m.json > $d/selection-$m.txt
  wb select --store $d/families.sqlite --weights $d/weights-$m.json --format json \
    > $d/selection-$m.json
done

# The in-situ overlap model (models/insitu-overlap.json): the work-removed twins' measured
# times as the global-memory term (twins.sqlite, families-work-removed.sqlite), local
# accesses weighted by bank passes, the on-chip term scaled by the compute-unit balance.
wb fit --store $d/measurements.sqlite --store $d/twins.sqlite \
  --model models/insitu-overlap.json -o $d/weights-insitu-catalog.json > $d/fit-insitu-catalog.txt
wb fit --store $d/measurements.sqlite --store $d/measurements-2019.sqlite --store $d/twins.sqlite \
  --model models/insitu-overlap.json -o $d/weights-insitu.json > $d/fit-insitu.txt
for m in insitu insitu-catalog; do
  wb report --store $d/measurements.sqlite --store $d/twins.sqlite --weights $d/weights-$m.json \
    --format md > $d/tables-$m.md
  wb report --store $d/measurements.sqlite --store $d/twins.sqlite --weights $d/weights-$m.json \
    --format json > $d/table1-$m.json
  wb select --store $d/families.sqlite --store $d/families-work-removed.sqlite \
    --weights $d/weights-$m.json > $d/selection-$m.txt
  wb select --store $d/families.sqlite --store $d/families-work-removed.sqlite \
    --weights $d/weights-$m.json --format json > $d/selection-$m.json
done

# Both precisions (2026-11-23): the catalog in float32 and float64, the 2019 set in both,
# and the unseen kernels (in no fit), reported apart.
wb fit --store $d/measurements-fp64.sqlite --fit plain -o $d/weights-linear-fp64.json > $d/fit-linear-fp64.txt
# the default fit (every weight >= 0): what 'make demo' reports
wb fit --store $d/measurements-fp64.sqlite --fit non-negative \
  -o $d/weights-linear-fp64-non-negative.json > $d/fit-linear-fp64-non-negative.txt
for fmt in md json; do
  ext=$fmt; [ $fmt = json ] && name=table1-fp64 || name=tables-fp64
  wb report --store $d/measurements-fp64.sqlite --store $d/unseen.sqlite \
    --weights $d/weights-linear-fp64.json --format $fmt > $d/$name.$ext
done
# The default model of 'workbench predict' (default-model.json): the overlap model in both
# precisions, fitted on the catalog's measurement and test kernels; judged on the unseen ones.
wb fit --store $d/measurements-fp64.sqlite --model models/overlap-fp64.json \
  --train-on measurement,test -o $d/weights-overlap-fp64.json > $d/fit-overlap-fp64.txt
wb report --store $d/measurements-fp64.sqlite --store $d/unseen.sqlite \
  --weights $d/weights-overlap-fp64.json --format md > $d/tables-overlap-fp64.md
# leave-one-kernel-out over the test kernels, both precisions (see also h100_validation.sh)
wb validate --store $d/measurements-fp64.sqlite --fit plain --format md > $d/validation-loko-fp64-linear.md
wb validate --store $d/measurements-fp64.sqlite --model models/overlap-fp64.json \
  --format md > $d/validation-loko-fp64-overlap.md
