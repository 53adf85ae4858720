"""A ranking builds and counts each point of a factory space at most once (issue #33):
a sub-group model with occupancy features (the shipped default, ``chains38``) asks for
the work-item global accesses of every point after its own features, and the probes
of its structures lacked the per-dtype sum over both directions, so that call fitted
every structure again and built its probes a second time (20 of stencil2d_5pt's 41)."""

from __future__ import annotations

import collections
import os
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_chains38_ranking_counts_no_point_twice(monkeypatch):
    import workbench.models.candidate_features as features
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")      # every count in this process
    counted = collections.Counter()
    count = features.count_candidate

    def counting(c, *args):
        counted[c.point.label] += 1
        return count(c, *args)

    monkeypatch.setattr(features, "count_candidate", counting)
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear-fp64-sectors-chains38.json")
    space = resolve_space(f"{ROOT}/examples/kernels/my_space.py:space")
    features.forget_counts(space)
    ranking = rank_space(model, space)
    assert not any(e for e in ranking.errors or ())
    assert counted and max(counted.values()) == 1, counted.most_common(3)
    # fitted, not every point built
    assert len(counted) < len(space.points())
