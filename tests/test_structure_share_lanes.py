"""A structure that shares another's counts is tried again now that a fit checks every
lane value (issue #33, section 61 of the structure-ranking notes): the share's probes
(base, checks, the ends of every range and every lane value, taken together) are
weighed against its own fit's first round *and* lane checks, and a point counted
before a fit at a lane value no probe had (a failed share's) is left to the lane
checks, which split its value off, rather than failing the whole first round.
Numbers only, no kernels."""

from __future__ import annotations


from workbench.models.structure_counts import CountMethod, structural_knobs, structure_key
from workbench.models.structure_fit import StructureFit
from workbench.models.structure_share import SharedFit, share_structures
from workbench.tuning import TuningSpace

from tests.test_structure_joint_exact import (
    assert_exact_fit,
    fit_every_structure,
    fit_from_truth,
)

N = 2.0 ** 24
GS = (32, 64, 128, 256, 512, 1024)


def _space(flag, gs=GS, ppi=(1, 2, 4, 8)):
    return TuningSpace(
        name="shared", description="numbers only",
        tune_params={"gs": gs, "ppi": ppi, flag[0]: flag[1]},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None)


def test_a_flag_that_changes_no_count_is_shared_at_fewer_builds_than_its_own_fit():
    # an unroll flag: the same counts at both values; exact17's lane checks made the
    # share's probes as many as the own fit's first round, and the share was not tried
    def truth(p):
        return {"loads_frac4ofgt4": 2 * N, "groups": N / (p["gs"] * p["ppi"]),
                "flops": N * p["ppi"]}

    # five group sizes, three work-per-items (blind10's aos3_split): the share's 7
    # points reach every lane value and product value, the own fit's 4 + 4 too
    fits, counted = fit_every_structure(_space(("unroll", (0, 1)), gs=GS[:5], ppi=(1, 2, 4)), truth)
    second = fits[(("unroll", 1),)]
    assert isinstance(second, SharedFit) and second.method is CountMethod.SHARED
    alone, alone_counted = fit_from_truth(second.points, truth, lanes=("gs",))
    assert len(counted[(("unroll", 1),)]) < len(alone_counted)
    # and the share still saw every lane value and product value of its points
    seen = counted[(("unroll", 1),)]
    assert {p["gs"] for p in seen} == set(GS[:5])
    assert {p["gs"] * p["ppi"] for p in seen} == {p["gs"] * p["ppi"] for p in second.points}


def test_a_share_that_fails_at_a_product_value_costs_no_more_than_its_own_fit():
    # bitonic_step's blocked order: a fraction of a line where gs*ppi = 128, counts
    # equal to cyclic order's elsewhere; the share counts that diagonal before any fit,
    # and the fit that follows splits it off as a lane value (exact17 failed the whole
    # first round on it there, and split the structure by ppi)
    def truth(p):
        one = p["gs"] * p["ppi"] == 128 and p["order"] == "blocked"
        return {"loads_frac4of4": 2 * N if one else 0.0,
                "loads_frac4ofgt4": 0.0 if one else 2 * N,
                "groups": N / (p["gs"] * p["ppi"])}

    fits, counted = fit_every_structure(_space(("order", ("cyclic", "blocked"))), truth)
    blocked = fits[(("order", "blocked"),)]
    assert blocked.method is not CountMethod.SHARED
    alone, alone_counted = fit_from_truth(blocked.points, truth, lanes=("gs",))
    assert len(counted[(("order", "blocked"),)]) <= len(alone_counted)
    assert {dict(r[0]).get("gs*ppi") for r in blocked.report()} >= {128}


def test_a_point_counted_before_the_fit_at_an_unprobed_lane_value_splits_that_value_off():
    def truth(p):
        one = p["gs"] * p["ppi"] == 128
        return {"loads_frac4of4": 2 * N if one else 0.0,
                "loads_frac4ofgt4": 0.0 if one else 2 * N,
                "groups": N / (p["gs"] * p["ppi"])}

    points = _space(("order", ("blocked",))).points()
    _, plain = fit_from_truth(points, truth, lanes=("gs",))
    fit = StructureFit(points, ("order",), lanes=("gs",))
    early = next(p for p in points if p["gs"] == 32 and p["ppi"] == 4)
    assert early not in fit.wanted()
    fit.give({early: truth(early)})
    counted = {early}
    while not fit.done:
        wanted = fit.wanted()
        assert wanted
        counted |= set(wanted)
        fit.give({p: truth(p) for p in wanted})
    assert_exact_fit(fit, truth)
    # the value split off, not the structure by ppi
    assert "split by ppi" not in fit.reason
    assert len(counted) <= len(plain | {early})


