"""The Lift paper's Table 1 features, read from loopy kernels without generating code.

Every expected value below is derived by hand from the kernel's source.
"""

from __future__ import annotations

import loopy as lp
import numpy as np
import pytest

from workbench.errors import ParameterError, UnknownNameError, UnsupportedKernelError
from workbench.models.ir_features import (
    FEATURE_ORDER,
    IRFeature,
    ir_features,
    space_ir_features,
    symbolic_ir_features,
)
from workbench.tuning.catalog import get_space

LANG_VERSION = (2018, 2)


def copy_kernel(load: str = "a[i]", dtype=np.float32, assumptions: str = ""):
    """``out[i] = <load>`` over n items, in groups of 256 along local axis 0."""
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = {load}",
        [lp.GlobalArg("a", dtype, shape="2*n"), lp.GlobalArg("out", dtype, shape="n"),
         lp.ValueArg("n", np.int32)],
        assumptions=assumptions or None, lang_version=LANG_VERSION,
        target=lp.PyOpenCLTarget())
    return lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")


def test_a_copy_in_256_wide_groups():
    v = ir_features(copy_kernel(), {"n": 4096})
    assert [v[f"global_size_{k}"] for k in range(3)] == [4096, 1, 1]
    assert [v[f"local_size_{k}"] for k in range(3)] == [256, 1, 1]
    assert v[IRFeature.GLOBAL_LOADS] == 1 and v[IRFeature.GLOBAL_STORES] == 1
    # 32 lanes x 4 bytes, one after another: one 128-byte line per warp access
    assert v[IRFeature.CACHE_LINES_PER_WARP_ACCESS] == 1
    for f in (IRFeature.LOCAL_MEMORY_BYTES, IRFeature.LOCAL_LOADS, IRFeature.LOCAL_STORES,
              IRFeature.BARRIERS, IRFeature.LOOP_BODIES):
        assert v[f] == 0, f
    # with n a run-time argument the code tests i < n in every work item; code
    # generated for n = 4096 (or with n a multiple of 256 assumed) needs no test
    assert v[IRFeature.CONDITIONALS] == 1
    assert ir_features(copy_kernel(), {"n": 4096}, fixed=True)["conditionals"] == 0
    assert ir_features(copy_kernel(assumptions="n mod 256 = 0"),
                       {"n": 4096})["conditionals"] == 0


def test_a_ragged_last_group_idles_lanes_and_keeps_its_guard():
    v = ir_features(copy_kernel(), {"n": 1000}, fixed=True)
    assert v["global_size_0"] == 1024               # 4 groups of 256
    assert v["global_loads"] == pytest.approx(1000 / 1024)
    assert v["conditionals"] == 1                    # every work item tests i < n


def test_cache_lines_follow_the_lane_stride_and_element_size():
    # stride-2 float32 load: 32 lanes span 256 bytes, 2 lines; its unit-stride store
    # 1 line; as many of each, so 1.5 lines per warp access on average
    strided = ir_features(copy_kernel("a[2*i]"), {"n": 4096})
    assert strided[IRFeature.CACHE_LINES_PER_WARP_ACCESS] == 1.5
    assert strided[IRFeature.GLOBAL_LOADS] == 1
    # float64: 32 lanes x 8 bytes = 2 lines for the load and the store alike
    wide = ir_features(copy_kernel(dtype=np.float64), {"n": 4096})
    assert wide[IRFeature.CACHE_LINES_PER_WARP_ACCESS] == 2


def tiled_matmul():
    """c = a @ b, 16 x 16 groups, panels of a and b prefetched into local memory
    per 16-wide step of k."""
    knl = lp.make_kernel(
        "{[i, j, k]: 0 <= i, j, k < n}", "c[i, j] = sum(k, a[i, k]*b[k, j])",
        [lp.GlobalArg("a,b,c", np.float32, shape="n, n"), lp.ValueArg("n", np.int32)],
        assumptions="n >= 16 and n mod 16 = 0", lang_version=LANG_VERSION,
        target=lp.PyOpenCLTarget())
    knl = lp.split_iname(knl, "i", 16, outer_tag="g.1", inner_tag="l.1")
    knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    knl = lp.split_iname(knl, "k", 16)
    for array, inames in (("a", ["k_inner", "i_inner"]), ("b", ["j_inner", "k_inner"])):
        knl = lp.add_prefetch(knl, array, inames, default_tag="l.auto",
                              fetch_outer_inames="i_outer,j_outer,k_outer")
    return knl


