"""A structure split by a knob of few values (``ppi`` of 2, 4 and 8: a stride class or
a two-term count that changes with it) is exact where a count changes form at one value
of another knob at one ``ppi`` only, a point no other part shows.  Numbers only, no
kernels.

These are the cases that sank a joint fit across the split (branch rank16, issue #33):
every feature fitted value by value of ``ppi`` on the monomials in ``gs`` shared by all
values, checked at every value of ``gs`` somewhere in the structure.  It gave a wrong value
where the count changes form at ``gs = 256`` of one ``ppi`` (a block ``gs*ppi`` crossing
a size, say), a point it never counted; checked as each part of a split is (every value
of ``gs`` at every ``ppi``), it took every point its parts take, and was dropped."""

from __future__ import annotations

import math

import pytest

from workbench.models.structure_fit import StructureFit
from workbench.tuning import TuningSpace

N = 2.0 ** 23


def _points():
    return TuningSpace(
        name="xform", description="numbers only",
        tune_params={"gs": (64, 128, 256, 512, 1024), "ppi": (2, 4, 8)},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None).points()


@pytest.mark.parametrize("ppi", [2, 4, 8])
@pytest.mark.parametrize("odd", [lambda gs: N * (gs == 256), lambda gs: N * (gs == 64),
                                 lambda gs: N / gs, lambda gs: 2 * N / gs ** 2],
                         ids=["at-256", "at-64", "1/gs", "1/gs^2"])
def test_a_term_at_one_value_of_the_split_knob_is_exact(ppi, odd):
    # the matrix read once per group beside the points' own (c0 + c1/(gs ppi)), a count
    # that differs by a constant at ppi = 4, and the odd term at one ppi only
    def truth(p):
        return {"loads": 16 * N + 16 * N / (p["gs"] * p["ppi"]) + 3 * N * (p["ppi"] == 4)
                + (odd(p["gs"]) if p["ppi"] == ppi else 0.0),
                "groups": N / (p["gs"] * p["ppi"])}

    fit = StructureFit(_points(), ())
    while not fit.done:
        wanted = fit.wanted()
        assert wanted
        fit.give({p: truth(p) for p in wanted})
    for p, values in fit.values.items():
        for name, v in truth(p).items():
            assert math.isclose(values.get(name, 0.0), v, rel_tol=1e-9, abs_tol=1e-9), \
                (p.label, name, values.get(name), v)
