"""Round 19 of issue #34: arithmetic that computes global loads' addresses."""

from workbench.kernels.candidate import Candidate


def test_a_gathers_coordinate_arithmetic_is_address_arithmetic():
    """affine_warp (heldout16) computes its source coordinate from (i, j) in floating
    point before its four loads: four additions a work item (two a coordinate), the
    interpolation's arithmetic none; a stencil's loads depend on no arithmetic."""
    from workbench.models.address_arithmetic import address_arithmetic_values

    warp = Candidate("affine_warp", "gray", (16, 16), (("m", 256), ("n", 256)), "float32")
    life = Candidate("game_of_life", "life", (16, 16), (("m", 256), ("n", 256)), "float32")
    v = address_arithmetic_values([warp, life], "any")
    subgroups = 256 * 256 / 32
    assert v["f_op_float32_address_add"][0] == 4 * subgroups
    assert v["f_op_float64_address_add"][0] == 0.0
    for name, values in v.items():
        assert values[1] == 0.0, name
