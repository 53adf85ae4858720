"""Round 14 of #34: partial store sectors and isolated load sectors
(workbench.models.scattered_access_features)."""

from __future__ import annotations

import loopy as lp
import numpy as np
import pytest

from workbench.kernels.candidate import Candidate
from workbench.kernels.user import spec_from_loopy
from workbench.models.expressions.features import DeviceFeature, parse_feature_ref
from workbench.models.scattered_access_features import scattered_sectors, scattered_values

N = 1 << 16
WARPS = N // 32


def _candidate(knl, dtype="float32"):
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    return Candidate.of(spec_from_loopy(knl), {"n": N}, dtype=dtype, group_size=(256,))


def _read(stride, dtype=np.float32, reads=1):
    body = " + ".join(f"inp[{stride} * i + {k}]" for k in range(reads))
    return _candidate(lp.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = {body}",
        [lp.GlobalArg("inp", dtype, shape=(f"{stride} * n",)),
         lp.GlobalArg("out", dtype, shape=("n",)), lp.ValueArg("n", np.int32)],
        name=f"read{stride}_{reads}", lang_version=(2018, 2), assumptions="n >= 1"),
        np.dtype(dtype).name)


def _store(fields, aos, dtype=np.float32):
    lines = [(f"out[i, {k}]" if aos else f"out[{k}, i]") + f" = v + {k}" for k in range(fields)]
    return _candidate(lp.make_kernel(
        "{[i]: 0 <= i < n}", "\n".join(["<> v = inp[i]", *lines]),
        [lp.GlobalArg("inp", dtype, shape=("n",)),
         lp.GlobalArg("out", dtype, shape=("n", fields) if aos else (fields, "n")),
         lp.ValueArg("n", np.int32)],
        name=f"store{fields}_{aos}", lang_version=(2018, 2), assumptions="n >= 1",
        seq_dependencies=True), np.dtype(dtype).name)


def test_names_are_device_features():
    for name in ("f_partial_store_sectors", "f_isolated_load_sectors", "f_partial_store_lines"):
        assert isinstance(parse_feature_ref(name), DeviceFeature)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fields_of_a_structure_write_partial_sectors(dtype):
    # nine fields at stride 9: every lane writes its own sector, in part, nine times
    assert scattered_sectors(_store(9, True, dtype))["store"] == 9 * 32 * WARPS
    assert scattered_sectors(_store(9, False, dtype))["store"] == 0   # nine planes


def test_fields_whose_lanes_share_sectors_are_not_counted():
    # 12 or 24 bytes a lane: lanes share sectors (hsv_to_rgb's three fields run at the
    # rate of three planes on the H100); 16 bytes of float64 pairs: 32 apart, counted
    assert scattered_sectors(_store(3, True))["store"] == 0
    assert scattered_sectors(_store(3, True, np.float64))["store"] == 0
    assert scattered_sectors(_store(4, True, np.float64))["store"] == 4 * 32 * WARPS


def test_the_lines_of_partial_sectors_grow_with_the_lanes_distance():
    # round 15: 9 float32 fields (36 bytes a lane) span 9 lines a warp's store, 9 float64
    # fields 18, 16 float64 fields one line a lane; planes have no partial line
    assert scattered_sectors(_store(9, True))["lines"] == 9 * 9 * WARPS
    assert scattered_sectors(_store(9, True, np.float64))["lines"] == 9 * 18 * WARPS
    assert scattered_sectors(_store(16, True, np.float64))["lines"] == 16 * 32 * WARPS
    assert scattered_sectors(_store(16, False, np.float64))["lines"] == 0
    assert scattered_values([_store(9, True)], "H100")["f_partial_store_lines"][0] == \
        9 * 9 * WARPS


