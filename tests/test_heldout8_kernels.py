"""The eighth held-out kernel set (``--set heldout8``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text. Nothing here predicts with a model: the set stays unseen by
model design.
"""

from __future__ import annotations

import pytest
from heldout_checks import total_of
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout8_grid import ESCAPE_ITERATIONS

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_products_butterflies_fractals_and_lookups_count_their_text():
    n = 1000
    got = nonzero_counts("quaternion_product", "soa", (128,), {"n": n})
    assert got["f_op_float32_mul"] == 16 * n and got["f_op_float32_add"] == 12 * n
    assert total_of(got, "float32_store") == 4 * n
    n = 1024
    got = nonzero_counts("fft_butterfly", "sincos", (128,), {"n": n}, "float64")
    assert got["f_op_float64_special"] == 2 * n          # a cosine and a sine per pair
    assert total_of(got, "float64_store") == 4 * n
    got = nonzero_counts("fft_butterfly", "table", (128,), {"n": n})
    assert total_of(got, "float32_load") == 6 * n and "f_op_float32_special" not in got
    m, n = 45, 70
    got = nonzero_counts("mandelbrot_escape", "julia", (16, 12), {"m": m, "n": n})
    assert got["f_op_float32_mul"] == (10 * ESCAPE_ITERATIONS + 4) * m * n
    assert total_of(got, "float32_store") == 2 * m * n and total_of(got, "load") == 0
    m, n = 48, 80
    got = nonzero_counts("kron_product", "accumulate", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 3 * m * n
    n = 1000
    got = nonzero_counts("ray_sphere_hit", "two_spheres", (128,), {"n": n})
    assert got["f_op_float32_special"] == 2 * n          # a square root per sphere
    assert total_of(got, "float32_load") == 6 * n


@pytest.mark.parametrize("variant", ["mandelbrot", "julia"])
def test_the_escape_freezes_z_and_stops_counting(queue, variant):
    """The set's view keeps every orbit bounded (test_heldout_sets checks it), so there
    no pixel escapes and the masking goes unchecked. Here the same kernel on a view
    wholly outside |z| <= 2: every pixel escapes at once, its z frozen there."""
    import numpy as np
    from test_catalog import run_kernel

    from workbench.kernels.catalog import get_kernel

    spec = get_kernel("mandelbrot_escape")
    request = spec.request(variant, "float32", (16, 12))
    params = {"m": 20, "n": 30}
    inputs = spec.inputs(params, request.dtype, np.random.default_rng(0), variant)
    inputs.update(x0=np.float32(2.2), y0=np.float32(2.2))
    out = run_kernel(queue, spec.build(request), {**inputs, **params})
    want = spec.expected(inputs, params, variant)
    first = 1 if variant == "mandelbrot" else 0     # z = 0 is inside once
    assert np.all(want["escape"] == first)
    for name in ("escape", "modulus"):
        np.testing.assert_allclose(out[name], want[name], rtol=spec.rtol, err_msg=name)
