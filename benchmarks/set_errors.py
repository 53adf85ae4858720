"""Benchmark: the geometric mean relative error of several fitted models on one store,
per kernel and over the kernels, as ``workbench report --all-groups`` computes it (every
group size, the physical floors applied, the ``unseen`` role's table where the store has
one), with the store's features computed once for all the models.

    WORKBENCH_BUILD_INFO=... python benchmarks/set_errors.py STORE OUT.json W1.json W2.json ...

Prints one line per model (store, model, cross-kernel geometric mean) and writes
``{weights file name: {"geomean": .., "per_kernel": {..}}}`` to OUT.json.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path


def dataset_key(model) -> tuple:
    """What :func:`workbench.cli.model_cmds._load_dataset` builds differently per model."""
    from workbench.cli.model_cmds import _model_features
    from workbench.models.expressions.features import TWIN_TIME

    return (str(getattr(model, "granularity", None)), getattr(model, "subgroup_size", None),
            TWIN_TIME in _model_features(model))


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    warnings.filterwarnings("ignore")
    from workbench.cli.model_cmds import _load_dataset
    from workbench.models.registry import load_model
    from workbench.reports.tables import table1

    store, out, weights = sys.argv[1], sys.argv[2], sys.argv[3:]
    models = [load_model(w) for w in weights]
    # one dataset per way of loading it (granularity, sub-group, twin times), as the
    # report loads it for each model: a work-item model's table on a sub-group dataset
    # (or the reverse) would be another figure
    datasets = {}
    for model in models:
        if (key := dataset_key(model)) not in datasets:
            datasets[key] = _load_dataset([store], None, None, model)
    result = {}
    for path, model in zip(weights, models):
        data = datasets[dataset_key(model)]
        role = "unseen" if (data["role"] == "unseen").any() else "test"
        t = table1(model, data, group_workitems=None, role=role, floors=True)
        result[Path(path).name] = {"geomean": float(t.cross_kernel),
                                   "per_kernel": {k: float(v)
                                                  for k, v in t.per_kernel.items()}}
        print(Path(store).name, Path(path).name, f"{t.cross_kernel:.4f}", flush=True)
    Path(out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
