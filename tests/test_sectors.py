"""Sectors per sub-group access: hand-counted kernels and the expression feature."""

import loopy as lp
import numpy as np
import pymbolic.primitives as prim
import pytest

from workbench.errors import ModelError
from workbench.models.expressions import parse_feature_ref
from workbench.models.expressions.feature_values import kernel_feature_values
from workbench.properties import Direction, kernel_properties
from workbench.properties.lanes import lane_coordinates, subgroup_lanes
from workbench.properties.sectors import sector_sharing, sectors_per_access

LV = (2018, 2)
N = prim.Variable("n")


@pytest.mark.parametrize("stride, f32, f64", [(0, 1, 1), (1, 4, 8), (2, 8, 16), (5, 20, 32),
                                              (8, 32, 32), (32, 32, 32), (-1, 4, 8)])
def test_sectors_of_a_warp_along_lid0(stride, f32, f64):
    # 32 lanes, element i at stride*i: bytes [0, 32*stride*size) in 32 B sectors
    assert sectors_per_access({0: stride}, (256,), 4) == f32
    assert sectors_per_access({0: stride}, (256,), 8) == f64


def test_two_dimensional_groups_map_lanes_to_rows():
    # 16 x 16: a warp is two half rows of 16 lanes; rows n apart (symbolic: far)
    assert [tuple(c) for c in lane_coordinates((16, 16))[[0, 15, 16, 31]]] == \
        [(0, 0), (15, 0), (0, 1), (15, 1)]
    assert sectors_per_access({0: 1, 1: N}, (16, 16), 4) == 2 * 2     # 64 B a row
    assert sectors_per_access({0: 1, 1: N}, (16, 16), 8) == 2 * 4
    assert sectors_per_access({0: 1, 1: 16}, (16, 16), 4) == 4        # rows adjacent
    assert sectors_per_access({0: N, 1: 1}, (16, 16), 4) == 16        # transposed read
    assert sectors_per_access({0: N, 1: 1}, (32, 16), 4) == 32
    assert sectors_per_access({1: N}, (16, 16), 4) == 2               # one per row
    assert sectors_per_access({0: None}, (256,), 4) == 32             # a gather
    assert subgroup_lanes((8,), 32) == 8 and sectors_per_access({0: 1}, (8,), 4) == 1


def test_companions_at_constant_offsets_fill_each_others_gaps():
    assert sectors_per_access({0: 2}, (256,), 4, offsets=(0, 1)) == 8     # not 16
    assert sectors_per_access({0: 5}, (256,), 4, offsets=(0, 1, 2, 3, 4)) == 20
    assert sectors_per_access({0: 1}, (256,), 4, offsets=(-1, 0, 1)) == 5


def _strided(insns, stride, group=256, dtype=np.float32):
    knl = lp.make_kernel("{[i]: 0<=i<n}", insns,
                         [lp.GlobalArg("a", dtype, shape=(f"{stride}*n",)),
                          lp.GlobalArg("out", dtype, shape=(f"{stride}*n",)), ...],
                         assumptions="n>=1 and n mod 256 = 0", lang_version=LV)
    return lp.split_iname(knl, "i", group, outer_tag="g.0", inner_tag="l.0")


NAMES = ["f_mem_access_global_float32_load", "f_mem_access_global_float32_load_sectors",
         "f_mem_access_global_float32_store_sectors"]


@pytest.mark.parametrize("stride, sectors", [(1, 4), (2, 8), (5, 20), (32, 32)])
def test_sector_feature_counts_sectors_per_warp_access(stride, sectors):
    knl = _strided(f"out[i] = 2*a[{stride}*i]", stride)
    _, v = kernel_feature_values(knl, NAMES, {"n": 4096}, subgroup_size=32)
    warps = 4096 // 32
    assert v[NAMES[0]] == 4096                         # loopy: once per work item
    assert v[NAMES[1]] == warps * sectors
    assert v[NAMES[2]] == warps * 4                    # out[i]: stride 1


def test_interleaved_pairs_cost_what_split_arrays_cost():
    pair = _strided("out[2*i] = a[2*i] + a[2*i+1] {id=re}\n"
                    "out[2*i+1] = a[2*i] - a[2*i+1] {id=im}", 2)
    _, v = kernel_feature_values(pair, NAMES, {"n": 4096}, subgroup_size=32)
    warps = 4096 // 32
    # four stride-2 loads (two a statement) and two stores per item: 8 sectors each
    # alone, 8 all together
    assert v[NAMES[1]] == pytest.approx(warps * 8)
    assert v[NAMES[2]] == pytest.approx(warps * 8)
    props = kernel_properties(pair, granularity="subgroup", subgroup_size=32)
    assert sector_sharing(props.access_model, props.group_size) == \
        {("a", Direction.LOAD): 0.25, ("out", Direction.STORE): 0.5}


