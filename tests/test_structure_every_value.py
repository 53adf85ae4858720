"""A structure's fit is checked at every value of every knob (issue #33): two monomials
along a knob of four values pass through the three values its probes take whatever the
count is at the fourth, and a fit that was never compared with a count there was
accepted wrong (the fifth blind set's SYRK, its prefetch's local stores per sub-group,
``tx=32,ty=16``: 4718592 where the count is 4194304, at all three points of ``wpt = 2``).
Numbers only, no kernels; and fitted counts that are integers come out as integers."""

from __future__ import annotations

import math

import numpy as np

from workbench.models.structure_counts import (
    exact_counts,
    plan_structure,
)
from workbench.models.structure_fit import StructureFit
from workbench.tuning import TuningSpace


def _panel_space() -> TuningSpace:
    # a two-panel prefetch of depth kt into local memory, rows per work item wpt
    return TuningSpace(
        name="panels", description="numbers only",
        tune_params={"wpt": (1, 2, 4, 8), "kt": (8, 16, 32)},
        group_size=lambda p: (32, 16), kernel=lambda p: None)


def _local_stores(p) -> dict[str, float]:
    # per sub-group of 32 lanes: the row panel's stores fall with wpt as 2 + 4/wpt
    # once its copy loop runs more than once, and a depth of 8 fills half a sub-group
    rows = 8.0 if p["wpt"] == 1 else 2.0 + 4.0 / p["wpt"]
    depth = 2.0 if p["kt"] == 8 else 1.0
    return {"local_stores": 2.0 ** 20 * rows * depth,
            "groups": 2.0 ** 16 / p["wpt"]}


def _fit(points, truth):
    fit = StructureFit(points, ())
    while not fit.done:
        wanted = fit.wanted()
        assert wanted
        fit.give({p: truth(p) for p in wanted})
    return fit


def test_a_second_round_fit_is_compared_with_a_count_at_every_value_of_every_knob():
    # two neighbours per knob: two-term fits that nothing along the knob checks; the
    # first round's one monomial per knob is checked along it at the ends
    points = _panel_space().points()
    first = plan_structure(points, (), per_knob=1)
    assert {p["wpt"] for p in first.probes} == {1, 8}
    plan = plan_structure(points, (), per_knob=2, base=first.base)
    for knob in ("wpt", "kt"):
        assert {p[knob] for p in plan.probes} == {p[knob] for p in points}, knob


def test_a_prefetch_whose_stores_change_form_inside_a_knob_range_is_exact():
    fit = _fit(_panel_space().points(), _local_stores)
    wrong = [(p.label, name, values[name], v) for p, values in fit.values.items()
             for name, v in _local_stores(p).items()
             if not math.isclose(values[name], v, rel_tol=1e-9)]
    assert not wrong
    # and to the last bit (an integer count fitted is that integer)
    assert all(values[name] == v for p, values in fit.values.items()
               for name, v in _local_stores(p).items())


def test_fitted_integer_counts_are_made_integers_and_others_left():
    fitted = np.array([4718591.999999999, 9437183.999999994, 2.5, 7.0])
    assert list(exact_counts(fitted, [8.0, 16.0])) == [4718592.0, 9437184.0, 2.5, 7.0]
    assert list(exact_counts(fitted, [0.5, 16.0])) == list(fitted)
    assert list(exact_counts(fitted, [np.nan, 3.0])) == [4718592.0, 9437184.0, 2.5, 7.0]


def test_the_count_cache_key_changes_with_the_structure_fitting_code(monkeypatch):
    # a structure's fitted or shared counts are cached as its points' counts: a change
    # to how they are fitted, checked or shared must miss the old entries
    from pathlib import Path

    from workbench.models import count_cache

    read = Path.read_bytes
    before = count_cache._library_versions.__wrapped__()
    for name in ("structure_counts.py", "structure_fit.py", "structure_lanes.py",
                 "structure_share.py"):
        monkeypatch.setattr(Path, "read_bytes", lambda self, name=name: read(self) + (
            b"#" if self.name == name else b""))
        assert count_cache._library_versions.__wrapped__() != before, name
        monkeypatch.setattr(Path, "read_bytes", read)