def test_a_share_asks_first_for_the_points_its_own_fit_counts_too():
    # a local-memory flag: other counts at the base already; the share falls back after
    # the plan's base and checks, and the structure costs what its fit alone costs
    def truth(p):
        local = 2 * N / p["gs"] if p["local"] else 0.0
        return {"loads_frac4ofgt4": 2 * N, "groups": N / (p["gs"] * p["ppi"]),
                "local_loads": local}

    space = _space(("local", (0, 1)), gs=GS[:5], ppi=(1, 2, 4))
    structural = structural_knobs(space)
    points = [p for p in space.points() if p["local"] == 1]
    fits = {(space, structure_key(p, structural)): None for p in space.points()}
    for key in list(fits):
        fits[key] = StructureFit([p for p in space.points()
                                  if structure_key(p, structural) == key[1]],
                                 structural, lanes=("gs",))
    share_structures(fits, space)
    shared = fits[space, (("local", 1),)]
    assert isinstance(shared, SharedFit)
    plan = shared.own._plan
    assert shared.wanted() == [plan.base, *plan.checks]
    fits, counted = fit_every_structure(space, truth)
    _, alone = fit_from_truth(points, truth, lanes=("gs",))
    assert counted[(("local", 1),)] == alone


def test_a_joint_fit_takes_points_counted_already_first():
    from tests.test_structure_joint_exact import _halo_space
    from workbench.models.structure_counts import plan_structure, plan_tensor

    def truth(p):
        halo = (1 + 1 / p["bx"]) * (1 + 1 / (p["by"] * p["rpi"]))
        return {"loads": N * halo, "groups": N / (p["bx"] * p["by"] * p["rpi"])}

    points = _halo_space().points()
    plan = plan_structure(points, (), per_knob=2)
    counted = {p: truth(p) for p in plan.probes}
    before = plan_tensor(plan, counted, points)
    unused = [p for p in points if p not in before.probes]
    assert unused
    extra = unused[-1]
    after = plan_tensor(plan, {**counted, extra: truth(extra)}, points)
    assert extra in after.probes
    assert len(after.probes) <= len(before.probes)


def test_a_share_that_differs_past_its_first_stage_stops_at_the_first_point_that_differs():
    # blind4's maxpool, transpose: a local-memory flag whose counts equal the other
    # structure's at the plan's base and check, not at some later probe; those one at a
    # time, so the share stops at the first that differs
    space = _space(("local", (0, 1)), gs=GS[:5], ppi=(1, 2, 4))
    structural = structural_knobs(space)
    fits = {}
    for p in space.points():
        fits.setdefault((space, structure_key(p, structural)), []).append(p)
    fits = {k: StructureFit(v, structural, lanes=("gs",)) for k, v in fits.items()}
    share_structures(fits, space)
    shared = fits[space, (("local", 1),)]
    assert isinstance(shared, SharedFit)
    plan = shared.own._plan
    # the first probe past the base and checks: an end or a lane value
    later = shared.probes[1 + len(plan.checks)]
    later = (later["gs"], later["ppi"])

    def truth(p):
        odd = p["local"] and (p["gs"], p["ppi"]) == later
        return {"loads_frac4ofgt4": 2 * N, "groups": N / (p["gs"] * p["ppi"]),
                "local_loads": 2 * N / p["gs"] if odd else 0.0}

    fits, counted = fit_every_structure(space, truth)
    failed = fits[(("local", 1),)]
    assert isinstance(failed, SharedFit) and failed.method is not CountMethod.SHARED
    # what it counted before it fell back: the base, the checks and that one point
    assert len(failed.counted) == len(plan.checks) + 2 < len(failed.probes)
