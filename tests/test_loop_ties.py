"""The model's exact ties broken by loop overhead (workbench.tuning.loop_ties)."""

from __future__ import annotations

import numpy as np

from workbench.tuning.loop_ties import ModelHedgeLoops, fewer_trips_first, loop_trips
from workbench.tuning.space import TuningSpace
from workbench.tuning.strategies import STRATEGIES


def summing_space() -> TuningSpace:
    """Each work item sums a row of 64: the loop unrolled by 1, 4 or 16."""
    import loopy as lp
    import numpy as np

    def kernel(p):
        knl = lp.make_kernel("{[i, j]: 0 <= i < 256 and 0 <= j < 64}",
                             "y[i] = sum(j, x[i, j])",
                             [lp.GlobalArg("x", np.float32, shape=(256, 64)),
                              lp.GlobalArg("y", np.float32, shape=(256,))],
                             name="rows", lang_version=(2018, 2))
        knl = lp.split_iname(knl, "i", p["g"], outer_tag="g.0", inner_tag="l.0")
        if p["unroll"] > 1:
            knl = lp.split_iname(knl, "j", p["unroll"], inner_tag="unr")
        return knl

    return TuningSpace(name="rows", description="rows",
                       tune_params={"g": (32, 64), "unroll": (1, 4, 16)}, restrictions=(),
                       group_size=lambda p: (p["g"],), problem={}, kernel=kernel)


def test_loop_trips_counts_the_sequential_iterations_unrolling_removes():
    space = summing_space()
    trips = {p.label: loop_trips(space.build(p)) for p in space.points()}
    assert trips["g=32,unroll=1"] == 64
    assert trips["g=32,unroll=4"] == 16
    assert trips["g=32,unroll=16"] == 4


def test_only_the_exact_ties_at_the_top_are_reordered_fewest_trips_first():
    space = summing_space()
    points = space.points()
    labels = [p.label for p in points]
    # g=64 predicted best, all three unrollings tied; g=32's a little slower
    logp = np.array([np.log(2.0) if p["g"] == 32 else np.log(1.0) for p in points])
    order = np.argsort(logp, kind="stable")
    new = fewer_trips_first(space, points, logp, order)
    assert [labels[i] for i in new[:3]] == ["g=64,unroll=16", "g=64,unroll=4",
                                            "g=64,unroll=1"]
    assert [labels[i] for i in new[3:]] == [labels[i] for i in order[3:]]
    # a distinct best is left where it is
    logp[labels.index("g=64,unroll=1")] = np.log(0.5)
    order = np.argsort(logp, kind="stable")
    assert list(fewer_trips_first(space, points, logp, order)) == list(order)


def test_registered_and_its_first_pick_is_the_most_unrolled_tie():
    from tests.test_guided import FormulaModel

    assert STRATEGIES["model-hedge-loops"] is ModelHedgeLoops
    space = summing_space()
    strategy = ModelHedgeLoops(FormulaModel(lambda p: 1.0 if p["g"] == 64 else 2.0),
                               "formula")
    assert strategy.start(space, space.points()) >= strategy.tie_s > 0
    assert strategy.points[int(strategy.order[0])].label == "g=64,unroll=16"


def test_hedge_trips_measures_the_same_three_picks_fewest_trips_first():
    from tests.test_guided import FormulaModel
    from workbench.tuning.hedge import ModelHedgeBase
    from workbench.tuning.loop_ties import ModelHedgeTrips

    assert STRATEGIES["model-hedge-trips"] is ModelHedgeTrips
    space = summing_space()
    formula = FormulaModel(lambda p: (1.0 if p["g"] == 64 else 1.01) * (1 + p["unroll"] / 1e3))
    plain, trips = ModelHedgeBase(formula, "f"), ModelHedgeTrips(formula, "f")
    plain.start(space, space.points())
    assert trips.start(space, space.points()) >= trips.tie_s > 0
    first = [space.points()[int(i)] for i in plain.order[:3]]
    again = [space.points()[int(i)] for i in trips.order[:3]]
    assert {p.label for p in again} == {p.label for p in first}
    assert [p["unroll"] for p in again] == sorted((p["unroll"] for p in first), reverse=True)
    assert list(trips.order[3:]) == list(plain.order[3:])
