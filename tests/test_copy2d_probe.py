"""The 2-D copy probe's kernels (benchmarks/copy2d_probe_kernels.py) compute what they
claim (pocl): a plain copy, edge and reflect padding as numpy pads, the im2col planes."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def kernels():
    path = ROOT / "benchmarks/copy2d_probe_kernels.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(kernels, queue, case, n, dtype="float32"):
    import loopy as lp

    knl = lp.set_options(kernels.copy2d(case, n, (16, 4), dtype), no_numpy=False)
    inp = np.random.default_rng(3).uniform(0.0, 1.0, (n, n)).astype(dtype)
    out = np.full(kernels.output_shape(case, n), -1.0, dtype=dtype)
    knl(queue, inp=inp, out=out, n=np.int32(n))
    return inp, out


@pytest.mark.parametrize("case, mode", [("edge", "edge"), ("reflect", "reflect")])
def test_padding_cases_pad_as_numpy(kernels, queue, case, mode):
    inp, out = _run(kernels, queue, case, 21)
    np.testing.assert_array_equal(out, np.pad(inp, kernels.PAD, mode=mode))


def test_copy_shift_and_nine_planes(kernels, queue):
    n = 19
    inp, out = _run(kernels, queue, "plain", n, "float64")
    np.testing.assert_array_equal(out, inp)
    rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]

    def plane(di, dj):
        return inp[np.clip(rows + di, 0, n - 1), np.clip(cols + dj, 0, n - 1)]

    _, shifted = _run(kernels, queue, "shift", n, "float64")
    np.testing.assert_array_equal(shifted, plane(1, -1))
    _, planes = _run(kernels, queue, "im2col9", n, "float64")
    for s, (di, dj) in enumerate(kernels.SHIFTS):
        np.testing.assert_array_equal(planes[s], plane(di, dj))
    assert kernels.bytes_moved("im2col9", n, 8) == 10 * n * n * 8
