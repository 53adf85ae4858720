"""A blocked order's work per item moves its accesses' class (frac2of2 at 2, frac4of4 at
4, frac4ofgt4 from 8): the structure is fitted across that knob on renamed classes,
exact, with fewer points counted than a split by its values; where the count itself
changes with the class, or the classes do not map one to one, it is still exact.
Numbers only, no kernels (structure_rename)."""

from __future__ import annotations

from test_structure_joint_exact import assert_exact_fit, fit_from_truth

from workbench.models.structure_rename import access_classes, class_swaps, rename
from workbench.tuning import TuningSpace

N = 1 << 20
HEAD = "workitem/None|f_mem_access_global_float32"


def _blocked_points():
    space = TuningSpace(
        name="blocked", description="numbers only",
        tune_params={"gs": (32, 64, 128, 256, 512), "wpi": (2, 4, 8, 16, 32)},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None)
    return space.points()


def _cls(wpi: int) -> str:
    return {2: "frac2of2", 4: "frac4of4"}.get(wpi, "frac4ofgt4")


def _triad(p, jump: float = 1.0) -> dict:
    """A blocked triad's counts: every element loaded twice and stored once whatever
    the work per item, filed under the class its stride gives (``jump``: the loads
    from wpi 8 on multiplied, a count that changes with its class)."""
    c = _cls(p["wpi"])
    loads = 2.0 * N * (jump if p["wpi"] >= 8 else 1.0)
    return {f"{HEAD}_load": loads, f"{HEAD}_store": float(N),
            f"{HEAD}_load_{c}": loads, f"{HEAD}_store_{c}": float(N),
            "workitem/None|f_op_float32_mul": float(N),
            "workitem/None|f_thread_groups": N / (p["gs"] * p["wpi"])}


def test_classes_renamed_and_back():
    found = {f"{HEAD}_load_frac4of4": 3.0, f"{HEAD}_store_frac4of4": 1.0,
             f"{HEAD}_load": 3.0, f"{HEAD}_store_stride1": 0.0}
    assert access_classes(found) == {"frac4of4"}   # a zero count is no count
    renamed = rename(found, {"frac4of4": "frac2of2"})
    assert renamed == {f"{HEAD}_load_frac2of2": 3.0, f"{HEAD}_store_frac2of2": 1.0,
                       f"{HEAD}_load": 3.0, f"{HEAD}_store_stride1": 0.0}
    assert rename(renamed, {"frac2of2": "frac4of4"}) == found


def test_swaps_need_one_class_for_one_and_agreeing_points():
    points = _blocked_points()
    counted = {p: _triad(p) for p in points if p["gs"] == 64}
    assert class_swaps(points, "wpi", counted, 2) == {
        2: {}, 4: {"frac4of4": "frac2of2"}, 8: {"frac4ofgt4": "frac2of2"},
        16: {"frac4ofgt4": "frac2of2"}, 32: {"frac4ofgt4": "frac2of2"}}
    # a value no point of which is counted: no swaps yet
    assert class_swaps(points, "wpi", {p: v for p, v in counted.items() if p["wpi"] != 16},
                       2) is None
    # two points of one value with other classes (a lane width that moves it too)
    odd = next(p for p in points if p["gs"] == 128 and p["wpi"] == 4)
    assert class_swaps(points, "wpi", {**counted, odd: _triad({"gs": 128, "wpi": 2})},
                       2) is None
    # two classes in for one out
    two = {p: {**v, f"{HEAD}_store_stride1": 1.0} if p["wpi"] == 8 else v
           for p, v in counted.items()}
    assert class_swaps(points, "wpi", two, 2) is None


def test_a_blocked_order_is_fitted_across_its_work_per_item():
    points = _blocked_points()
    fit, counted = fit_from_truth(points, _triad, lanes=("gs",))
    assert_exact_fit(fit, _triad)
    reasons = " ".join(r[4] for r in fit.report())
    assert "fitted across wpi with classes renamed" in reasons, reasons
    # a split by wpi counted at least four of the five points of each value (20 of 25)
    assert len(counted) <= 14, (len(counted), reasons)


def test_a_count_that_changes_with_its_class_is_still_exact():
    points = _blocked_points()

    def truth(p):
        return _triad(p, jump=1.5)

    fit, _ = fit_from_truth(points, truth, lanes=("gs",))
    assert_exact_fit(fit, truth)


def test_classes_that_do_not_map_one_to_one_split_as_before():
    points = _blocked_points()

    def truth(p):
        out = _triad(p)
        if p["wpi"] == 8:
            out[f"{HEAD}_store_stride1"] = 5.0
        return out

    fit, _ = fit_from_truth(points, truth, lanes=("gs",))
    assert_exact_fit(fit, truth)
    assert not any("classes renamed" in r[4] for r in fit.report())
