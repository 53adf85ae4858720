"""Round 11 of the resident-latency extension (issue 34): a compute pass of a sub-tile
whose width is not a multiple of its inner lanes is dearer (``guarded_pass``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import with_scheme_constants
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.schemes import Form, lane_rows_terms

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8})
ROWS = Form.RESIDENT_LANE_ROWS
KEY = ROWS.constants_key(Scheme.HYBRID)


def _consts(guarded=0.0):
    return SchemeConstants(2e-10, {"jacobi2d": 3e-8}, row_latency=3e-7,
                           pass_latency=8e-8, lane_pass=8e-8, lane_rows=0.1,
                           step_global=2e-12, step_launch=4e-5, partial_rounds=True,
                           guarded_pass=guarded)


def _compute(t2, bx, guarded):
    c, _ = lane_rows_terms(3e-8, np.array([4]), np.array([2]), [np.array([2]),
                           np.array([bx])], np.array([t2]), np.array([2 * bx]), 128,
                           np.array([12]), (4096, 4096), 0.1, 2e-12, 4e-5, guarded)
    return float(c[0])


def test_only_a_width_that_is_not_a_multiple_of_the_lanes_pays_the_guard():
    assert _compute(224, 128, 0.25) == pytest.approx(1.25 * _compute(224, 128, 0.0))
    assert _compute(352, 128, 0.25) == pytest.approx(1.25 * _compute(352, 128, 0.0))
    for t2, bx in ((256, 128), (384, 128), (320, 64), (128, 128)):
        assert _compute(t2, bx, 0.25) == pytest.approx(_compute(t2, bx, 0.0))
    # 224 and 256 wide on 128 lanes take two compute passes each: the same price
    # without the guard, 224 dearer with it
    assert _compute(224, 128, 0.0) == pytest.approx(_compute(256, 128, 0.0))
    assert _compute(224, 128, 0.25) > _compute(256, 128, 0.25)


def test_the_guard_reaches_the_problems_price_and_leaves_multiples_alone():
    def price(consts, t2):
        cal = with_scheme_constants(BASE, {KEY: consts})
        q = quantities(Scheme.HYBRID, Problem((10240, 10240), 48), [8], [[4], [t2]],
                       [256], H100, cal, "jacobi2d", form=ROWS, lanes=[[2], [128]],
                       registers=np.array([40.0]))
        return float(q.T_alg[0])

    assert price(_consts(0.25), 224) > 1.02 * price(_consts(), 224)
    assert price(_consts(0.25), 256) == pytest.approx(price(_consts(), 256))


def test_the_share_survives_a_calibration_file_and_older_files_load_without_it():
    cal = with_scheme_constants(BASE, {KEY: _consts(0.25)})
    assert TilingCalibration.from_json(cal.to_json()).schemes[KEY].guarded_pass == 0.25
    doc = with_scheme_constants(BASE, {KEY: _consts()}).to_json()
    assert "guarded_pass" not in str(doc)
    assert TilingCalibration.from_json(doc).schemes[KEY].guarded_pass == 0.0
    with pytest.raises(ModelError, match="guarded pass"):
        with_scheme_constants(BASE, {KEY: _consts(-0.1)})


def test_the_2d_fit_finds_the_guard_share_it_was_priced_with():
    """Points priced with known constants are fitted back to them (the fit's
    arithmetic; the constants on a device are measured)."""
    import pandas as pd

    from workbench.models.tiling import TilingModel, compare
    from workbench.models.tiling.problem_fit import lane_rows_constants

    lane = replace(_consts(), lane_rows=0.0, step_global=0.0, step_launch=0.0,
                   partial_rounds=False)
    start = with_scheme_constants(BASE, {
        Form.RESIDENT_LANE_PASSES.constants_key(s): lane for s in
        (Scheme.HEXAGONAL, Scheme.HYBRID)})
    truth = with_scheme_constants(start, {KEY: replace(
        lane, lane_rows=0.2, step_global=2e-12, step_launch=3e-5, partial_rounds=True,
        guarded_pass=0.3, C_iter={k: 0.8 * v for k, v in lane.C_iter.items()})})
    labels = [f"tT={t},tS1={a},tS2={b},bx=128,by={by}" for t in (4, 8) for a in (2, 4)
              for b in (224, 256) for by in (1, 2)]
    frame = pd.DataFrame({"stencil": "jacobi2d", "label": labels * 2,
                          "sizes": ["S1=4096,S2=4096,T=48"] * len(labels)
                          + ["S1=8192,S2=8192,T=48"] * len(labels), "measured_s": 1.0,
                          "registers": 48.0, "scheme": Scheme.HYBRID.value})
    model = TilingModel().ready(device_model="h100", calibration=truth, form=ROWS,
                                scheme="hybrid")
    frame["measured_s"] = compare(model, frame)["predicted_s"]
    found = lane_rows_constants(start, frame, per_launch=True, partial_rounds=True,
                                guarded_pass=True, where="test").schemes[KEY]
    assert found.guarded_pass == pytest.approx(0.3, rel=0.05)
    assert found.lane_rows == pytest.approx(0.2, rel=0.05)
    assert "round 11" in found.provenance["from"]
    with pytest.raises(ModelError, match="no sweep"):
        lane_rows_constants(start, frame, sweep=(3e-5, 2e-12), guarded_pass=True)


def test_shipped_plan_holds_each_problems_whole_baseline_set_fastest_first():
    import json
    from pathlib import Path

    from workbench.kernels.timetiled import hexspaces

    h100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
    plan = json.loads((h100 / "hexagonal-round11-plan.json").read_text())
    assert list(plan) == ["heat2d S1=9216,S2=9216,T=48", "laplacian2d S1=9216,S2=9216,T=48"]
    for key, kinds in plan.items():
        stencil = key.split()[0]
        whole = {p.label for p in hexspaces.hexagonal_space(
            stencil, baseline=1, S1=9216, S2=9216, T=48).points()}
        assert list(kinds) == ["baseline"]
        assert len(kinds["baseline"]) == len(whole) == 204
        assert set(kinds["baseline"]) == whole
    # the call's own plan: the same baseline order, and 4 picks of each constant set
    called = json.loads((h100 / "hexagonal-round11-picks-plan.json").read_text())
    for key, kinds in called.items():
        assert kinds["baseline"] == plan[key]["baseline"]
        assert len(kinds["chosen-round11"]) == len(kinds["chosen-round7"]) == 4


def test_the_call_table_scores_each_set_against_the_calls_best_baseline():
    import pandas as pd

    from benchmarks import tiling_round11 as r11

    sizes = r11.SIZES(9216)
    mine = pd.DataFrame({
        "stencil": "heat2d", "sizes": sizes,
        "label": ["a", "b", "c", "p1", "p2", "q1"],
        "kind": ["baseline"] * 3 + ["chosen-round11"] * 2 + ["chosen-round7"],
        "measured_s": [2.0, 1.0, 3.0, 1.0, 0.9, 1.1]})
    ranks = {("chosen-round11", "heat2d", sizes): ["p1", "p2"]}
    row = r11.call_rows(mine, ranks).iloc[0]
    assert row["baseline_measured"] == 3 and row["best_baseline"] == "b"
    assert row["round11_best_pick"] == "p2"
    assert row["round11_best_faster_pct"] == pytest.approx(10.0)
    assert row["round11_first_faster_pct"] == pytest.approx(0.0)
    assert row["round7_best_faster_pct"] == pytest.approx(-10.0)


def test_narrower_than_the_lanes_is_guarded_and_1d_never_is():
    # 64 wide on 128 lanes: one pass whose upper lanes check the width and idle
    assert _compute(64, 128, 0.25) == pytest.approx(1.25 * _compute(64, 128, 0.0))
    # 1-D: no inner axis, so the share (were a file to give one) changes nothing
    c0, _ = lane_rows_terms(3e-8, np.array([4]), np.array([100]), [np.array([128])], None,
                            np.array([128]), 128, np.array([12]), (4096,), 0.1, 2e-12)
    c1, _ = lane_rows_terms(3e-8, np.array([4]), np.array([100]), [np.array([128])], None,
                            np.array([128]), 128, np.array([12]), (4096,), 0.1, 2e-12,
                            0.0, 0.25)
    assert float(c1[0]) == pytest.approx(float(c0[0]))
