"""benchmarks/structure_probes.py: every probe a ranking builds is given to the
structure (or split structure's part) it belongs to, as many as the ranking's report
says that structure counted."""

from pathlib import Path

import pytest

from workbench.models import load_model
from workbench.models.candidate_features import forget_counts
from workbench.tuning.catalog import resolve_space


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def probes_module(monkeypatch):
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    monkeypatch.chdir(ROOT)           # the spaces and weights are named from the root
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import structure_probes
    return structure_probes


@pytest.mark.parametrize("ref", ["examples/kernels/my_space.py:space",
                                 # a structure split by a knob: probes to its parts
                                 "examples/spaces/triad.py:space"])
def test_probes_are_given_to_their_structures(probes_module, ref):
    space = resolve_space(ref)
    forget_counts(space)
    model = load_model("sample_data/h100/weights-linear-non-negative.json")
    seconds, report, spent, built = probes_module._rank_timed(model, space)
    assert seconds > 0
    assert {r.label for r in report} >= set(spent)
    assert len(report) >= 2      # my_space: unroll on and off; triad: order and its parts
    for r in report:
        assert len(spent.get(r.label, [])) == r.counted, r.label
        assert all(ms > 0 for ms in spent.get(r.label, []))
        # the user's factory ran inside every probe, and is a part of it
        assert len(built.get(r.label, [])) == r.counted
        assert all(0 < b < ms for b, ms in zip(built.get(r.label, []),
                                                spent.get(r.label, [])))
    # the ranking counted fewer points than the space has (per structure, not per point)
    assert 0 < sum(map(len, spent.values())) < len(space.points())
