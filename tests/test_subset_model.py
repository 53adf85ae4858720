"""model14's candidate (structure-ranking.md section 54): chains38's fit with device
families read as 0, no weight changed."""

import json
from pathlib import Path

import numpy as np

from benchmarks.feature_dump import runs_to
from benchmarks.subset_model import SOURCE, subset_document

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "sample_data" / "h100" / "weights-linear-fp64-sectors-chains38-counts.json"


def test_a_dropped_name_is_replaced_whole_and_never_as_a_prefix():
    document = {"model": "p_waves*f_waves + p_b*f_wave_balance + p_w*f_waves_x + "
                         "f_a:<=1_f_waves", "provenance": {}}
    out = subset_document(document, ("f_waves",), "test")
    assert out["model"] == "p_waves*0 + p_b*f_wave_balance + p_w*f_waves_x + f_a:<=1_f_waves"
    assert out["provenance"]["derived"] == "test"


def test_the_shipped_candidate_is_chains38_with_only_function_calls_as_device_features():
    from workbench.models import load_model
    from workbench.models.device_features import device_families

    full, mine = load_model(SOURCE), load_model(SHIPPED)
    family_of = {n: f.name.rsplit(".", 2)[-2] for f in device_families() for n in f.features}
    kept = {family_of[n] for n in mine.features if n in family_of}
    assert kept == {"function_calls"}
    assert "f_local_wavefronts" in full.features and "f_local_wavefronts" not in mine.features
    assert dict(mine.parameters) == dict(full.parameters)
    # the counted features are all still read
    assert {n for n in full.features if n not in family_of} <= set(mine.features)
    assert json.loads(SHIPPED.read_text())["provenance"]["derived"].startswith(SOURCE.name)


def test_runs_to_95_follow_the_predicted_order_with_unpredicted_points_last():
    measured = np.array([1.0, 2.0, 1.02, 5.0])
    assert runs_to(measured, np.array([3.0, 1.0, 2.0, np.nan])) == 2   # 2.0 then 1.02
    assert runs_to(measured, np.array([np.nan, 1.0, 3.0, 2.0])) == 3   # 1.02 third
    assert runs_to(measured, np.array([1.0, 2.0, 3.0, 4.0])) == 1
