"""Occupancy on a described device: residency limits (hand-computed H100 cases), waves
and the tail, and the occupancy features of the expression language (estimated
registers, and registers from a build-info file)."""

import numpy as np
import pytest

from workbench.hardware import load_device_model
from workbench.hardware.build_info import BuildInfoFile, BuildKey, BuildRecord, KernelBuildInfo
from workbench.hardware.occupancy import OccupancyLimits, occupancy

H100 = OccupancyLimits.of(load_device_model("h100"))
DEVICE = "NVIDIA H100 80GB HBM3"


def test_the_h100_figures_carry_sources():
    doc = load_device_model("h100").occupancy
    assert all(fig["source"] in ("spec", "queried") and fig["note"] for fig in doc.values())
    assert (H100.compute_units, H100.registers_per_sm, H100.max_threads_per_sm) == \
        (132, 65536, 2048)
    assert OccupancyLimits.of(load_device_model("v100")) is None   # no figures: no limits


def test_residency_limits_by_hand():
    # 256 threads, 32 registers: 8 groups by threads (2048 / 256), registers allow 8 too
    occ = occupancy(H100, [256, 256, 256, 32, 1024], [132 * 8, 132 * 8 + 1, 10, 10_000, 1],
                    registers_per_thread=[32, 64, np.nan, np.nan, 255],
                    shared_bytes_per_group=[0, 0, 100_000, np.nan, 0])
    # 64 registers: 2048 per warp, 8 warps -> 16384 per group -> 4 groups
    # 100 kB of shared memory (+1 kB reserved): 2 groups; one warp a group: 32 groups by group slots,
    # half the warp slots
    # 255 registers -> 8192 per warp x 32 warps > 65536: the group does not fit
    assert list(occ.groups_per_sm) == [8, 4, 2, 32, 0]
    assert occ.limiter == ("threads", "registers", "shared memory", "groups", "registers")
    assert list(occ.occupancy) == [1.0, 0.5, 0.25, 0.5, 0.0]
    assert occ.waves[0] == 1 and occ.tail_fraction[0] == 1.0 and occ.wave_balance[0] == 1
    # one group more than a full wave: a second wave with one group in it
    assert occ.waves[1] == 3 and occ.tail_fraction[1] == pytest.approx(
        (132 * 8 + 1 - 2 * 132 * 4) / (132 * 4))
    assert occ.waves[2] == 1 and occ.resident_warps[2] == 10 * 8
    assert occ.waves[3] == np.ceil(10_000 / (132 * 32))
    assert np.isinf(occ.waves[4])


def _candidate(kernel, variant, group, params, dtype):
    from workbench.kernels.candidate import Candidate

    return Candidate(kernel, variant, group, tuple(sorted(params.items())), dtype)


def test_features_of_a_small_grid_and_from_a_build_info_file(tmp_path):
    from workbench.models.occupancy_features import (
        occupancy_values,
        resources,
        use_build_info,
    )

    small = _candidate("column_cumsum", "sequential", (128,), {"m": 64, "n": 1024},
                       "float32")
    use_build_info(None)
    try:
        assert resources(small, DEVICE).source == "estimated"
        values = occupancy_values([small], DEVICE)
        # 8 groups of 4 warps: one wave; each warp moves m x (load + store) x 32 x 4 B
        assert values["f_waves"][0] == 1
        assert values["f_warp_chain_bytes"][0] == 64 * 2 * 32 * 4
        assert values["f_tail_fraction"][0] == pytest.approx(8 / (132 * 16))
        key = BuildKey("column_cumsum", "sequential", "float32", (128,))
        info = BuildInfoFile({"device": DEVICE}, ("-cl-nv-verbose",), {key: BuildRecord(
            "built", KernelBuildInfo("column_cumsum", 128, shared_bytes=0))})
        use_build_info([info.save(tmp_path / "bi.json")])
        assert resources(small, DEVICE).source == "compiler"
        # 128 registers x 32 = 4096 per warp, 4 warps a group: 4 groups per SM
        assert occupancy_values([small], DEVICE)["f_groups_per_sm"][0] == 4
    finally:
        use_build_info(None)


def test_the_features_in_a_model_expression():
    import pandas as pd

    from workbench.models.expressions.feature_values import dataset_feature_values
    from workbench.models.expressions.features import DeviceFeature, parse_feature_ref

    assert isinstance(parse_feature_ref("f_waves"), DeviceFeature)
    rows = pd.DataFrame({"kernel": ["column_cumsum"], "variant": ["sequential"],
                         "dtype": ["float64"], "group_size": ["256"],
                         "params": ["m=64,n=1024"], "device": [DEVICE]})
    values = dataset_feature_values(rows, ["f_waves", "f_occupancy"],
                                    granularity="subgroup", subgroup_size=32)
    assert values["f_waves"][0] == 1 and 0 < values["f_occupancy"][0] <= 1
