"""Round 16 of #34: chains of dependent global loads (workbench.models.dependent_loads) and
the trig-calls floor (workbench.models.floors)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import loopy as lp
import numpy as np
import pytest

from workbench.kernels.candidate import Candidate
from workbench.kernels.user import spec_from_loopy
from workbench.models.dependent_loads import dependent_load_values, dependent_loads
from workbench.models.expressions.features import DeviceFeature, parse_feature_ref

N = 1 << 16
WARPS = N // 32


def _chains():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "round16_chain_kernels.py"
    spec = importlib.util.spec_from_file_location("round16_chain_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _candidate(knl, dtype="float32"):
    return Candidate.of(spec_from_loopy(knl), {"n": N}, dtype=dtype, group_size=(256,))


@pytest.mark.parametrize("steps", [0, 1, 2, 6])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_lookup_chain_counts_its_steps_beyond_one_gather(steps, dtype):
    # steps dependent lookups and a last load at the found position: steps + 1 loads on
    # the chain; the root and one gather are not counted
    knl = _chains().lookup_chain(64, steps, dtype)
    found, value = dependent_loads(_candidate(knl, dtype))
    assert value == max(0, steps - 1) * WARPS
    assert found == dtype or not value


def test_a_gather_and_a_stream_count_nothing():
    gather = lp.split_iname(lp.make_kernel(
        "{[i]: 0 <= i < n}", "out[i] = x[idx[i]] + x[i]",
        [lp.GlobalArg("x", np.float32, shape=("n",)),
         lp.GlobalArg("idx", np.int32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        name="gather", lang_version=(2018, 2), assumptions="n >= 1"),
        "i", 256, outer_tag="g.0", inner_tag="l.0")
    values = dependent_load_values([_candidate(gather)], "any")
    assert set(values) == {"f_dependent_loads_float32", "f_dependent_loads_float64"}
    assert all(v[0] == 0 for v in values.values())


def test_a_chain_through_private_values_is_followed():
    # j = idx[idx[idx[i]]] through temporaries: four loads on one chain, two counted
    knl = lp.split_iname(lp.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        <> a = idx[i]
        <> b = idx[a] + 1
        <> c = idx[b - 1]
        out[i] = x[c]
        """,
        [lp.GlobalArg("x", np.float64, shape=("n",)),
         lp.GlobalArg("idx", np.int32, shape=("n",)),
         lp.GlobalArg("out", np.float64, shape=("n",)), lp.ValueArg("n", np.int32)],
        name="chain3", lang_version=(2018, 2), assumptions="n >= 1"),
        "i", 256, outer_tag="g.0", inner_tag="l.0")
    assert dependent_loads(_candidate(knl, "float64")) == ("float64", 2 * WARPS)


def test_the_features_are_device_features():
    for name in ("f_dependent_loads_float32", "f_dependent_loads_float64"):
        assert isinstance(parse_feature_ref(name), DeviceFeature)


def _trig(expression, dtype=np.float32):
    knl = lp.split_iname(lp.make_kernel(
        "{[i]: 0 <= i < n}", f"y[i] = {expression}",
        [lp.GlobalArg("x", dtype, shape=("n",)), lp.GlobalArg("y", dtype, shape=("n",)),
         lp.ValueArg("n", np.int32)],
        name="trig", lang_version=(2018, 2), assumptions="n >= 1"),
        "i", 256, outer_tag="g.0", inner_tag="l.0")
    return Candidate.of(spec_from_loopy(knl), {"n": 1 << 22}, dtype=np.dtype(dtype).name,
                        group_size=(256,))


def test_trig_calls_floor_a_launch_at_the_measured_round():
    # round 16: sin, cos and tan at the cheapest measured trig round a sub-group, a sine
    # and a cosine of one kernel less the measured saving; atan2 at its own round
    import dataclasses
    import json

    from workbench.models.floors import Bound, candidate_floors, floors_of_device

    # the candidate's prices (not in the shipped description: the round did not land)
    doc = json.loads((Path(__file__).resolve().parents[1] / "sample_data" / "h100"
                      / "trig-floor-round16.json").read_text())["trig_call_ps"]
    shipped = floors_of_device("NVIDIA H100 80GB HBM3")
    assert shipped.trig_call_s == ()
    floors = dataclasses.replace(shipped, trig_call_s=tuple(
        ((dtype, kind), v["value"] * 1e-12) for dtype, kinds in doc.items()
        for kind, v in kinds.items()))
    prices = dict(floors.trig_call_s)
    warps = (1 << 22) // 32
    found = candidate_floors([_trig("sin(x[i]) * cos(x[i]) * sin(2 * x[i])"),
                              _trig("atan2(x[i], 1.5)", np.float64),
                              _trig("x[i] * x[i]")], floors)
    parts = [dict(f.parts) for f in found]
    assert parts[0][Bound.TRIG] == pytest.approx(
        warps * (3 * prices["float32", "trig"] + prices["float32", "sin_cos_mix"]))
    assert found[0].bound is Bound.TRIG
    assert parts[1][Bound.TRIG] == pytest.approx(warps * prices["float64", "atan2"])
    assert parts[2][Bound.TRIG] == 0.0
