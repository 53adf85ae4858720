"""Round 10 of issue #34: rows walked along one work item, and the error function."""

import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"


def _walk(variant: str, n: int, cols: int, dtype: str = "float32") -> Candidate:
    return Candidate("row_walk", variant, (128,), (("cols", cols), ("n", n)), dtype)


def test_a_row_walked_by_one_work_item_is_one_sector_a_lane_and_access():
    # rows of a 16-wide group that read the same row of w share its sectors
    layer = Candidate("dense_layer", "out_major", (16, 16), (("m", 512), ("n", 512)))
    from workbench.models.row_walk_features import row_walk_values as values

    assert values([layer], DEVICE)["f_walk_float32_load_sectors"][0] == 512 * 512 * 256 / 2
    # ... in float32; a warp's 8-byte loads are two half-warps, each its own sectors
    wide = Candidate("dense_layer", "out_major", (16, 16), (("m", 512), ("n", 512)),
                     "float64")
    assert values([wide], DEVICE)["f_walk_float64_load_sectors"][0] == 512 * 512 * 256
    from workbench.models.row_walk_features import row_walk_values

    rows = [_walk("sum", 1024, 64), _walk("fill", 1024, 64, "float64"),
            _walk("copy", 1024, 16), _walk("copy", 1024, 16, "float64"),
            Candidate("vector_scale_add", "stride1", (128,), (("n", 2 ** 14),)),
            Candidate("transpose", "write_strided", (16, 16), (("n", 512),))]
    v = row_walk_values(rows, DEVICE)
    assert v["f_walk_float32_load_sectors"][0] == 1024 * 64
    assert v["f_walk_float32_store_sectors"][0] == 0.0          # one store a row
    assert v["f_walk_float64_store_sectors"][1] == 1024 * 64
    assert v["f_walk_float64_load_sectors"][1] == 0.0           # one load a row
    # float32 rows of 16 are 64 bytes: a sector a lane, but two lanes share a line
    assert v["f_walk_float32_load_sectors"][2] == 1024 * 16
    from workbench.models.floors import floors_of_device

    floors = floors_of_device(DEVICE)
    # one line a cycle per SM, on the 8 SMs of 8 groups (1024 rows, groups of 128)
    per_s = 8 * floors.clock_hz
    assert v["f_l1_walk_s"][0] == pytest.approx(1024 * 64 / per_s)
    assert v["f_l1_walk_s"][2] == pytest.approx(1024 * 16 / 2 / per_s)
    assert v["f_l1_walk_s"][1] == 0.0                # stores are not L1 wavefronts
    assert v["f_walk_float64_store_sectors"][3] == 1024 * 16
    # a stream, and a transpose's strided stores (no loop walks a lane's line): none
    for name in ("f_walk_float32_load_sectors", "f_walk_float32_store_sectors"):
        assert v[name][4] == v[name][5] == 0.0


def test_erf_and_erfc_calls_are_counted_per_subgroup():
    from workbench.models.row_walk_features import row_walk_values

    chain = Candidate("erfc_chain", "default", (128,), (("n", 4096), ("rounds", 4)),
                      "float64")
    v = row_walk_values([chain, _walk("sum", 1024, 64)], DEVICE)
    assert v["f_op_float64_erfc"][0] == 4096 * 4 / 32
    assert v["f_op_float32_erfc"][1] == v["f_op_float64_erfc"][1] == 0.0


@pytest.mark.parametrize("name, variant", [("row_walk", "sum"), ("row_walk", "fill"),
                                           ("row_walk", "copy"), ("erfc_chain", "default")])
def test_the_microbenchmarks_match_their_references_on_pocl(name, variant, queue):
    import numpy as np

    from workbench.kernels import all_kernels, get_kernel
    from workbench.kernels.base import BuildRequest, DType, KernelRole

    spec = get_kernel(name)
    assert spec.role is KernelRole.MEASUREMENT
    assert name not in {s.name for s in all_kernels()}
    dtype = DType.parse("float64")
    params = spec.check_params
    inputs = spec.inputs(params, dtype, np.random.default_rng(3), variant)
    knl = spec.build(BuildRequest(variant, dtype, (32,)))
    _, outs = knl(queue, **inputs, **params)
    (_, expected), = spec.expected(inputs, params, variant).items()
    np.testing.assert_allclose(outs[0], expected, rtol=1e-10)


def test_a_group_narrower_than_a_warp_is_one_warp_a_group():
    # a 16-lane group runs as one warp of 16 lanes: as many instructions as a 32-lane
    # group has for twice the work items, each lane still a sector of its own
    from workbench.models.row_walk_features import row_walk_values

    narrow = [_walk("sum", 2 ** 16, 64), Candidate("row_walk", "sum", (16,),
                                                    (("cols", 64), ("n", 2 ** 16))),
              Candidate("erfc_chain", "default", (16,), (("n", 4096), ("rounds", 4)),
                        "float64")]
    v = row_walk_values(narrow, DEVICE)
    assert v["f_walk_float32_load_sectors"][1] == v["f_walk_float32_load_sectors"][0] \
        == 2 ** 16 * 64
    assert v["f_l1_walk_s"][1] == v["f_l1_walk_s"][0]
    assert v["f_op_float64_erfc"][2] == 4096 * 4 / 16


