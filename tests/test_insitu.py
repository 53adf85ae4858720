"""In-situ features: work-removed twins' times, local bank passes, compute-unit balance,
and the shipped in-situ model's variant selection on the H100 data."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.errors import ModelError, WorkbenchWarning
from workbench.kernels.families import default_families
from workbench.measure.store import MeasurementStore
from workbench.models.expressions import (
    dataset_feature_values,
    kernel_feature_values,
    parse_feature_ref,
)
from workbench.models.expressions.insitu import (
    CU_BALANCE,
    TWIN_TIME,
    attach_twin_times,
    compute_units,
    cu_balance,
    twin_times,
)
from workbench.models.registry import get_family, load_model
from workbench.tuning.selection import measured_times, select
from workbench.properties import kernel_properties
from workbench.properties.banks import conflict_degree

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
H100_NAME = "NVIDIA H100 80GB HBM3"


def _measurements(*names):
    out = []
    for name in names:
        with MeasurementStore.open(H100 / name, create=False, readonly=True) as store:
            out += store.measurements()
    return out


# {{{ bank conflicts

@pytest.mark.parametrize("strides, group, size, expected", [
    ({0: 1}, (32,), 4, 1),            # a row: one word per bank
    ({}, (32,), 4, 1),                # one address: broadcast
    ({0: 32}, (32, 8), 4, 32),        # transposed read of a 32-wide float tile
    ({0: 16, 1: 1}, (16, 16), 4, 8),  # 16-wide tile, two rows per warp
    ({0: 16, 1: 1}, (32, 16), 4, 16),
    ({0: 3, 1: 66}, (16, 16), 4, 2),  # convolution's 3-channel halo tile, 16 wide
    ({0: 3, 1: 114}, (32, 8), 4, 1),  # ... 32 wide: stride 3 is odd, no conflict
    ({0: 1}, (32,), 8, 2),            # doubles: 256 bytes need two passes
    ({0: 2}, (32,), 4, 2),
])
def test_conflict_degree(strides, group, size, expected):
    assert conflict_degree(strides, group, size) == expected


def test_conflict_degree_of_a_symbolic_stride_is_unknown():
    import pymbolic.primitives as p
    assert conflict_degree({0: p.Variable("n")}, (32,), 4) is None


def test_bankpasses_weights_local_accesses_by_their_conflict_degree():
    names = ["f_mem_access_local_float32_load", "f_mem_access_local_float32_load_bankpasses",
             "f_mem_access_global_float32_load_bankpasses"]
    for group, degree in (((32, 16), 16), ((16, 16), 8)):
        _, v = kernel_feature_values("transpose", names, {"n": 1024}, variant="prefetch",
                                     group_size=group, subgroup_size=32)
        assert v[names[0]] > 0
        assert v[names[1]] == pytest.approx(degree * v[names[0]])
        assert v[names[2]] == 0     # bank passes select local accesses only
    ref = parse_feature_ref("f_mem_access_local_float32_store_bankpasses")
    assert ref.bank_passes and ref.mtype == "local"
    with pytest.raises(ModelError):
        parse_feature_ref("f_mem_access_local_bankpasses_float32")   # parts out of order

# }}}


# {{{ compute-unit balance

def test_cu_balance_is_the_busiest_units_share():
    units = 132
    groups = np.array([64, 128, 132, 171, 256, 1024])
    expected = units * np.ceil(groups / units) / groups
    assert cu_balance(groups, units) == pytest.approx(expected)
    assert cu_balance(np.array([132 * 7]), units)[0] == 1.0
    assert cu_balance(np.array([171]), units)[0] == pytest.approx(264 / 171)


def test_compute_units_come_from_the_shipped_description():
    assert compute_units(H100_NAME) == 132
    with pytest.raises(ModelError, match="compute-unit count"):
        compute_units("a device nobody has")


def test_cu_balance_feature_on_a_dataset():
    frame = pd.DataFrame({"kernel": ["nbody"] * 2, "variant": ["default"] * 2,
                          "dtype": ["float32"] * 2, "group_size": ["1024", "512"],
                          "params": ["n=65536"] * 2, "device": [H100_NAME] * 2})
    values = dataset_feature_values(frame, [CU_BALANCE], granularity="subgroup",
                                    subgroup_size=32)[CU_BALANCE]
    assert values == pytest.approx([132 / 64, 132 / 128])   # 64 and 128 groups
    with pytest.raises(ModelError, match="device"):
        dataset_feature_values(frame.drop(columns="device"), [CU_BALANCE],
                               granularity="subgroup", subgroup_size=32)

# }}}


# {{{ work-removed twins

def test_twin_times_key_twins_like_their_originals():
    family_ms = _measurements("families.sqlite", "families-work-removed.sqlite")
    twins = twin_times(family_ms)
    assert len(twins) == 37                    # one twin per family candidate
    originals = [m for m in family_ms if not m.key.kernel.endswith("_wr")]
    frame = pd.DataFrame({
        "kernel": [m.key.kernel for m in originals],
        "variant": [m.key.variant for m in originals],
        "dtype": [m.key.dtype for m in originals],
        "group_size": ["x".join(map(str, m.key.group_size)) for m in originals],
        "params": [",".join(f"{a}={b}" for a, b in m.key.params) for m in originals],
        "device": [m.device.device for m in originals]})
    with_twins = attach_twin_times(frame, twins)
    assert with_twins[TWIN_TIME].notna().all()
    by_key = {(m.key.kernel[:-3], m.key.variant, m.key.group_size, m.key.params): m.time_s
              for m in family_ms if m.key.kernel.endswith("_wr")}
    for m, t in zip(originals, with_twins[TWIN_TIME]):
        assert t == by_key[m.key.kernel, m.key.variant, m.key.group_size, m.key.params]
    # another device's rows find no twin
    other = attach_twin_times(frame.assign(device="some other device"), twins)
    assert other[TWIN_TIME].isna().all()


def test_twin_time_without_twins_is_a_clear_error():
    frame = pd.DataFrame({"kernel": ["finite_diff"], "variant": ["default"],
                          "dtype": ["float32"], "group_size": ["16x16"],
                          "params": ["n=1024"], "device": [H100_NAME]})
    with pytest.raises(ModelError, match="work-removed twin"):
        dataset_feature_values(frame, [TWIN_TIME], granularity="subgroup",
                               subgroup_size=32)


def test_fit_leaves_out_rows_without_a_twin():
    from workbench.models.dataset import build_dataset
    ms = [m for m in _measurements("measurements.sqlite", "twins.sqlite")
          if m.key.kernel.startswith("global_access")]
    data = attach_twin_times(build_dataset(ms, granularity="subgroup", subgroup_size=32),
                             twin_times(ms))
    known = int(data.loc[data["role"] == "measurement", TWIN_TIME].notna().sum())
    assert 0 < known < int((data["role"] == "measurement").sum())
    family = get_family("expression")
    with pytest.warns(WorkbenchWarning, match="no value for f_wr_wall_time"):
        model = family.fit(data, model="p_launch*f_sync_kernel_launch + p_wr*f_wr_wall_time")
    assert model.fit_stats["n_measurements"] == known
    # a global-memory kernel's time is its twin's: the weight is close to one
    assert model.parameters["p_wr"] == pytest.approx(1.0, abs=0.1)

# }}}


# {{{ the shipped in-situ model

def test_shipped_insitu_model_picks_within_5_percent_in_every_family():
    model = load_model(H100 / "weights-insitu.json")
    assert TWIN_TIME in model.features and CU_BALANCE in model.features
    family_ms = _measurements("families.sqlite", "families-work-removed.sqlite")
    twins = twin_times(family_ms)
    fractions = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        for fam in default_families(None):
            fractions[fam.name] = select(model, fam, measured_times(family_ms, fam),
                                         twins=twins).fraction_of_best
    assert set(fractions) == {f.name for f in default_families(None)}
    assert min(fractions.values()) >= 0.95, fractions
    shipped = json.loads((H100 / "selection-insitu.json").read_text())
    assert {s["family"]: s["fraction_of_best"] for s in shipped} == pytest.approx(fractions)


def test_select_cli_needs_the_twins_for_an_insitu_model(capsys):
    rc = main(["select", "--store", str(H100 / "families.sqlite"),
               "--weights", str(H100 / "weights-insitu.json")])
    assert rc != 0
    assert "work-removed twins" in capsys.readouterr().err

# }}}


# {{{ measuring twins (pocl)

def test_calibrate_twins_of_a_store_measures_the_same_configurations(queue, tmp_path):
    store = str(tmp_path / "q.sqlite")
    assert main(["calibrate", "--quick", "--kernels", "finite_diff", "--store", store,
                 "--no-progress"]) == 0
    twins_store = str(tmp_path / "twins.sqlite")
    assert main(["calibrate", "--twins-of", store, "--store", twins_store,
                 "--runs", "3"]) == 0
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        originals = {(m.key.variant, m.key.group_size, m.key.params)
                     for m in s.measurements() if m.key.kernel == "finite_diff"}
    with MeasurementStore.open(twins_store, create=False, readonly=True) as s:
        twins = [m for m in s.measurements()]
    assert originals and {m.key.kernel for m in twins} == {"finite_diff_wr"}
    assert {(m.key.variant, m.key.group_size, m.key.params) for m in twins} == originals


def test_calibrate_twins_of_refuses_other_selections(tmp_path, capsys):
    rc = main(["calibrate", "--twins-of", str(H100 / "families.sqlite"), "--families",
               "--store", str(tmp_path / "x.sqlite")])
    assert rc != 0
    assert "--twins-of" in capsys.readouterr().err

# }}}


def test_kernel_properties_of_transpose_have_local_strides():
    # the bank-pass feature rests on loopy reporting local strides per work-item axis
    props = kernel_properties("transpose", variant="prefetch", group_size=(32, 16))
    local_loads = [r for r in props.accesses if r.mtype == "local"
                   and r.direction.value == "load"]
    assert local_loads and dict(local_loads[0].lid_strides) == {0: 16, 1: 1}
