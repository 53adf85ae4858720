"""A ranking's rounds in one process flatten each counted point's counts once (issue
#33): every round gives every structure's fit all points of its space, and these were
flattened again per fit and round (5 % of blind9_xform4's ranking, 11 fits), with the
same counts and fits as before."""

from __future__ import annotations

import os
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rank(monkeypatch, ref):
    import workbench.models.candidate_features as features
    from workbench.models import count_cache, load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")      # the rounds in this process
    flattened, counted = [], []
    flat, count = count_cache.flat_counts, features.count_candidate

    def flattening(found):
        flattened.append(id(found))
        return flat(found)

    def counting(c, *args):
        counted.append(c.point)
        return count(c, *args)

    monkeypatch.setattr(count_cache, "flat_counts", flattening)
    monkeypatch.setattr(features, "count_candidate", counting)
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear-non-negative.json")
    space = resolve_space(f"{ROOT}/{ref}")
    features.forget_counts(space)
    ranking = rank_space(model, space)
    report = features.counting_report(space)
    return space, ranking, report, flattened, counted


def test_each_counted_point_is_flattened_once(monkeypatch):
    # triad: two structures, the blocked order fitted across wpi on renamed classes,
    # over several rounds
    space, ranking, report, flattened, counted = _rank(
        monkeypatch, "examples/spaces/triad.py:space")
    assert not any(e for e in ranking.errors or ())
    assert len(report) >= 2 and 0 < len(counted) < len(space.points())
    assert len(flattened) == len(counted), (len(flattened), len(counted))


def test_fitted_counts_equal_the_points_own(monkeypatch):
    """The fits still see every probe: each structure's fitted counts equal the counts
    of a point built and counted on its own, at points that were not probed."""
    import workbench.models.candidate_features as features
    from workbench.kernels.candidate import Candidate
    from workbench.models.count_cache import grain_name
    from workbench.properties import Granularity

    space, ranking, report, _, counted = _rank(monkeypatch, "examples/spaces/triad.py:space")
    unprobed = [p for p in space.points() if p not in set(counted)][::7][:4]
    assert unprobed
    remembered = features.remembered_counts(space)
    grain = grain_name((Granularity.WORKITEM, None))
    for point in unprobed:
        own, error = features.count_candidate(Candidate.of_point(space, point), [],
                                              Granularity.WORKITEM, None)
        assert error is None
        mine = remembered[point.label, grain]
        theirs = own[(Granularity.WORKITEM, None)]
        shared = set(mine) & set(theirs)
        assert len(shared) > 5
        for name in shared:
            assert np.isclose(mine[name], theirs[name], rtol=0, atol=0) or (
                np.isnan(mine[name]) and np.isnan(theirs[name])), (point, name)
