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


def test_split_times_a_probes_parts(probes_module):
    """``--split``: the parts are timed inside the probes (each part's wrapper put back
    after), and a prefetching space spends in its factory's transformations."""
    import workbench.properties.extract as extract

    prepare = extract.prepare
    space = resolve_space("examples/spaces/stencil2d_5pt.py:space")
    forget_counts(space)
    model = load_model("sample_data/h100/weights-linear-non-negative.json")
    with probes_module.PartTimer() as timer:
        seconds, report, spent, built = probes_module._rank_timed(model, space)
    assert extract.prepare is prepare
    probes = sum(map(len, spent.values()))
    probe_ms = sum(map(sum, spent.values()))
    build_ms = sum(map(sum, built.values()))
    for part in ("preprocess", "op counts", "access counts", "properties", "make_kernel"):
        assert timer.seconds[part] > 0, part
    # the counters run inside the properties, the properties inside the probes
    inner = sum(timer.seconds[k] for k in ("preprocess", "op counts", "access counts"))
    assert inner < timer.seconds["properties"] < probe_ms / 1e3
    row = dict(item.rsplit(" ", 1) for item in
               timer.row(seconds, probe_ms, build_ms, len(space.points())).split("  "))
    assert float(row["transforms"]) > 0 and probes > 0
    parts = sum(float(v) for v in row.values())
    assert abs(parts - 1e3 * seconds / len(space.points())) < 0.05
