"""Which knobs split a space into structures where it declares its structure (issue #33):
a knob that takes a value no power of which is defined is structural too."""

from __future__ import annotations

from workbench.tuning import TuningSpace


def test_a_declared_structure_takes_a_knob_no_monomial_takes():
    """The catalog transpose declares ``structure=("tile",)`` and has ``pad`` of 0 or
    1: planning its structures (the streamed ranking's order, the early start's base)
    divided by a pad of 0 (``workbench tuning-report --space transpose`` stopped with a
    ZeroDivisionError); pad is structural now, in a factory space with a declared
    structure too."""
    from workbench.models.structure_counts import StructurePlan, structural_knobs
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.early import structure_plans

    transpose = resolve_space("transpose")
    assert structural_knobs(transpose) == ("tile", "pad")
    plans = structure_plans(transpose, transpose.points())
    assert {dict(key)["pad"] for key, _, _ in plans} == {0, 1}
    assert all(isinstance(plan, StructurePlan) for _, _, plan in plans)
    factory = TuningSpace(
        name="declared", description="numbers only",
        tune_params={"gs": (32, 64), "pad": (0, 1), "layout": ("aos", "soa"), "w": (1, 2)},
        structure=("layout",), group_size=lambda p: (p["gs"],), kernel=lambda p: None)
    assert structural_knobs(factory) == ("layout", "pad")
