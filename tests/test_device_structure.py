"""Device-feature inputs fitted per structure of a factory space (issue #33): computed
at a structure's probes only, equal to the per-point values at every point, and every
point computed where a fit fails or a point cannot be analysed."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate, plain_factory_space
from workbench.models.device_structure import per_structure

H100 = "NVIDIA H100 80GB HBM3"


def _space():
    path = Path(__file__).resolve().parents[1] / "examples" / "kernels" / "my_space.py"
    spec = importlib.util.spec_from_file_location("my_space_for_device_structure", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.space


@pytest.fixture
def candidates(monkeypatch):
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.delenv("WORKBENCH_STRUCTURE_COUNTS", raising=False)
    space = _space()
    return [Candidate.of_point(space, p) for p in space.points()]


def _counting(compute):
    seen = []

    def counted(c):
        seen.append(c.point)
        return compute(c)
    return counted, seen


def test_a_sum_of_monomials_is_computed_at_the_probes_only(candidates):
    def numbers(c):
        p = c.point
        return {"threads": p["group"], "items": 65536 / p["per_item"],
                "both": 3 * p["group"] * p["per_item"] + 7}
    compute, seen = _counting(numbers)
    got = per_structure(candidates, compute)
    assert [g for g in got] == [numbers(c) for c in candidates]
    # unroll=0's 12 points (4 groups x 3 per item): a fit's probes, not every point
    # (unroll=1's 8 points are no more than its probes: computed one by one)
    assert 0 < len({p for p in seen if p["unroll"] == 0}) < 12, seen


def test_a_fit_that_fails_computes_every_point_of_its_structure(candidates):
    # no sum of few monomials in group: every point of each structure computed
    compute, seen = _counting(lambda c: {"odd": float((c.point["group"] // 32) % 3 == 1)
                                         + c.point["per_item"] ** 0.5})
    got = per_structure(candidates, compute)
    assert got == [{"odd": float((c.point["group"] // 32) % 3 == 1)
                    + c.point["per_item"] ** 0.5} for c in candidates]
    assert len(set(seen)) == len(candidates)


def test_a_point_that_cannot_be_analysed_is_unknown_and_the_rest_exact(candidates):
    broken = candidates[0].point

    def numbers(c):
        if c.point == broken:
            raise RuntimeError("cannot build")
        return {"threads": float(c.point["group"])}
    got = per_structure(candidates, numbers)
    assert got[0] is None
    assert got[1:] == [{"threads": float(c.point["group"])} for c in candidates[1:]]


def test_off_computes_every_point(candidates, monkeypatch):
    monkeypatch.setenv("WORKBENCH_STRUCTURE_COUNTS", "off")
    compute, seen = _counting(lambda c: {"threads": float(c.point["group"])})
    per_structure(candidates, compute)
    assert len(seen) == len(candidates)


def test_occupancy_and_fma_families_equal_their_per_point_values(candidates, monkeypatch):
    from workbench.models import occupancy_features
    from workbench.models.fma_pairs import fma_pair_values
    from workbench.models.occupancy_features import _occupancy_values

    built = []
    real = occupancy_features.resources
    monkeypatch.setattr(occupancy_features, "resources",
                        lambda c, d: built.append(c.point) or real(c, d))
    fitted = _occupancy_values(candidates, H100)
    fitted_fma = fma_pair_values(candidates, H100)
    assert len({p for p in built if p["unroll"] == 0}) < 12
    monkeypatch.setenv("WORKBENCH_STRUCTURE_COUNTS", "off")
    each = _occupancy_values(candidates, H100)
    each_fma = fma_pair_values(candidates, H100)
    for name, values in each.items():
        np.testing.assert_array_equal(fitted[name], values, err_msg=name)
    for name, values in each_fma.items():
        np.testing.assert_array_equal(fitted_fma[name], values, err_msg=name)
    assert np.isfinite(each["f_occupancy"]).all()


def test_anything_but_one_factory_space_is_computed_point_by_point(candidates):
    compute, seen = _counting(lambda c: {"threads": float(c.group_size[0])})
    mixed = candidates[:3] + [Candidate.of_point(_space(), candidates[3].point)]
    per_structure(mixed, compute)
    assert len(seen) == 4
    assert plain_factory_space(mixed) is None
