"""Variant selection: ranking by prediction, and the pick's measured fraction of best."""

import numpy as np
import pytest

from workbench.cli.main import main
from workbench.kernels.families import default_families, finite_diff_family
from workbench.tuning.selection import measured_times, rank_candidates, select


class ByGroups:
    """A stand-in model: predicted time proportional to the work-group count."""

    granularity = "workitem"
    subgroup_size = None
    device = {}

    def predict_candidates(self, candidates, **context):
        from workbench.models.candidate_features import candidate_feature_values
        from workbench.models.expressions.features import parse_feature_ref

        values, _ = candidate_feature_values(candidates,
                                             [parse_feature_ref("f_thread_groups")])
        return values["f_thread_groups"] * 1e-6


def test_pick_is_the_fastest_predicted_and_fraction_is_best_over_pick():
    fam = finite_diff_family(1024)
    model = ByGroups()
    ranking = rank_candidates(model, fam)
    # fewest groups first: 32x16 and 64x4 (512 items) before 8x8 (64 items)
    assert ranking.iloc[-1]["candidate"].endswith("@8x8")
    assert list(ranking["predicted_s"]) == sorted(ranking["predicted_s"])
    measured = {c: 1.0 for c in fam.candidates}
    best = next(c for c in fam.candidates if c.group_size == (16, 16))
    measured[best] = 0.5
    result = select(model, fam, measured)
    assert result.best == best.label
    assert result.pick == ranking.iloc[0]["candidate"]
    assert result.fraction_of_best == pytest.approx(0.5)
    measured[next(c for c in fam.candidates if c.label == result.pick)] = 0.5
    assert select(model, fam, measured).fraction_of_best == pytest.approx(1.0)


def test_families_cover_the_issue():
    names = {f.name.split("-")[0] for f in default_families()}
    assert {"matmul", "finite_diff", "transpose"} <= names
    matmul = next(f for f in default_families() if f.name.startswith("matmul"))
    assert {c.kernel for c in matmul.candidates} == {"matmul_tiled", "matmul_naive"}


def test_families_measured_on_pocl_and_selected(tmp_path, capsys):
    from workbench.errors import DeviceError
    from workbench.measure import MeasurementStore, list_devices
    try:
        if not any("Portable" in d.platform for d in list_devices()):
            pytest.skip("no pocl device")
    except DeviceError:
        pytest.skip("no OpenCL")
    store = tmp_path / "f.sqlite"
    assert main(["calibrate", "--families", "--quick", "--family-size", "finite_diff=128",
                 "--store", str(store)]) == 0
    with MeasurementStore.open(store, create=False, readonly=True) as s:
        ms = s.measurements()
    fam = finite_diff_family(128)
    measured = measured_times(ms, fam)
    assert len(measured) == len(fam.candidates)
    assert all(np.isfinite(t) and t > 0 for t in measured.values())
    result = select(ByGroups(), fam, measured)
    assert 0 < result.fraction_of_best <= 1
