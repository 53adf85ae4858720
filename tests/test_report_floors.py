"""``workbench report`` predicts what ``workbench predict`` predicts: a model time below
the device's physical floor is lifted to it (``--no-floors`` keeps the model's own)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.kernels.candidate import Candidate
from workbench.measure import MeasurementStore
from workbench.models import load_model
from workbench.models.prediction import predict

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
WEIGHTS = H100 / "weights-linear-fp64-sectors-chains2.json"


@pytest.fixture(scope="module")
def column_sums(tmp_path_factory):
    """The shipped H100 row_sum_squares (float32) measurements, alone: its column-major
    variant is a launch of few work items whose model time lies below the serial floor."""
    path = tmp_path_factory.mktemp("floors") / "row-sum-squares.sqlite"
    with MeasurementStore.open(H100 / "unseen.sqlite.xz", create=False,
                               readonly=True) as source:
        rows = [m for m in source.measurements(kernel="row_sum_squares")
                if m.key.dtype == "float32" and m.time_s is not None]
    assert rows
    with MeasurementStore.open(path) as store:
        for m in rows:
            store.record(dataclasses.replace(m, campaign=None))
    return path


def _report(path, capsys, *extra):
    capsys.readouterr()
    assert main(["report", "--store", str(path), "--weights", str(WEIGHTS), "--all-groups",
                 "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_report_lifts_what_predict_lifts(column_sums, capsys):
    floored = _report(column_sums, capsys)
    raw = _report(column_sums, capsys, "--no-floors")
    assert floored["floors"] is True and raw["floors"] is False
    cases, own = floored["unseen"]["cases"], raw["unseen"]["cases"]
    assert len(cases) == len(own) > 0
    assert floored["unseen"]["lifted_to_floor"] > 0 == raw["unseen"]["lifted_to_floor"]
    lifted = [c for c in cases if c["predicted_ms"] > c["model_ms"]]
    assert len(lifted) == floored["unseen"]["lifted_to_floor"]
    assert all(c["predicted_ms"] >= c["model_ms"] for c in cases)
    assert all(c["predicted_ms"] == c["model_ms"] for c in own)
    assert floored["unseen"]["cross_kernel_geomean_rel_error"] != \
        raw["unseen"]["cross_kernel_geomean_rel_error"]
    # the lifted times are predict's, to the last bit of a millisecond's print
    model = load_model(WEIGHTS)
    for case in lifted[:2]:
        params = tuple(sorted((k, int(v)) for k, v in
                              (kv.split("=") for kv in case["params"].split(","))))
        group = tuple(int(s) for s in case["group_size"].split("x"))
        candidate = Candidate("row_sum_squares", case["variant"], group, params, "float32")
        result = predict(model, [candidate])
        assert result.broken[0] is not None
        assert case["predicted_ms"] == pytest.approx(result.seconds[0] * 1e3, rel=1e-9)
        assert case["model_ms"] == pytest.approx(result.raw_seconds[0] * 1e3, rel=1e-9)


def test_a_row_without_a_floor_keeps_the_model_time_even_when_negative():
    # a plain least-squares fit can predict below zero; with no floor known (a model
    # of no shipped device) the table shows that, as predict does
    import numpy as np
    import pandas as pd

    from workbench.reports.tables import predictions

    class Unfloored:
        device = {"device": "some CPU"}

        def predict(self, data):
            return np.array([-1e-3, 2e-3])

    data = pd.DataFrame({"kernel": ["k", "k"], "variant": ["v", "v"],
                         "dtype": ["float32"] * 2, "group_size": ["256"] * 2,
                         "params": ["n=1", "n=2"], "role": ["test"] * 2,
                         "time_s": [1e-3, 2e-3], "device": ["some CPU"] * 2})
    got = predictions(Unfloored(), data)
    assert list(got["predicted_s"]) == [-1e-3, 2e-3] == list(got["model_s"])


def test_a_store_of_unseen_kernels_alone_says_so_instead_of_an_empty_table(column_sums,
                                                                            capsys):
    capsys.readouterr()
    assert main(["report", "--store", str(column_sums), "--weights", str(WEIGHTS)]) == 0
    out = capsys.readouterr().out
    first, unseen = out.split("Table 1, unseen kernels")
    assert "(no test kernels in these stores: the unseen ones follow)" in first
    assert "Cross-kernel geometric mean" not in first
    assert "row_sum_squares" in unseen and "Cross-kernel geometric mean" in unseen
