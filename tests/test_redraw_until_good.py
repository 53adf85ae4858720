"""``_util.redraw_until_good``: the held-out input generators' redraw loop in one place.
Every check input depends on the random stream, so the helper must draw exactly what the
hand-written loops it replaced drew, in the same order."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.kernels import _util as u


def _by_hand(rng, n, tries):
    # the loop as the held-out modules wrote it before the helper (heldout20's dew point)
    def draw(k):
        return rng.uniform(-1.0, 1.0, k), rng.uniform(0.0, 1.0, (k, 2))
    x, y = draw(n)
    for _ in range(tries):
        bad = (np.abs(x) < 0.3) | (y.sum(axis=1) < 0.5)
        if not bad.any():
            break
        x[bad], y[bad] = draw(bad.sum())
    return x, y


def _helper(rng, n, tries):
    def draw(k):
        return rng.uniform(-1.0, 1.0, k), rng.uniform(0.0, 1.0, (k, 2))
    return u.redraw_until_good(draw(n), draw,
                               lambda x, y: (np.abs(x) < 0.3) | (y.sum(axis=1) < 0.5),
                               tries=tries)


@pytest.mark.parametrize("tries", [0, 1, 3, 200])
def test_same_draws_as_the_hand_written_loop(tries):
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    want, got = _by_hand(a, 500, tries), _helper(b, 500, tries)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(w, g)
    # the same number of draws too: the next value from either stream agrees
    assert a.random() == b.random()


def test_redraws_until_nothing_is_bad_and_keeps_the_good_entries():
    rng = np.random.default_rng(1)
    x0 = rng.uniform(-1.0, 1.0, 1000)
    good = np.abs(x0) >= 0.3
    x = u.redraw_until_good(x0.copy(), lambda k: rng.uniform(-1.0, 1.0, k),
                            lambda x: np.abs(x) < 0.3, tries=200)
    assert not (np.abs(x) < 0.3).any()
    np.testing.assert_array_equal(x[good], x0[good])
    assert (x[~good] != x0[~good]).all()


def test_axis_one_redraws_columns():
    rng = np.random.default_rng(2)
    dirs = rng.normal(size=(3, 400))
    first = dirs.copy()
    out = u.redraw_until_good(dirs, lambda k: rng.normal(size=(3, k)),
                              lambda d: (np.abs(d) < 0.1).any(axis=0), tries=500, axis=1)
    assert out is dirs
    assert not (np.abs(out) < 0.1).any()
    kept = ~(np.abs(first) < 0.1).any(axis=0)
    np.testing.assert_array_equal(out[:, kept], first[:, kept])


def test_out_of_tries_returns_the_values_as_they_stand():
    # the replaced loops never raised: after the last round the inputs are what they are
    x = np.zeros(5)
    calls = []

    def draw(k):
        calls.append(k)
        return np.zeros(k)
    assert u.redraw_until_good(x, draw, lambda x: x == 0, tries=3) is x
    assert calls == [5, 5, 5]
