"""A count that changes class at one value of the lane knob inside its range is exact
(issue #33, blind10's bitonic_step: an index ``256 (p // 128) + p % 128`` is the lane
itself where a group has 128 lanes, a unit stride, and a fraction of lines at every
other group size; a fit through the other values carried the fraction to 128).  Every
value of a lane knob that no probe had is counted once the fit is accepted, and the
points of one that differs are split off.  Numbers only, no kernels."""

from __future__ import annotations


import pytest

from workbench.models.structure_counts import CountMethod
from workbench.tuning import TuningSpace

from tests.test_structure_joint_exact import (
    assert_exact_fit,
    fit_every_structure,
    fit_from_truth,
)

N = 2.0 ** 24
GS = (32, 64, 128, 256, 512, 1024)


def _points():
    return TuningSpace(
        name="bitonic", description="numbers only",
        tune_params={"gs": GS, "ppi": (1, 2, 4, 8)},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None).points()


def _truth(singular):
    def truth(p):
        unit = p["gs"] == singular
        return {"loads_stride1": 2 * N if unit else 0.0,
                "loads_frac4ofgt4": 0.0 if unit else 2 * N,
                "groups": N / (p["gs"] * p["ppi"])}
    return truth


@pytest.mark.parametrize("singular", GS)
def test_a_stride_class_singular_at_one_lane_value_is_exact(singular):
    points = _points()
    fit, counted = fit_from_truth(points, _truth(singular), lanes=("gs",))
    assert_exact_fit(fit, _truth(singular))
    # the singular value's points are a part of their own wherever they were not fitted
    # through; the rest keep one fit: fewer builds than the structure's points
    assert len(counted) < len(points)
    report = fit.report()
    assert sum(r[1] for r in report) == len(points)
    assert sum(r[2] for r in report) == len(counted)


def test_the_report_names_the_values_split_off_and_kept():
    points = _points()
    fit, _ = fit_from_truth(points, _truth(128), lanes=("gs",))
    structures = {dict(r[0]).get("gs"): r[3] for r in fit.report()}
    assert structures == {128: CountMethod.SYMBOLIC, "32|64|256|512|1024": CountMethod.SYMBOLIC}
    from workbench.models.structure_counts import StructureCount
    for structure, n, _, method, _ in fit.report():
        owner = StructureCount("bitonic", structure, n, 0, method)
        assert sum(owner.covers(p) for p in points) == n


def test_a_fit_that_holds_at_every_lane_value_is_kept_whole():
    points = _points()
    truth = _truth(None)
    fit, counted = fit_from_truth(points, truth, lanes=("gs",))
    assert_exact_fit(fit, truth)
    assert not fit.parts and fit.method is CountMethod.SYMBOLIC
    # every value of the lane knob and of its product with ppi counted somewhere, at
    # fewer points than the structure has
    assert {p["gs"] for p in counted} == set(GS)
    assert {p["gs"] * p["ppi"] for p in counted} == {p["gs"] * p["ppi"] for p in points}
    assert len(counted) < len(points)
    without, _ = fit_from_truth(points, truth)
    assert not without.parts


def test_a_class_singular_where_a_group_covers_one_block_is_exact():
    # blocked order's fraction of a line where gs*ppi = 128 = J (the group's block is
    # the compared distance): (32, 4) and (64, 2), a diagonal no lane value shows
    def truth(p):
        one = p["gs"] * p["ppi"] == 128
        return {"loads_frac4of4": 2 * N if one else 0.0,
                "loads_frac4ofgt4": 0.0 if one else 2 * N,
                "groups": N / (p["gs"] * p["ppi"])}

    points = _points()
    fit, counted = fit_from_truth(points, truth, lanes=("gs",))
    assert_exact_fit(fit, truth)
    assert len(counted) < len(points)


def test_a_knob_that_sets_no_lanes_is_not_checked_value_by_value():
    points = _points()
    fit, counted = fit_from_truth(points, _truth(None))
    assert {p["gs"] for p in counted} != set(GS)


def test_a_structure_that_shares_counts_but_at_one_lane_value_is_exact():
    # bitonic_step's blocked order: its counts equal cyclic order's at every point but
    # gs = 128, where cyclic order's index is the lane (a unit stride) and blocked's not;
    # a share checked at its base and ends only took cyclic's unit stride there
    space = TuningSpace(
        name="bitonic2", description="numbers only",
        tune_params={"gs": GS, "ppi": (1, 2, 4, 8), "order": ("cyclic", "blocked")},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None)

    def truth(p):
        unit = p["gs"] == 128 and p["order"] == "cyclic"
        return {"loads_stride1": 2 * N if unit else 0.0,
                "loads_frac4ofgt4": 0.0 if unit else 2 * N,
                "groups": N / (p["gs"] * p["ppi"])}

    _, counted = fit_every_structure(space, truth)
    assert sum(map(len, counted.values())) < len(space.points())