def test_a_lone_strided_store_is_left_to_the_store_sectors():
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "out[i, 0] = inp[i]",
        [lp.GlobalArg("inp", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n", 9)), lp.ValueArg("n", np.int32)],
        name="lone", lang_version=(2018, 2), assumptions="n >= 1")
    assert scattered_sectors(_candidate(knl))["store"] == 0


@pytest.mark.parametrize("stride, isolated", [(1, 0), (8, 0), (16, 32), (128, 32)])
def test_reads_of_a_sector_alone(stride, isolated):
    assert scattered_sectors(_read(stride))["load"] == isolated * WARPS


def test_float64_lanes_64_bytes_apart_are_isolated():
    assert scattered_sectors(_read(4, np.float64))["load"] == 0
    assert scattered_sectors(_read(8, np.float64))["load"] == 32 * WARPS


def test_reads_that_reach_most_of_the_array_are_not_isolated():
    # sixteen loads a work item read the whole 64-byte row: the neighbour is read
    assert scattered_sectors(_read(16, reads=16))["load"] == 0


def test_heldout11_cases():
    matrix = Candidate.of("axis_angle_rotate", {"n": N}, variant="matrix",
                          group_size=(256,))
    apply = Candidate.of("axis_angle_rotate", {"n": N}, variant="apply", group_size=(256,))
    european = Candidate.of("option_payoff_paths", {"npaths": N}, variant="european",
                            group_size=(256,))
    asian = Candidate.of("option_payoff_paths", {"npaths": N}, variant="asian",
                         group_size=(256,))
    values = scattered_values([matrix, apply, european, asian], "NVIDIA H100 80GB HBM3")
    assert values["f_partial_store_sectors"].tolist() == [9 * 32 * WARPS, 0, 0, 0]
    # one value of each 256-byte row; the asian rows are walked (row_walk_features)
    assert values["f_isolated_load_sectors"].tolist() == [0, 0, 32 * WARPS, 0]


@pytest.mark.parametrize("kernel, variant, param, says", [
    ("axis_angle_rotate", "matrix", "n=1048576", "store each field as an array of its own"),
    ("option_payoff_paths", "european", "npaths=1048576", "one value from a row"),
])
def test_explain_says_what_to_change_for_scattered_sectors(kernel, variant, param, says,
                                                           capsys):
    from workbench.cli.main import main

    assert main(["explain", kernel, "--variant", variant, "--param", param,
                 "--group-size", "256"]) == 0
    (line,) = [la for la in capsys.readouterr().out.splitlines()
               if la.startswith("to go faster:")]
    assert says in line


def _partial_by_hand(fields: int, size: int) -> tuple[int, int]:
    """(partial sectors, their 128-byte lines) of one warp's stores of an array of
    structures, field by field, at the fields' own byte addresses."""
    sectors = lines = 0
    for field in range(fields):
        written: dict[int, int] = {}
        for lane in range(32):
            start = (lane * fields + field) * size
            for byte in range(start, start + size):
                written[byte // 32] = written.get(byte // 32, 0) + 1
        partial = {s for s, n in written.items() if n < 32}
        sectors += len(partial)
        lines += len({s // 4 for s in partial})
    return sectors, lines


@pytest.mark.parametrize("fields, dtype", [(5, np.float64), (7, np.float64), (10, np.float32)])
def test_partial_lines_of_lanes_a_sector_and_a_fraction_apart(fields, dtype):
    # 40, 56 and 40 bytes between lanes: not a multiple of the 32-byte sector, each field
    # at its own offset in the structure
    sectors, lines = _partial_by_hand(fields, np.dtype(dtype).itemsize)
    got = scattered_sectors(_store(fields, True, dtype))
    assert (got["store"], got["lines"]) == (sectors * WARPS, lines * WARPS)
    assert lines < sectors


def _prefetched_store(fields: int, reverse_inames: bool) -> Candidate:
    """_store(fields, aos=True) with its input first copied to local memory by a
    prefetch whose own lane iname is tagged l.0 too; ``reverse_inames``: the same
    kernel with its inames in the other order, as another build of it may keep them."""
    lines = [f"out[i, {k}] = v + {k}" for k in range(fields)]
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", "\n".join(["<> v = inp[i]", *lines]),
        [lp.GlobalArg("inp", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n", fields)), lp.ValueArg("n", np.int32)],
        name=f"prefetched_store{fields}_{int(reverse_inames)}", lang_version=(2018, 2),
        assumptions="n >= 1", seq_dependencies=True)
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    knl = lp.add_prefetch(knl, "inp", ["i_inner"], fetch_outer_inames="i_outer",
                          temporary_address_space=lp.AddressSpace.LOCAL, default_tag=None)
    knl = lp.tag_inames(knl, {"inp_dim_0": "l.0"})
    if reverse_inames:
        entry = knl.default_entrypoint
        knl = knl.with_kernel(entry.copy(inames=dict(reversed(entry.inames.items()))))
    return Candidate.of(spec_from_loopy(knl), {"n": N}, dtype="float32", group_size=(256,))


def test_partial_stores_do_not_depend_on_the_order_of_a_kernels_local_inames():
    # the stores' lanes are their own instruction's l.0 iname, not the prefetch's,
    # whichever the kernel lists last (before: the kernel's last one served every
    # instruction, and the first of two equal kernels' answer was kept for both)
    pair = [_prefetched_store(9, False), _prefetched_store(9, True)]
    v = scattered_values(pair, "NVIDIA H100 80GB HBM3")
    assert list(v["f_partial_store_sectors"]) == [9 * 32 * WARPS] * 2
    assert v["f_partial_store_lines"][0] == v["f_partial_store_lines"][1] > 0
