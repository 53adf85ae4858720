"""A knob whose values straddle the sub-group width is split at it, not value by value
(issue #33, ``chains38``'s sector features): a warp of a 16-wide group spans two rows,
one of a 32- to 128-wide group lies in one, so the sectors a warp touches are one sum
of monomials in ``bx`` below 32 and another above.  Numbers only, no kernels."""

from __future__ import annotations

import math

from workbench.models.structure_fit import SUBGROUP_WIDTH
from workbench.tuning import TuningSpace

from tests.test_structure_joint_exact import fit_from_truth


def _stencil_space() -> TuningSpace:
    return TuningSpace(
        name="stencil", description="numbers only",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8), "wpi": (1, 2, 4)},
        restrictions=("bx*by >= 32",),
        group_size=lambda p: (p["bx"], p["by"]), kernel=lambda p: None)


def _sectors(p) -> dict[str, float]:
    # a 5-point stencil's reused loads, DRAM sectors per sub-group: 7 a warp within a
    # row (bx >= 32), 11 where a warp spans two rows of 16 (as stencil2d_5pt's, whose
    # count is constant in bx >= 32 and another constant at bx = 16); the groups fall
    # with the group's size; the halo's loads with the rows a group covers
    n2 = 2.0 ** 26
    per_warp = 7.0 if p["bx"] >= SUBGROUP_WIDTH else 11.0
    return {"subgroup/32|dramsectors": n2 / 32 * per_warp,
            "subgroup/32|groups": n2 / (p["bx"] * p["by"] * p["wpi"]),
            "subgroup/32|halo": n2 * (1.0 + 2.0 / (p["by"] * p["wpi"]))}


def _solve(points, truth, lanes=("bx",)):
    return fit_from_truth(points, truth, lanes=lanes)


def test_a_sector_count_that_changes_form_at_the_warp_width_is_split_there_and_exact():
    points = _stencil_space().points()
    fit, counted = _solve(points, _sectors)
    for p, values in fit.values.items():
        for name, v in _sectors(p).items():
            assert math.isclose(values[name], v, rel_tol=1e-9), (p.label, name)
    labels = {",".join(f"{k}={v}" for k, v in r[0]) for r in fit.report()}
    assert labels == {"bx=16", "bx=32..128"}
    assert all("split by bx at the sub-group width 32" in r[4] for r in fit.report())
    assert all(r[3].value == "symbolic" for r in fit.report())
    # one part per value of bx (as before) needs a base, neighbours and checks in each
    # of four parts; two parts need fewer
    per_value = 0
    for bx in (16, 32, 64, 128):
        _, got = _solve([p for p in points if p["bx"] == bx], _sectors)
        per_value += len(got)
    assert len(counted) < per_value, (len(counted), per_value)


def test_a_knob_below_the_warp_width_is_split_by_its_values_as_before():
    # bx of 2 to 16 only: no warp width inside its range, so a count that changes form
    # at bx = 2 splits the structure value by value (the old rule)
    space = TuningSpace(name="narrow", description="numbers only",
                        tune_params={"bx": (2, 4, 8, 16), "by": (1, 2, 4, 8)},
                        group_size=lambda p: (p["bx"], p["by"]), kernel=lambda p: None)

    def truth(p):
        return {"c": 2.0 ** 20 * (3.0 if p["bx"] == 2 else 5.0) / p["by"]}

    fit, _ = _solve(space.points(), truth)
    for p, values in fit.values.items():
        assert math.isclose(values["c"], truth(p)["c"], rel_tol=1e-9)
    assert not any("sub-group width" in r[4] for r in fit.report())
    assert {r[0] for r in fit.report()} == {(("bx", v),) for v in (2, 4, 8, 16)}


def test_a_knob_that_is_not_the_group_width_is_split_by_its_values():
    # the same counts with bx not the group's extent along lid(0) (a work per item,
    # say): no split at the warp width, one part per value as before
    points = _stencil_space().points()
    fit, _ = _solve(points, _sectors, lanes=())
    assert not any("sub-group width" in r[4] for r in fit.report())
    for p, values in fit.values.items():
        for name, v in _sectors(p).items():
            assert math.isclose(values[name], v, rel_tol=1e-9), (p.label, name)


def test_no_split_at_the_warp_width_leaves_a_side_of_two_values():
    # bx of 8, 16, 32, 64: two values on each side, a fit along bx in either part would
    # be checked at no value of bx it did not take; split by values as before
    space = TuningSpace(name="transpose", description="numbers only",
                        tune_params={"bx": (8, 16, 32, 64), "by": (1, 2, 4, 8)},
                        group_size=lambda p: (p["bx"], p["by"]), kernel=lambda p: None)

    def truth(p):
        return {"c": 2.0 ** 20 * (3.0 if p["bx"] < 32 else 5.0) / p["by"]}

    fit, _ = _solve(space.points(), truth)
    assert not any("sub-group width" in r[4] for r in fit.report())
    for p, values in fit.values.items():
        assert math.isclose(values["c"], truth(p)["c"], rel_tol=1e-9)
