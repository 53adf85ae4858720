"""``workbench report`` with one device's weights on another device's store: the H100
weights predict the H200's finite_diff (a few shipped H200 measurements copied into a
small store), and errors name what a store holds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.measure import MeasurementStore

ROOT = Path(__file__).resolve().parents[1]
H100_WEIGHTS = ROOT / "sample_data" / "h100" / "weights-linear-fp64.json"
H200_STORE = ROOT / "sample_data" / "h200" / "measurements-fp64.sqlite.xz"


@pytest.fixture(scope="module")
def h200_store(tmp_path_factory):
    """The shipped H200 finite_diff measurements at 256-work-item groups, alone."""
    path = tmp_path_factory.mktemp("h200") / "h200-finite-diff.sqlite"
    with MeasurementStore.open(H200_STORE, create=False, readonly=True) as source:
        rows = [m for m in source.measurements(kernel="finite_diff")
                if m.key.group_size == (16, 16)]
    assert rows
    with MeasurementStore.open(path) as store:
        for m in rows:
            store.record(dataclasses.replace(m, campaign=None))
    return path, len(rows)


def test_h100_weights_predict_the_h200_measurements(h200_store, capsys):
    path, count = h200_store
    assert main(["report", "--store", str(path), "--weights", str(H100_WEIGHTS)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("cross-device: weights fitted on NVIDIA H100 80GB HBM3")
    assert "measurements of NVIDIA H200" in first
    assert "finite_diff (float64)" in out and "finite_diff (float32)" in out
    assert main(["report", "--store", str(path), "--weights", str(H100_WEIGHTS),
                 "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["weights_device"] == "NVIDIA H100 80GB HBM3"
    assert document["measured_device"] == "NVIDIA H200"


def test_errors_name_what_the_store_holds(h200_store, capsys):
    path, count = h200_store
    assert main(["report", "--store", str(path), "--weights", str(H100_WEIGHTS),
                 "--device", "V100"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"holds {count} successful measurements of NVIDIA H200 (NVIDIA CUDA)" in err
    assert "no device matching 'V100'" in err
