import numpy as np
import pytest

from workbench.models.feature_rows import built_rows


def _halve(n: int) -> float:
    if n < 0:
        raise ValueError("cannot be built")
    return n / 2


def test_a_row_whose_compute_raises_is_nan_in_the_unknown_arrays_only():
    marked, kept = np.zeros(4), np.zeros(4)
    rows = list(built_rows([2, -1, 6, -3], _halve, (marked,)))
    assert rows == [(0, 2, 1.0), (2, 6, 3.0)]
    assert np.isnan(marked[[1, 3]]).all() and (marked[[0, 2]] == 0).all()
    assert (kept == 0).all()


def test_what_is_not_an_exception_of_the_kernel_is_not_caught():
    def interrupted(n):
        raise KeyboardInterrupt

    out = np.zeros(1)
    with pytest.raises(KeyboardInterrupt):
        list(built_rows([1], interrupted, (out,)))
    assert out[0] == 0


def test_each_candidate_is_computed_when_its_row_is_asked_for():
    seen = []

    def compute(n):
        seen.append(n)
        return n

    rows = built_rows([1, 2, 3], compute, ())
    assert next(rows)[2] == 1 and seen == [1]
