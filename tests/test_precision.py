"""Both precisions end to end, and predict's model choice: what a user meets first
with a float64 kernel (issue: double precision, unseen kernels)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.cli.measure_cmds import measurement_specs, parse_dtypes
from workbench.errors import UnknownNameError
from workbench.kernels import KernelRole, all_kernels
from workbench.reports import table1

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"

USER_KERNEL = '''
import loopy as lp
import numpy as np
knl = lp.make_kernel("{[i]: 0<=i<n}", "y[i] = 2*x[i] + y[i]",
    [lp.GlobalArg("x,y", np.float64, shape=("n",)), lp.ValueArg("n", np.int32)],
    lang_version=(2018, 2))
knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
'''


def test_dtypes_option_validates_and_keeps_order():
    assert parse_dtypes("float32, float64,float32") == ("float32", "float64")
    with pytest.raises(UnknownNameError, match="float16"):
        parse_dtypes("float16")


def test_measurement_sets_in_both_precisions():
    generated = measurement_specs("2019", (), ("float32", "float64"))
    names = {s.name for s in generated}
    assert any(n.endswith("_float64") for n in names)
    assert any(n.endswith("_float32") for n in names)
    unseen = measurement_specs("unseen", (), ("float32",))
    wider = measurement_specs("unseen2", (), ("float32",))
    held_out = (*measurement_specs("heldout3", (), ("float32",)),
                *measurement_specs("heldout4", (), ("float32",)),
                *measurement_specs("heldout5", (), ("float32",)),
                *measurement_specs("heldout6", (), ("float32",)),
                *measurement_specs("heldout7", (), ("float32",)),
                *measurement_specs("heldout8", (), ("float32",)),
                *measurement_specs("heldout9", (), ("float32",)),
                *measurement_specs("heldout10", (), ("float32",)),
                *measurement_specs("heldout11", (), ("float32",)),
                *measurement_specs("heldout12", (), ("float32",)),
                *measurement_specs("heldout13", (), ("float32",)),
                *measurement_specs("heldout14", (), ("float32",)),
                *measurement_specs("heldout15", (), ("float32",)),
                *measurement_specs("heldout16", (), ("float32",)),
                *measurement_specs("heldout17", (), ("float32",)),
                *measurement_specs("heldout18", (), ("float32",)),
                *measurement_specs("heldout19", (), ("float32",)),
                *measurement_specs("heldout20", (), ("float32",)),
                *measurement_specs("heldout21", (), ("float32",)),
                *measurement_specs("heldout22", (), ("float32",)))
    assert {s.name for s in (*unseen, *wider, *held_out)} == \
        {s.name for s in all_kernels(KernelRole.UNSEEN)}
    assert len({s.name for s in (*unseen, *wider, *held_out)}) == \
        len(unseen) + len(wider) + len(held_out)
    assert not {s.name for s in (*unseen, *wider, *held_out)} & \
        {s.name for s in all_kernels()}


def test_a_user_kernel_is_taken_in_its_own_precision(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(USER_KERNEL)
    assert main(["properties", f"{path}:knl", "--param", "n=1024"]) == 0
    out = capsys.readouterr().out
    assert "dtype=float64" in out.splitlines()[0]
    assert "f_op_float64_mul" in out and "float32" not in out


class _ScaledTimes:
    """A stand-in model predicting a fixed multiple of each row's measured time."""

    def __init__(self, factors):
        self.factors = factors

    def predict(self, data):
        return data["time_s"].to_numpy() * data["dtype"].map(self.factors).to_numpy()


def test_table1_keeps_the_precisions_apart():
    rows = [{"kernel": k, "variant": "default", "dtype": dt, "group_size": "16x16",
             "params": f"n={n}", "role": role, "time_s": 1e-3 * n}
            for k, role in (("finite_diff", "test"), ("star7_3d", "unseen"))
            for dt in ("float32", "float64") for n in (1, 2)]
    data = pd.DataFrame(rows)
    model = _ScaledTimes({"float32": 1.1, "float64": 0.5})
    t1 = table1(model, data)
    assert set(t1.per_kernel.index) == {"finite_diff (float32)", "finite_diff (float64)"}
    assert t1.per_dtype["float32"] == pytest.approx(0.1)
    assert t1.per_dtype["float64"] == pytest.approx(0.5)
    assert "Geometric mean, float64" in set(t1.layout()["kernel / case"])
    unseen = table1(model, data, role="unseen")
    assert set(unseen.cases["kernel"]) == {"star7_3d (float32)", "star7_3d (float64)"}
    one = table1(model, data[data["dtype"] == "float32"])
    assert list(one.per_kernel.index) == ["finite_diff"]   # one precision: plain names


def test_predict_measures_the_twin_when_given_a_device(tmp_path, capsys):
    """The in-situ model needs the kernel's work-removed twin: with --device, predict
    measures it there (pocl here, with the H100 weights relabelled to this device)."""
    from workbench.measure import find_device

    document = json.loads((H100 / "weights-insitu.json").read_text())
    document["device"]["device"] = find_device(None).name
    weights = tmp_path / "insitu.json"
    weights.write_text(json.dumps(document))
    args = ["predict", "finite_diff", "--param", "n=64", "--group-size", "16x16",
            "--weights", str(weights), "--format", "json"]
    assert main(args) == 2
    assert "--device" in capsys.readouterr().err
    assert main(args + ["--device", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    twin = out["measured"]["f_wr_wall_time"]
    assert twin > 0 and np.isfinite(out["predicted_s"])
    assert out["predicted_s"] >= 0.5 * twin   # the smooth max keeps the twin's time
