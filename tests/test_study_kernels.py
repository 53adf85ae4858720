"""The block-size study kernels (Ernst et al.): numerics on pocl, block shapes, counts."""

from __future__ import annotations

import math

import loopy as lp
import numpy as np
import pytest

from workbench.errors import GroupSizeError, ParameterError, UnknownNameError
from workbench.kernels.base import DType, KernelRole
from workbench.kernels.study import (
    DEFAULT_BLOCK,
    FOLDS,
    lbm_like,
    lbm_spec,
    star_stencil_3d,
    star_stencil_spec,
    study_block_sizes,
)
from workbench.properties import extract_properties
from workbench.properties.features import Direction, GlobalAccess, OpCount, OpKind

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    # The executor cannot infer nx, ny, nz from padded shapes; we always pass them.
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

SPECS = {"star": star_stencil_spec, "lbm": lbm_spec}
BLOCKS = [(8, 4, 2), (16, 1, 4), (2, 8, 8)]
#: Deliberately not multiples of the blocks or folds: exercises the edge guards.
ODD = {"nx": 13, "ny": 11, "nz": 9}


def run_spec(queue, spec, variant, dtype, block, params):
    request = spec.request(variant, dtype, block)
    inputs = spec.inputs(params, request.dtype, np.random.default_rng(7), variant)
    knl = lp.set_options(spec.build(request), return_dict=True)
    _evt, out = knl.executor(queue)(queue, **inputs, **params)
    expected = spec.expected(inputs, params, variant)
    assert expected
    for arg, want in expected.items():
        got = out[arg].get() if hasattr(out[arg], "get") else out[arg]
        assert got.dtype == request.dtype.numpy
        assert got.shape == want.shape
        rtol = 1e-12 if request.dtype is DType.FLOAT64 else spec.rtol
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=f"{spec.name}/{variant}")


@pytest.mark.parametrize("kind", sorted(SPECS))
@pytest.mark.parametrize("variant", list(FOLDS))
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_numerics_odd_sizes(queue, kind, variant, block):
    run_spec(queue, SPECS[kind](), variant, "float64", block, ODD)


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_numerics_check_params_default_block_float32(queue, kind):
    spec = SPECS[kind]()
    run_spec(queue, spec, "fold_z", "float32", None, spec.check_params)


def test_direct_builders_with_fold_in_both_axes(queue):
    """The builders take any fold, also one in y and z at once."""
    params = dict(ODD)
    spec = star_stencil_spec()
    inputs = spec.inputs(params, DType.FLOAT64, np.random.default_rng(3))
    knl = lp.set_options(star_stencil_3d((4, 2, 2), (1, 2, 2)), return_dict=True)
    _evt, out = knl.executor(queue)(queue, **inputs, **params)
    np.testing.assert_allclose(out["out"], spec.expected(inputs, params)["out"],
                               rtol=1e-12)
    knl = lbm_like((4, 2, 2), (1, 2, 2))
    assert knl is not None


def test_specs_and_requests():
    for make in SPECS.values():
        spec = make()
        assert spec.role is KernelRole.TEST
        assert spec.variants == ("nofold", "fold_y", "fold_z")
        assert spec.group_dims == 3
        assert spec.parameters == ("nx", "ny", "nz")
        assert spec.check_params == {"nx": 16, "ny": 16, "nz": 16}
        assert spec.request().group_size == DEFAULT_BLOCK == (32, 4, 8)
        assert spec.request("fold_y", "float64", (1, 512, 1)).group_size == (1, 512, 1)
        assert spec.request("fold_z", "float32", "4x4x64").group_size == (4, 4, 64)
        with pytest.raises(GroupSizeError):
            spec.request("nofold", "float64", (32, 32))
        with pytest.raises(UnknownNameError):
            spec.request("fold_x", "float64", (8, 8, 8))
        (case,) = spec.cases(9)
        assert case == {"nx": 640, "ny": 512, "nz": 512}  # the paper's grid


def _check_block_set(total, count):
    shapes = study_block_sizes(total)
    assert len(shapes) == count == len(set(shapes))
    pow2 = {2 ** k for k in range(10)}
    for x, y, z in shapes:
        assert x * y * z == total
        assert x in pow2 and y in pow2
        assert z in {2 ** k for k in range(7)}
    # Complete: every (a, b, c) exponent triple with a + b + c = log2(total) is there.
    e = int(math.log2(total))
    want = {(2 ** a, 2 ** b, 2 ** (e - a - b)) for a in range(10) for b in range(10)
            if 0 <= e - a - b <= 6}
    assert set(shapes) == want
    return shapes


def test_study_block_sizes_stencil():
    shapes = _check_block_set(1024, 54)
    # The paper: 162 configurations = 54 blocks x {no fold, 2y, 2z}.
    assert len(shapes) * len(FOLDS) == 162
    assert (32, 32, 1) in shapes and (1, 16, 64) in shapes and (512, 2, 1) in shapes
    assert (1024, 1, 1) not in shapes and (1, 1, 1024) not in shapes
    assert shapes == tuple(sorted(shapes))


def test_study_block_sizes_lbm():
    shapes = _check_block_set(512, 49)
    assert (512, 1, 1) in shapes and (1, 512, 1) in shapes and (1, 8, 64) in shapes


def test_study_block_sizes_edge_cases():
    assert study_block_sizes(1) == ((1, 1, 1),)
    assert study_block_sizes(1000) == ()
    with pytest.raises(ParameterError):
        study_block_sizes(0)


@pytest.mark.parametrize("variant", list(FOLDS))
def test_stencil_counts_25_loads_per_point(variant):
    knl = star_stencil_spec().build(star_stencil_spec().request(variant, "float64",
                                                                (8, 4, 2)))
    props = extract_properties(knl)
    for params in (ODD, {"nx": 64, "ny": 32, "nz": 16}):
        points = params["nx"] * params["ny"] * params["nz"]
        counts = props.evaluate(params)
        loads = sum(v for f, v in counts.items()
                    if isinstance(f, GlobalAccess) and f.direction is Direction.LOAD)
        stores = sum(v for f, v in counts.items()
                     if isinstance(f, GlobalAccess) and f.direction is Direction.STORE)
        assert loads == 25 * points
        assert stores == points
        assert counts[OpCount("float64", OpKind.MUL)] == 5 * points
        assert counts[OpCount("float64", OpKind.ADD)] == 24 * points


def test_lbm_counts_per_point():
    props = extract_properties(lbm_like((8, 4, 2), (1, 1, 2)))
    counts = props.evaluate(ODD)
    points = ODD["nx"] * ODD["ny"] * ODD["nz"]
    loads = sum(v for f, v in counts.items()
                if isinstance(f, GlobalAccess) and f.direction is Direction.LOAD)
    stores = sum(v for f, v in counts.items()
                 if isinstance(f, GlobalAccess) and f.direction is Direction.STORE)
    assert loads == (15 + 7) * points
    assert stores == 15 * points
