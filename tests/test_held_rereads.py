"""Round 20 of issue #34: global loads that re-read values the work item holds in registers."""

import pytest

from workbench.kernels.candidate import Candidate


def _held(name, variant, group, params, dtype, registers):
    from workbench.models.expressions.feature_values import kernel_feature_values
    from workbench.models.held_rereads import held_sectors

    c = Candidate(name, variant, group, params, dtype)
    held = held_sectors(c, registers)
    sectors = f"f_mem_access_global_{dtype}_load_sectors"
    _, total = kernel_feature_values(name, [sectors], dict(params), variant=variant,
                                     dtype=dtype, group_size=group, subgroup_size=32)
    return held, total[sectors]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dct8_loads_its_block_of_eight_once_for_its_eight_sums(dtype):
    """heldout17's dct8_blocks: loopy counts 64 load sectors a work item (8 sums of 8
    values), the build loads the 8 values once and keeps them in registers."""
    held, total = _held("dct8_blocks", "orthonormal", (256,), (("n", 4096),), dtype, 64)
    items = 4096
    assert total == 64 * items
    assert held[dtype] == pytest.approx(56 * items)
    assert sum(held.values()) == pytest.approx(held[dtype])
    # too few registers for the block's 8 values: nothing held
    assert sum(_held("dct8_blocks", "orthonormal", (256,), (("n", 4096),), dtype,
                     float("nan"))[0].values()) == 0.0


def test_a_row_read_in_three_loops_is_loaded_once_where_registers_hold_it():
    """heldout16's sigma_clip_rows: three passes over a row of 40 samples (the third's
    two loads of a sample counted once, as the sector features count them) at 92
    registers a work item; at 32 registers (fewer than the row's 40 words) none."""
    params = (("n", 4096),)
    held, total = _held("sigma_clip_rows", "mean", (256,), params, "float32", 92)
    assert total == 120 * 4096
    assert held["float32"] == pytest.approx(80 * 4096)
    assert _held("sigma_clip_rows", "mean", (256,), params, "float32", 32)[0]["float32"] == 0.0


@pytest.mark.parametrize("name, variant, group, params", [
    ("cross_entropy_rows", "smoothed", (256,), (("nr", 4096),)),   # 128 samples a row
    ("rms_norm_rows", "row_major", (256,), (("nr", 4096),)),       # 64 samples a row
    ("matmul_naive", "default", (16, 16), (("n", 256),)),         # other work items' loads
    # d[i] and d[j]: two elements a work item, one only for the work items i = j
    ("diag_scale_matrix", "symmetric", (16, 16), (("m", 256), ("n", 256))),
])
def test_rows_beyond_the_registers_and_other_items_rereads_are_not_held(name, variant, group,
                                                                        params):
    held, _ = _held(name, variant, group, params, "float32", 32)
    assert sum(held.values()) == 0.0


def test_the_walk_bound_walks_a_held_block_once_for_its_sums():
    """The walked-row bound (``f_l1_walk_held_s``) charges dct8_blocks' block of 8 once,
    not once an output (``f_l1_walk_s``, round 18's, is unchanged)."""
    from workbench.models.row_walk_features import walk_and_erf

    c = Candidate("dct8_blocks", "orthonormal", (256,), (("n", 4096),), "float32")
    _, (lines, held_lines), _, _ = walk_and_erf(c, 64)
    assert lines > 0
    assert held_lines == pytest.approx(lines / 8)
    assert walk_and_erf(c)[1] == (lines, lines)   # registers unknown: nothing held


def test_the_held_values_of_all_arrays_together_must_fit_the_registers():
    """unseen's batched_small_gemm at 16x16: a work item re-reads 64 values of A and 64
    of B over its passes; each alone fits 64 registers, both do not: none held."""
    params = (("nb", 64),)
    held, _ = _held("batched_small_gemm", "direct", (16, 16), params, "float32", 64)
    assert sum(held.values()) == 0.0
    held, _ = _held("batched_small_gemm", "direct", (16, 16), params, "float32", 128)
    assert held["float32"] > 0.0
