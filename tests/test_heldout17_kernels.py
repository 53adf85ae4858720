"""The seventeenth held-out kernel set (``--set heldout17``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text, and the check inputs are shown to take every clamp, sign,
mask and arm the kernels have (so that a kernel missing one fails its check).
Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import numpy as np
import pytest
from heldout_checks import check_inputs, expected_outputs, total_of
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout17 import ARGMAX_SAMPLES, BOX, DCT_SIZE, SH_TERMS, bounce
from workbench.kernels.defs.heldout17_grid import BAYER_GAINS, census

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_one_dimensional_kernels_count_their_text():
    n = 2000
    # three planes read; a power per loan, the two arms' divisions; two stores with
    # the interest
    got = nonzero_counts("loan_payment", "payment_interest", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 3 * n
    assert got["f_op_float32_pow"] == n and got["f_op_float32_div"] == 3 * n
    assert total_of(got, "float32_store") == 2 * n
    assert total_of(nonzero_counts("loan_payment", "payment", (256,), {"n": n}),
                    "float32_store") == n
    # four sines and cosines and a square root; one division
    got = nonzero_counts("geodetic_to_ecef", "wgs84", (256,), {"n": n})
    assert got["f_op_float32_special"] == 5 * n and got["f_op_float32_div"] == n
    assert total_of(got, "float32_store") == 3 * n
    # every sample of the row read once, two stores per row
    got = nonzero_counts("argmax_rows", "first_max", (256,), {"n": 700})
    assert total_of(got, "float32_load") == ARGMAX_SAMPLES * 700
    assert total_of(got, "float32_store") == 2 * 700
    # four planes in and four out, no special functions, no division
    got = nonzero_counts("particle_bounce", "restitution", (256,), {"n": n})
    assert got["f_mem_access_global_float32_load_stride1"] == 4 * n
    assert got["f_mem_access_global_float32_store_stride1"] == 4 * n
    assert not any(k in got for k in ("f_op_float32_special", "f_op_float32_div"))
    # one square root and one reciprocal per direction, nine values written
    got = nonzero_counts("sh9_basis", "normalize", (256,), {"n": n})
    assert got["f_op_float32_special"] == n and got["f_op_float32_div"] == n
    assert total_of(got, "float32_store") == len(SH_TERMS) * n
    # a cosine per (coefficient, sample), the block read once per coefficient
    got = nonzero_counts("dct8_blocks", "orthonormal", (256,), {"n": 700})
    assert got["f_op_float32_special"] == DCT_SIZE * DCT_SIZE * 700
    assert total_of(got, "float32_load") == DCT_SIZE * DCT_SIZE * 700
    assert total_of(got, "float32_store") == DCT_SIZE * 700


def test_grid_kernels_count_their_text():
    m, n = 23, 35
    # four reads per cell, three stores; the gains only in white_balance
    got = nonzero_counts("bayer_superpixel", "white_balance", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 4 * m * n
    assert total_of(got, "float32_store") == 3 * m * n
    assert got["f_op_float32_mul"] == 3 * m * n
    assert nonzero_counts("bayer_superpixel", "plain", (16, 16),
                          {"m": m, "n": n})["f_op_float32_mul"] == m * n
    m, n = 45, 70
    # the centre and its eight neighbours, no float arithmetic
    got = nonzero_counts("census_transform3x3", "clamped", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == 9 * m * n
    assert not any(k.startswith("f_op_float") for k in got)
    got = nonzero_counts("vignette_correct", "radial", (16, 16), {"m": m, "n": n})
    assert total_of(got, "float32_load") == m * n and "f_op_float64_mul" not in got


def test_inputs_take_every_clamp_sign_and_arm():
    loan = check_inputs("loan_payment", "payment_interest")
    assert min((loan["rate"] == 0).sum(), (loan["rate"] > 0).sum()) > 100
    interest = expected_outputs("loan_payment", "payment_interest")["interest"]
    assert (interest == 0).sum() > 100 and (interest > 0).sum() > 1000
    geo = check_inputs("geodetic_to_ecef", "wgs84")
    xyz = np.stack(list(expected_outputs("geodetic_to_ecef", "wgs84").values()))
    assert min((xyz < 0).sum(axis=1).min(), (xyz > 0).sum(axis=1).min()) > 500
    assert min((geo["height"] < 0).sum(), (geo["height"] > 0).sum()) > 50
    arg = expected_outputs("argmax_rows", "first_max")["position"]
    assert min((arg == 0).sum(), (arg == ARGMAX_SAMPLES - 1).sum()) > 30
    assert ((arg > 0) & (arg < ARGMAX_SAMPLES - 1)).sum() > 300
    rows = check_inputs("argmax_rows", "first_max")["x"]
    assert ((rows == rows.max(axis=1, keepdims=True)).sum(axis=1) > 1).sum() > 50   # ties
    p = check_inputs("particle_bounce", "restitution")
    step = {"x": p["x"] + 0.05 * p["vx"], "y": p["y"] + 0.05 * (p["vy"] - 9.81 * 0.05)}
    for c in "xy":                       # each wall of each axis crossed, most not
        assert min((step[c] < 0).sum(), (step[c] > BOX).sum()) > 50
        assert ((step[c] > 0) & (step[c] < BOX)).mean() > 0.6
    out = bounce(p["x"], p["y"], p["vx"], p["vy"])
    assert all(((v >= 0) & (v <= BOX)).all() for v in (out["x_out"], out["y_out"]))
    sh = expected_outputs("sh9_basis", "normalize")["sh"]
    assert min((sh[:, 1:] < 0).sum(axis=0).min(), (sh[:, 1:] > 0).sum(axis=0).min()) > 300
    dirs = check_inputs("sh9_basis", "normalize")
    assert np.ptp(np.sqrt(sum(dirs[f"dir_{c}"].astype(np.float64) ** 2 for c in "xyz"))) > 3
    coef = expected_outputs("dct8_blocks", "orthonormal")["coef"]
    assert min((coef < 0).sum(axis=0).min(), (coef > 0).sum(axis=0).min()) > 50
    raw = check_inputs("bayer_superpixel", "white_balance")["raw"].astype(np.float64)
    for gain, plane in zip(BAYER_GAINS["white_balance"], (raw[0::2, 0::2], raw[1::2, 1::2])):
        assert min((gain * plane > 1).sum(), (gain * plane < 1).sum()) > 100
    img = check_inputs("census_transform3x3", "clamped")["img"]
    codes = census(img)
    # every bit set somewhere and clear somewhere, flat patches (ties) give zeros
    bits = (codes[..., None] >> np.arange(8)) & 1
    assert bits.any(axis=(0, 1)).all() and (~bits.astype(bool)).any(axis=(0, 1)).all()
    assert (codes == 0).sum() > 5 and (codes == 255).sum() > 5
    out = expected_outputs("vignette_correct", "radial")["out"]
    assert min((out == 1).sum(), (out < 1).sum()) > 300