def test_a_launch_of_fewer_groups_than_sms_walks_on_as_many_sms_as_groups():
    # 1024 rows in groups of 128: 8 groups, so 8 of the H100's 132 SMs serve the lines
    from workbench.models.floors import floors_of_device
    from workbench.models.row_walk_features import row_walk_values

    floors = floors_of_device(DEVICE)
    v = row_walk_values([_walk("sum", 1024, 64), _walk("sum", 2 ** 20, 64)], DEVICE)
    assert v["f_l1_walk_s"][0] == pytest.approx(1024 * 64 / 8 / floors.clock_hz)
    # a launch of many waves: an even share of every SM, as before
    assert v["f_l1_walk_s"][1] == pytest.approx(2 ** 20 * 64 / floors.sms / floors.clock_hz)


def test_a_row_held_in_registers_is_walked_once():
    """Round 19: sigma_clip_rows (heldout16) reads its row of 40 samples in three loops;
    its build keeps the row in registers (92 and 179 a work item), so only the first
    pass walks it (f_l1_walk_held_s a third of f_l1_walk_s); with the estimate's
    registers (32 and 39) every pass does, as heldout11's cross_entropy_rows (128
    samples at 32 registers) walks each pass."""
    from pathlib import Path

    from workbench.models import occupancy_features
    from workbench.models.occupancy_features import build_info_in_use, use_build_info
    from workbench.models.row_walk_features import row_walk_values

    n = 1 << 12
    rows = [Candidate("sigma_clip_rows", "mean", (256,), (("n", n),), d)
            for d in ("float32", "float64")]
    before = build_info_in_use()
    try:
        use_build_info(None)
        v = row_walk_values(rows, DEVICE)
        assert list(v["f_l1_walk_held_s"]) == list(v["f_l1_walk_s"])
        assert v["f_walk_float32_load_sectors"][0] == 3 * n * 40
        use_build_info([str(Path(__file__).parents[1] / "sample_data" / "h100"
                            / "build-info-heldout16.json.xz")])
        held = row_walk_values(rows, DEVICE)
        assert list(held["f_l1_walk_s"]) == list(v["f_l1_walk_s"])    # round 18's, as it was
        assert held["f_l1_walk_held_s"] == pytest.approx(v["f_l1_walk_s"] / 3)
        assert held["f_l1_walk_s"][0] > 0
    finally:
        use_build_info(None)
        occupancy_features._IN_USE.extend(before)


def _batched_gemv(reverse_inames: bool) -> Candidate:
    """y_e = A_e x_e for 1024 float32 matrices of 32 x 32, two a group (l.1), a row of
    A_e a work item (l.0, walked by the dot product's loop), x_e first copied to local
    memory by a prefetch whose own lane iname is tagged l.0 too (heldout_batched_gemv's
    mpg=2,rpi=1,local=1); ``reverse_inames``: the same kernel with its inames in the
    other order, as another build of it may keep them."""
    import loopy as lp
    import numpy as np

    from workbench.kernels.user import spec_from_loopy

    knl = lp.make_kernel(
        "{[e, i, j]: 0 <= e < 1024 and 0 <= i, j < 32}",
        "y[e, i] = sum(j, a[e, i, j] * x[e, j])",
        [lp.GlobalArg("a", np.float32, shape=(1024, 32, 32)),
         lp.GlobalArg("x", np.float32, shape=(1024, 32)),
         lp.GlobalArg("y", np.float32, shape=(1024, 32), is_output=True)],
        name="batched_gemv", lang_version=(2018, 2))
    knl = lp.split_iname(knl, "e", 2, outer_tag="g.0", inner_tag="l.1")
    knl = lp.tag_inames(knl, {"i": "l.0"})
    knl = lp.add_prefetch(knl, "x", ["e_inner", "j"], fetch_outer_inames="e_outer",
                          temporary_address_space=lp.AddressSpace.LOCAL,
                          default_tag=None)
    knl = lp.tag_inames(knl, {"x_dim_0": "l.1", "x_dim_1": "l.0"})
    if reverse_inames:
        entry = knl.default_entrypoint
        knl = knl.with_kernel(entry.copy(inames=dict(reversed(entry.inames.items()))))
    spec = spec_from_loopy(knl, name=f"batched_gemv_{int(reverse_inames)}")
    return Candidate(spec, "default", spec.fixed_group_size, (), "float32")


def test_the_walk_does_not_depend_on_the_order_of_a_kernels_local_inames():
    """A prefetch's lane iname (l.0) beside the main instruction's: the main
    instruction's loads of A_e are walked (each work item its own row of 128 bytes,
    the dot product's loop stepping along it) whichever of the two the kernel lists
    last.  Before the fix the kernel's last l.0 iname served every instruction, so
    one order found the walk and the other none (heldout_batched_gemv's walk sectors
    zeroed at 34 and at 10 of its points in two build orders)."""
    from loopy.kernel.data import LocalInameTag

    from workbench.kernels.base import entry_kernel
    from workbench.models.row_walk_features import row_walk_values

    pair = [_batched_gemv(False), _batched_gemv(True)]
    orders = [[n for n, iname in entry_kernel(c.spec.build(c.request())).inames.items()
               if any(isinstance(t, LocalInameTag) and t.axis == 0 for t in iname.tags)]
              for c in pair]
    assert orders[0] == orders[1][::-1] and len(orders[0]) == 2   # the two orders
    v = row_walk_values(pair, DEVICE)
    # 1024 matrices of 32 rows of 32: a sector a lane and element of A
    assert list(v["f_walk_float32_load_sectors"]) == [1024 * 32 * 32] * 2
    for name in ("f_l1_walk_s", "f_l1_walk_held_s", "f_walk_float32_store_sectors"):
        assert v[name][0] == v[name][1]
    assert v["f_l1_walk_s"][0] > 0
