"""With many counting processes, a structure's lane checks are counted with its first
round (issue #33, the GPU host's 16 cores: a ranking's wall time there is a chain of
rounds, each waiting for its slowest point; the lane checks of an accepted fit were a
round of their own after it).  Counting them early changes no value: a lane check
counted before the fit is compared by the lane checks, as ever.  Numbers only, no
kernels."""

from __future__ import annotations

import pytest

from workbench.models.structure_fit import StructureFit
from workbench.models.structure_lanes import lane_check_points

from tests.test_structure_joint_exact import assert_exact_fit, fit_from_truth
from tests.test_structure_lane_values import GS, _points, _truth

#: the counting processes a streamed ranking fills (a pool of 16, one core left)
ROOM = 15


def _streamed(points, truth, room=ROOM):
    """The fit run as ``count_streaming`` runs it with ``room`` processes, in rounds of
    what it wants plus its speculative points on the processes left: (fit, points
    counted, rounds)."""
    fit = StructureFit(points, (), speculate=True, lanes=("gs",))
    counted: dict = {}
    rounds = 0
    while not fit.done:
        batch = [p for p in fit.wanted() if p not in counted]
        batch += [p for p in fit.speculative()
                  if p not in counted and p not in batch][:max(0, room - len(batch))]
        assert batch
        rounds += 1
        counted.update({p: truth(p) for p in batch})
        fit.give({p: counted[p] for p in batch})
    return fit, counted, rounds


def test_speculation_starts_with_the_lane_checks():
    points = _points()
    fit = StructureFit(points, (), speculate=True, lanes=("gs",))
    lanes = lane_check_points(fit._plan, points, ("gs",), {})
    assert lanes
    assert fit.speculative()[:len(lanes)] == list(lanes)
    # none where no knob sets the lanes
    plain = StructureFit(points, (), speculate=True)
    assert not lane_check_points(plain._plan, points, (), {})


def test_a_fit_that_holds_everywhere_takes_one_round():
    """The probes and the lane checks at once: the fit is accepted and checked at
    every lane value in one round (two before: the lane checks waited for the fit)."""
    points = _points()
    fit, counted, rounds = _streamed(points, _truth(None))
    assert_exact_fit(fit, _truth(None))
    assert rounds == 1 and not fit.parts
    assert {p["gs"] for p in counted} == set(GS)


@pytest.mark.parametrize("singular", GS)
def test_streamed_with_early_lane_checks_is_exact(singular):
    """A value singular at one lane value is split off as in rounds, and every value
    equals the truth; no point counted twice, and no more points than the structure."""
    points = _points()
    fit, counted, _ = _streamed(points, _truth(singular))
    assert_exact_fit(fit, _truth(singular))
    serial, _ = fit_from_truth(points, _truth(singular), lanes=("gs",))
    assert {p: v for p, v in fit.values.items()} == \
        {p: v for p, v in serial.values.items()}
    assert len(counted) <= len(points)
