"""The unified linear model: fit recovers known weights; reports and files round-trip."""

import json

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ModelError
from workbench.models import UnifiedLinearModel, geometric_mean, load_model, save_model
from workbench.reports import table1, table2, to_markdown

TRUE = {"f_op_float32_add": 2e-12, "f_mem_access_global_float32_load_stride1": 5e-11,
        "f_thread_groups": 3e-9, "f_sync_kernel_launch": 4e-6}


def synthetic(noise=0.0, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for role, kernel, n in [("measurement", "a", 40), ("measurement", "b", 40),
                            ("test", "t", 8)]:
        for i in range(n):
            f = {"f_op_float32_add": rng.uniform(1e6, 1e9) if kernel != "b" else 0.0,
                 "f_mem_access_global_float32_load_stride1":
                     rng.uniform(1e5, 1e8) if kernel != "a" else 0.0,
                 "f_thread_groups": rng.uniform(10, 1e4), "f_sync_kernel_launch": 1.0}
            t = sum(TRUE[k] * v for k, v in f.items()) * (1 + noise * rng.standard_normal())
            rows.append({"kernel": kernel, "variant": "v", "dtype": "float32",
                         "group_size": "16x16" if i % 2 else "32x16",
                         "params": f"n={100 + i}", "role": role, "time_s": t,
                         "device": "synthetic", **f})
    return pd.DataFrame(rows)


def test_fit_recovers_known_weights_and_reports():
    data = synthetic()
    model = UnifiedLinearModel().fit(data, bootstrap=20)
    for name, w in TRUE.items():
        assert model.weights[name] == pytest.approx(w, rel=1e-6)
        lo, hi = model.confidence_intervals[name]
        assert lo <= model.weights[name] * (1 + 1e-9) and hi >= model.weights[name] * (1 - 1e-9)
    assert model.fit_stats["training_geomean_rel_error"] < 1e-8
    t1 = table1(model, data, group_workitems=None)
    assert t1.cross_kernel < 1e-8 and list(t1.per_kernel.index) == ["t"]
    assert len(t1.cases) == 8
    md = to_markdown(table2(model))
    assert "f_thread_groups" in md and md.count("\n") == len(TRUE) + 2


def test_noisy_fit_has_honest_error_and_intervals():
    model = UnifiedLinearModel().fit(synthetic(noise=0.05), bootstrap=50)
    err = model.fit_stats["training_geomean_rel_error"]
    assert 0.005 < err < 0.1
    lo, hi = model.confidence_intervals["f_op_float32_add"]
    assert lo < hi


def test_unexercised_properties_are_reported(tmp_path):
    data = synthetic()
    data["f_op_float32_div"] = np.where(data["role"] == "test", 1e6, 0.0)
    model = UnifiedLinearModel().fit(data, bootstrap=0)
    assert model.unexercised == ["f_op_float32_div"]
    assert "f_op_float32_div" not in model.weights
    assert model.missing_weights(data) == ["f_op_float32_div"]


def test_model_file_round_trip_and_refusals(tmp_path):
    model = UnifiedLinearModel().fit(synthetic(), bootstrap=5, device={"device": "x"})
    path = tmp_path / "w.json"
    save_model(model, path)
    again = load_model(path)
    assert again.weights == model.weights
    doc = json.loads(path.read_text())
    doc["schema_version"] = 99
    path.write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="upgrade"):
        load_model(path)
    (tmp_path / "junk.json").write_text("not json")
    with pytest.raises(ModelError, match="not a model file"):
        load_model(tmp_path / "junk.json")


def test_geometric_mean():
    assert geometric_mean([0.1, 0.4]) == pytest.approx(0.2)
