"""Round 15 of issue #34's calibration microbenchmarks (benchmarks/round15_probe_kernels.py):
the trig chains and the 2-D stencils compute what they claim (pocl), and the probe's
table is read back by name."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module(relative: str):
    spec = importlib.util.spec_from_file_location(Path(relative).stem, ROOT / relative)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def kernels():
    return _module("benchmarks/round15_probe_kernels.py")


@pytest.mark.parametrize("variant", ["sincos", "atan2"])
def test_a_trig_chain_applies_its_round_rounds_times(kernels, variant, queue):
    import loopy as lp

    # two rounds: sin(20 v + 25) amplifies float32 rounding twentyfold a round
    knl = lp.set_options(kernels.trig_chain(variant, 2), no_numpy=False)
    c, d = kernels.TRIG_ROUNDS_EXPR[variant][1]
    x = np.random.default_rng(1).uniform(1.0, 2.0, 300).astype(np.float32)
    names = {a.name for a in knl.default_entrypoint.args}
    args = {k: v for k, v in {"c": np.float32(c), "d": np.float32(d)}.items() if k in names}
    _, (y,) = knl(queue, x=x, n=np.int32(300), **args)
    v = x.astype(np.float64)
    for _ in range(2):
        v = np.sin(c * v + d) + np.cos(c * v + d) if variant == "sincos" else np.arctan2(v, c)
    np.testing.assert_allclose(y, v, rtol=2e-3, atol=2e-3)


def test_a_nine_point_stencil_with_2d_groups_sums_its_box(kernels, queue):
    import loopy as lp

    knl = lp.set_options(kernels.stencil(9, 40, (16, 4)), no_numpy=False)
    u = np.random.default_rng(2).uniform(0.0, 1.0, (40, 40)).astype(np.float32)
    out = np.zeros_like(u)
    knl(queue, u=u, out=out, n=np.int32(40), c0=np.float32(0.5), c1=np.float32(0.125),
        c2=np.float32(0.0625))
    edges = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    corners = u[:-2, :-2] + u[:-2, 2:] + u[2:, :-2] + u[2:, 2:]
    want = 0.5 * u[1:-1, 1:-1] + 0.125 * edges + 0.0625 * corners
    np.testing.assert_allclose(out[1:-1, 1:-1], want, rtol=1e-5)
    assert not out[0].any() and not out[:, -1].any()


def test_the_shipped_probe_table_is_read_by_kernel_name(kernels):
    prices = _module("benchmarks/trig_stencil_prices.py")
    times = prices.probe_times(str(ROOT / "sample_data/h100/round15-probe.txt"))
    names = {k.default_entrypoint.name for k, *_ in kernels.trig_kernels()} | \
        {k.default_entrypoint.name for k, *_ in kernels.stencil_kernels()}
    assert set(times) == names
    # the sincos round costs less than a sine round and a cosine round (a shared
    # range reduction): the mix price of round 15 is negative
    assert times["trig_sincos_r64"] - times["trig_sincos_r16"] < \
        times["trig_sin_r64"] - times["trig_sin_r16"] + times["trig_cos_r64"] - times["trig_cos_r16"]
