"""Table 2 across devices (``workbench table2``), on real data: the shipped H100
catalog beside a small quick calibration of this machine's pocl CPU device."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
KERNELS = "empty,arith,finite_diff"


@pytest.fixture(scope="module")
def pocl_store(queue, tmp_path_factory):   # ``queue`` skips without pocl
    store = tmp_path_factory.mktemp("pocl") / "pocl.sqlite"
    assert main(["calibrate", "--quick", "--runs", "3", "--kernels", "arith,finite_diff",
                 "--store", str(store), "--no-progress"]) == 0
    return store


def table2(capsys, store_b, what):
    assert main(["table2", "--store-a", str(H100 / "measurements.sqlite"), "--label-a",
                 "H100", "--store-b", str(store_b), "--label-b", "pocl", "--model",
                 "linear", "--kernels", KERNELS, "--bootstrap", "5", "--what", what,
                 "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_each_devices_weights_predict_the_other(pocl_store, capsys):
    errors = table2(capsys, pocl_store, "errors")
    pairs = set(zip(errors["data"], errors["weights"]))
    assert pairs == {("H100", "H100"), ("H100", "pocl"), ("pocl", "H100"), ("pocl", "pocl")}
    same = errors[errors["data"] == errors["weights"]]
    assert (same["ratio"] == 1).all() and (same["rel_error"] > 0).all()
    # a CPU's prices are far above a GPU's: they predict the H100's finite_diff times
    # many times too long, far worse than the H100's own weights do
    cross = errors[(errors["data"] == "H100") & (errors["weights"] == "pocl")
                   & (errors["dtype"] == "float32")]
    assert len(cross) == 1 and cross["ratio"].iloc[0] > 10


def test_weights_side_by_side_with_units(pocl_store, capsys):
    weights = table2(capsys, pocl_store, "weights").set_index("property")
    add = weights.loc["f_op_float32_add"]
    assert add["unit"] == "s per operation" and add["H100"] > 0 and add["pocl"] > 0
    assert add["pocl / H100"] == pytest.approx(add["pocl"] / add["H100"])
    assert add["pocl / H100"] > 100    # a CPU core adds far slower than an H100
    assert weights.loc["f_sync_kernel_launch", "unit"] == "s per launch"


def test_one_device_is_refused_in_one_line(capsys):
    store = str(H100 / "measurements.sqlite")
    assert main(["table2", "--store-a", store, "--store-b", store, "--model", "linear",
                 "--kernels", KERNELS]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "different labels" in err
