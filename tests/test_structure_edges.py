"""The ends of a knob's range are checked (workbench.models.structure_counts): loopy drops
a local axis of length one with its tree and barriers, so a count fitted through the
inner values of a knob must not be carried to its end.  Numbers only, no kernels."""

from __future__ import annotations

import math

import pytest

from workbench.models.structure_counts import (
    CountMethod,
    _fit_axis,
    plan_structure,
    structural_knobs,
)
from workbench.models.structure_fit import StructureFit
from workbench.tuning import TuningSpace

from tests.test_structure_joint_exact import fit_from_truth


def _tree_space() -> TuningSpace:
    # a column sum's shape: bx columns a group, by lanes a column adding up in a local
    # tree; the restriction keeps bx = 32 away from by = 1, so a base at bx = 32 has no
    # neighbour at the end by = 1 (the case that went wrong on a user's space)
    return TuningSpace(
        name="tree", description="numbers only",
        tune_params={"bx": (32, 64, 128, 256), "by": (1, 2, 4, 8, 16), "cpi": (1, 2, 4)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",),
        group_size=lambda p: (p["bx"], p["by"]), kernel=lambda p: None)


def _truth(p):
    m = 16384.0
    # barriers: none without a tree, else a store's and one a level, every row step
    barriers = 0.0 if p["by"] == 1 else (m / p["by"]) * (1 + math.log2(p["by"]))
    return {"barriers": barriers, "loads": m / p["by"] * p["cpi"], "groups": 4096 / p["bx"]}


def _fit(points):
    return fit_from_truth(points, _truth)


def test_an_end_no_neighbour_reaches_is_checked_and_blamed():
    points = _tree_space().points()
    plan = plan_structure(points, structural_knobs(_tree_space()), per_knob=1)
    reached = {(k, p[k]) for p in plan.probes for k in plan.knobs}
    for k in plan.knobs:
        values = [p[k] for p in points]
        assert (k, min(values)) in reached and (k, max(values)) in reached
    assert len(plan.blames) == len(plan.checks)
    assert "by" in plan.blames or any(p["by"] == 1 for p in (plan.base, *plan.axes[1]))


def test_a_tree_that_vanishes_at_one_lane_is_counted_right():
    points = _tree_space().points()
    fit, counted = _fit(points)
    for p in points:
        for name, value in _truth(p).items():
            assert math.isclose(fit.values[p][name], value, rel_tol=1e-9, abs_tol=1e-9), \
                (p.label, name)
    # split by the blamed knob, each part still fitted: fewer builds than every point
    assert len(counted) < len(points)
    assert any(r[3] is CountMethod.SYMBOLIC for r in fit.report())
    assert all("by" in dict(r[0]) for r in fit.report())


def test_a_split_whose_parts_need_no_more_counts_is_done_without_another_round():
    """A pool gives a fit only new results and stops when nothing is wanted
    (:func:`workbench.models.counting_pool.count_streaming`): a structure split into
    parts that its counts already fit (or count whole) must be done then, else its
    points were left without counts."""
    space = TuningSpace(
        name="split", description="numbers only",
        tune_params={"k0": (1, 2, 8, 16, 32), "k1": (2, 16, 64)},
        restrictions=("k0*k1 <= 32",), group_size=lambda p: (p["k0"],),
        kernel=lambda p: None)
    points = space.points()

    def truth(p):
        f = 3.0 * p["k0"] ** 2
        return {"f": f, "tree": 0.0 if p["k1"] == 2 else f * math.log2(p["k1"])}

    fit = StructureFit(points, ())
    while fit.wanted():
        fit.give({p: truth(p) for p in fit.wanted()})
    assert fit.done, fit.report()
    assert "split by k1" in fit.report()[0][4]
    for p in points:
        assert fit.values[p] == pytest.approx(truth(p), rel=1e-9), p.label


def test_a_probe_that_failed_after_every_point_was_counted_leaves_the_fit_done():
    points = _tree_space().points()
    fit = StructureFit(points, ())
    failed = fit.wanted()[0]
    fit.give({p: None if p == failed else _truth(p) for p in points})
    assert fit.done and fit.report()[0][3] is CountMethod.PER_POINT
    assert fit.values[failed] == {} and fit.values[points[-1]] == _truth(points[-1])


def test_a_count_zero_at_the_base_along_some_knobs_is_not_taken_for_zero():
    """Barriers that vanish at one end of a knob (k0 = 2 here) and a base at that end:
    the count is zero along the other knobs through the base but not along k0, whose
    probes were counted; a join that took it for zero everywhere passed its check,
    which shared the base's k0."""
    space = TuningSpace(
        name="zero", description="numbers only",
        tune_params={"k0": (2, 4, 8, 32), "k1": (1, 8, 32), "k2": (1, 4)},
        restrictions=("k0*k1 <= 16",), group_size=lambda p: (p["k0"],),
        kernel=lambda p: None)
    points = space.points()

    def truth(p):
        f = 1024.0 * p["k0"] / p["k1"]
        return {"f": f, "tree": 0.0 if p["k0"] == 2 else f * math.log2(p["k0"])}

    fit = StructureFit(points, ())
    while fit.wanted():
        fit.give({p: truth(p) for p in fit.wanted()})
    assert fit.done
    for p in points:
        assert fit.values[p] == pytest.approx(truth(p), rel=1e-9, abs=1e-6), p.label


def test_a_term_too_small_to_tell_at_the_probes_is_no_fit():
    """``2048 r^2 + r^-2 / 64`` at r = 1, 64, 8: the small term is below the tolerance
    there, so ``r^-3`` passes as well as ``r^-2``; two fits through the same values are
    none (the first taken gave 40 % off where the small term counts)."""
    def y(r):
        return 2048.0 * r ** 2 + r ** -2 / 64

    assert _fit_axis([64.0, 8.0], [y(64.0), y(8.0)], y(1.0)) is None
    assert _fit_axis([2.0, 4.0], [y(2.0), y(4.0)], y(1.0)) == [
        ((-2, 0), pytest.approx(1 / 64)), ((2, 0), pytest.approx(2048.0))]
    space = TuningSpace(
        name="terms", description="numbers only",
        tune_params={"k0": (2, 8, 16, 32, 64), "k1": (2, 16, 64), "k2": (1, 2, 4, 8, 64)},
        restrictions=("k0*k1 >= 16",), group_size=lambda p: (p["k0"],),
        kernel=lambda p: None)
    points = space.points()

    def truth(p):
        return {"f": 0.5 * p["k0"] * p["k1"] * p["k2"] ** 2 + 1 / (p["k1"] * p["k2"] ** 2)}

    fit = StructureFit(points, ())
    while fit.wanted():
        fit.give({p: truth(p) for p in fit.wanted()})
    for p in points:
        assert fit.values[p] == pytest.approx(truth(p), rel=1e-9), p.label


def test_a_base_cut_short_by_a_restriction_is_moved_for_the_second_round():
    # a 3-D box with its halo: every count a product of (1 + 2/knob) over the knobs, two
    # terms along each; bx*by >= 64 leaves the first round's base (bx = 16, an end)
    # one by beside it, no two-term fit along by. Round 2 moves the base, and the
    # structure is fitted whole (it was split by by: three fits and a per-point part)
    space = TuningSpace(
        name="box", description="numbers only",
        tune_params={"bx": (16, 32, 64, 128), "by": (1, 2, 4, 8), "zpi": (1, 2, 4, 8)},
        restrictions=("bx*by >= 64 and bx*by <= 512",),
        group_size=lambda p: (p["bx"], p["by"]), kernel=lambda p: None)
    points = space.points()
    first = plan_structure(points, (), per_knob=1)
    assert len(plan_structure(points, (), per_knob=2, base=first.base).axes[1]) < 2

    def truth(p):
        halo = (1 + 2 / p["bx"]) * (1 + 2 / p["by"]) * (1 + 2 / p["zpi"])
        return {"loads": 2.0 ** 27 * (27 + halo), "groups": 2.0 ** 21 / (p["bx"] * p["by"])}

    fit = StructureFit(points, ())
    counted = set()
    while not fit.done:
        wanted = fit.wanted()
        counted |= set(wanted)
        fit.give({p: truth(p) for p in wanted})
    assert not fit.parts and fit.method is CountMethod.SYMBOLIC
    assert len(counted) <= 16 < len(points)
    for p, values in fit.values.items():
        for name, v in truth(p).items():
            assert math.isclose(values[name], v, rel_tol=1e-9), (p.label, name)