def test_catalog_kernels_by_stride_and_group():
    names = ["f_mem_access_global_float32_load_sectors",
             "f_mem_access_global_float64_load_sectors"]
    per_item = {}
    for variant in ("stride1", "stride2", "stride3"):
        _, v = kernel_feature_values("vector_scale_add", names[:1], {"n": 1 << 20},
                                     variant=variant, group_size=(256,), subgroup_size=32)
        per_item[variant] = v[names[0]] / (1 << 20) * 32 / 2     # two loads a work item
    assert per_item == {"stride1": 4, "stride2": 8, "stride3": 12}
    for group, sectors in (((16, 16), 16), ((32, 16), 32)):   # transposed reads
        _, v = kernel_feature_values("transpose", names[1:], {"n": 1024},
                                     variant="read_strided", dtype="float64",
                                     group_size=group, subgroup_size=32)
        assert v[names[1]] == 1024 * 1024 // 32 * sectors


def test_sectors_part_of_the_grammar():
    ref = parse_feature_ref("f_mem_access_global_float32_store_lstrides:{0:>1}_sectors")
    assert ref.sectors and not ref.bank_passes and ref.lstrides[0][0] == 0
    _, v = kernel_feature_values("transpose", ["f_mem_access_local_float32_load_sectors"],
                                 {"n": 1024}, variant="prefetch", group_size=(16, 16),
                                 subgroup_size=32)
    assert v["f_mem_access_local_float32_load_sectors"] == 0    # global accesses only
    with pytest.raises(ModelError):
        parse_feature_ref("f_mem_access_global_sectors_float32")   # parts out of order


def test_dram_sectors_divide_dense_sectors_by_the_arrays_utilization():
    dram = ["f_mem_access_global_float64_load_sectors",
            "f_mem_access_global_float64_load_dramsectors"]
    # a transposed read of a dense array: 16 sectors a warp requested, 4 x 8 B x 32
    # lanes = 8 sectors from DRAM (other warps read the rest of each sector)
    _, v = kernel_feature_values("transpose", dram, {"n": 1024}, variant="read_strided",
                                 dtype="float64", group_size=(16, 16), subgroup_size=32)
    warps = 1024 * 1024 // 32
    assert (v[dram[0]], v[dram[1]]) == (warps * 16, warps * 8)
    # a stride-5 read of an array a fifth used needs every sector it requests
    names = [n.replace("float64", "float32") for n in dram]
    _, v = kernel_feature_values(_strided("out[i] = 2*a[5*i]", 5), names, {"n": 4096},
                                 subgroup_size=32)
    assert v[names[0]] == 4096 // 32 * 20
    assert v[names[1]] == pytest.approx(v[names[0]], rel=1e-3)   # filled: 5n - 4
    # a loop over the two rows of a column-major (2, n) array: stride 2 a load, 8
    # sectors requested, the array fully used: 4 from DRAM
    _, v = kernel_feature_values("filled_access", names, {"n": 1 << 16}, variant="stride2",
                                 group_size=(256,), subgroup_size=32)
    assert v[names[1]] == pytest.approx(v[names[0]] / 2)
    assert parse_feature_ref("f_mem_access_global_float32_store_dramsectors").dram_sectors


def test_the_sectors_model_prices_interleaved_complex_numbers_as_split_arrays():
    from workbench.kernels.candidate import Candidate
    from workbench.models import load_model

    model = load_model("sample_data/h100/weights-overlap-fp64-sectors.json")
    assert "f_mem_access_global_float32_load_afr:<=1_dramsectors" in model.spec.features
    params = (("n", 1 << 24),)
    interleaved, split = model.predict_candidates(
        [Candidate("complex_axpy", v, (256,), params, "float32")
         for v in ("interleaved", "split")]).seconds
    assert interleaved == pytest.approx(split, rel=0.02)


def _brute_force_sectors(index, n, itemsize=4, warp=32):
    """Mean over the warps of a 1-D launch of the sectors their lanes' elements touch."""
    per_warp = [len({index(i) * itemsize // 32 for i in range(w, w + warp)})
                for w in range(0, n, warp)]
    return float(np.mean(per_warp))


def test_an_index_that_divides_the_work_item_is_counted_from_its_lanes():
    # loopy's stride collector drops the denominator of ``i // 2`` (it warns so) and
    # calls the lanes one element apart: 4 sectors a warp, where they touch 2
    names = NAMES[1:2]
    halves = _strided("out[i] = 2*a[i // 2]", 1)
    _, v = kernel_feature_values(halves, names, {"n": 4096}, subgroup_size=32)
    assert v[names[0]] == pytest.approx(4096 // 32 * _brute_force_sectors(
        lambda i: i // 2, 4096)) == 4096 // 32 * 2
    # a resize's uneven steps, and its companion at +1 sharing the sectors
    thirds = _strided("out[i] = a[(2*i) // 3] + a[(2*i) // 3 + 1]", 1)
    _, v = kernel_feature_values(thirds, names, {"n": 4096}, subgroup_size=32)
    both = [len({e * 4 // 32 for i in range(w, w + 32) for e in (2 * i // 3, 2 * i // 3 + 1)})
            for w in range(0, 4096, 32)]
    assert v[names[0]] == pytest.approx(sum(both), rel=0.1)
