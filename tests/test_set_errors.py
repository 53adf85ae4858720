"""benchmarks/set_errors.py: each model's table on the dataset its own report would load
(a work-item model and a sub-group model of one store are two datasets)."""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WEIGHTS = ROOT / "sample_data" / "h100"


def test_each_model_is_scored_on_the_dataset_loaded_for_its_kind(monkeypatch, tmp_path):
    import workbench.cli.model_cmds as model_cmds
    import workbench.reports.tables as tables
    from benchmarks import set_errors

    loaded, scored = [], []

    def load(stores, device, campaign, model):
        loaded.append(model.granularity)
        return pd.DataFrame({"role": ["test"], "granularity": [str(model.granularity)]})

    class Table:
        cross_kernel, per_kernel = 0.1, {}

    def table1(model, data, **kwargs):
        scored.append((str(model.granularity), data["granularity"].iloc[0]))
        return Table()

    monkeypatch.setattr(model_cmds, "_load_dataset", load)
    monkeypatch.setattr(tables, "table1", table1)
    monkeypatch.setattr(sys, "argv", [
        "set_errors.py", "store.sqlite", str(tmp_path / "out.json"),
        str(WEIGHTS / "weights-linear.json"),
        str(WEIGHTS / "weights-linear-fp64-sectors-chains15.json"),
        str(WEIGHTS / "weights-linear-fp64-sectors-chains16.json")])
    set_errors.main()
    assert len(loaded) == 2 and len(scored) == 3
    assert all(model == data for model, data in scored)