def test_a_tiled_matmul_prefetching_into_local_memory():
    n = 512
    v = ir_features(tiled_matmul(), {"n": n})
    steps = n // 16
    assert v[IRFeature.LOCAL_MEMORY_BYTES] == 2 * 16 * 16 * 4     # two float32 panels
    assert v[IRFeature.BARRIERS] == 2 * steps                     # before and after a fetch
    assert v[IRFeature.GLOBAL_LOADS] == 2 * steps                 # one of a, one of b
    assert v[IRFeature.LOCAL_STORES] == 2 * steps
    assert v[IRFeature.LOCAL_LOADS] == 2 * n                      # both panels, every k
    assert v[IRFeature.GLOBAL_STORES] == 1
    assert v[IRFeature.LOOP_BODIES] == steps + n                  # k_outer, k_inner
    # a warp is 16 lanes of two rows: 64 bytes of each of two rows, 2 lines
    assert v[IRFeature.CACHE_LINES_PER_WARP_ACCESS] == 2
    assert v[IRFeature.CONDITIONALS] == 0      # the assumptions leave no lane idle
    assert (v["global_size_0"], v["global_size_1"], v["local_size_0"],
            v["local_size_1"]) == (n, n, 16, 16)


def test_the_matmul_space_from_its_templates():
    space = get_space("matmul")
    points = space.points()
    frame = space_ir_features(space)
    assert list(frame.columns) == [f.value for f in FEATURE_ORDER]
    assert list(frame.index) == [p.label for p in points]
    assert np.isfinite(frame.to_numpy()).all()
    assert (frame["local_memory_bytes"].to_numpy()
            == [space.local_bytes(p) for p in points]).all()

    first = frame.loc[points[0].label]           # tx=8, ty=8, one c per item, global
    assert points[0].label == "tx=8,ty=8,wy=1,wx=1,tile=global"
    assert (first["global_size_0"], first["global_size_1"]) == (2048, 2048)
    assert (first["local_size_0"], first["local_size_1"]) == (8, 8)
    assert (first["global_loads"], first["global_stores"]) == (2 * 2048, 1)
    assert first["loop_bodies"] == 2048                     # k; the c block is unrolled
    assert first["barriers"] == first["conditionals"] == 0
    # a warp holds 4 rows of 8 lanes: a[row, k] and c[row, col] touch one line per
    # row, b[k, col] 32 bytes of one line
    assert first["cache_lines_per_warp_access"] == pytest.approx(
        (4 * 2048 + 1 * 2048 + 4 * 1) / (2048 + 2048 + 1))

    # a point's own kernel, read on its own, agrees with its template
    local = next(p for p in points if p["tile"] == "local" and p["wx"] == 2)
    own = ir_features(space.build(local)).as_array()
    assert own == pytest.approx(frame.loc[local.label].to_numpy())


def test_a_stencil_tile_fetches_its_halo_under_two_guards():
    space = get_space("stencil2d", n=256)
    point = space.point({"bx": 32, "by": 8, "cy": 1, "cx": 1, "tile": "local"})
    row = space_ir_features(space, [point]).iloc[0]
    assert row["local_memory_bytes"] == 4 * (8 + 2) * (32 + 2)
    # halo rows by two lanes of axis 1, halo columns by two of axis 0: one guard each
    assert row["conditionals"] == 2
    assert row["barriers"] == 1
    assert row["global_loads"] == 1 + (2 * 32 + 2 * 8) / (32 * 8)
    assert row["local_loads"] == 4 and row["global_stores"] == 1
    assert row["loop_bodies"] == 0          # one row and one column per item


def test_values_and_their_mistakes():
    program = copy_kernel()
    features = symbolic_ir_features(program)
    assert features.parameters == ("n",)
    many = features.evaluate({"n": np.array([256, 512, 300])})
    assert list(many[IRFeature.GLOBAL_SIZE_0]) == [256, 512, 512]
    with pytest.raises(ParameterError, match="needs a value for parameter"):
        ir_features(program, {})
    with pytest.raises(UnknownNameError, match="'m'"):
        ir_features(program, {"n": 256, "m": 3})
    with pytest.raises(UnsupportedKernelError, match="loopy program"):
        symbolic_ir_features(lp.make_kernel("{[i]: 0 <= i < 4}", "out[i] = 1",
                                            lang_version=LANG_VERSION).default_entrypoint)

    v = ir_features(program, {"n": 256})
    assert list(v) == list(FEATURE_ORDER) and len(v) == 15
    order = [IRFeature.BARRIERS, IRFeature.GLOBAL_LOADS]
    assert list(v.as_array(order)) == [0.0, 1.0]
    assert all(f.label for f in IRFeature) and v.is_finite
