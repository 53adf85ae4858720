"""Round 10 of the time-tiling extension (issue 34): the device driver measures a
stage's points in the plan's order, and the shipped plan holds what the
pre-registration in docs/time-tiling.md names."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"


def _driver():
    spec = importlib.util.spec_from_file_location(
        "h100_hexagonal_round10", ROOT / "scripts" / "h100_hexagonal_round10.py")
    module = importlib.util.module_from_spec(spec)
    before = list(sys.path)
    try:
        spec.loader.exec_module(module)     # it puts scripts/ on the path for its driver
    finally:
        sys.path[:] = before
    return module


def test_in_order_asks_for_the_plans_labels_in_their_order():
    from workbench.kernels.timetiled import hexspaces

    space = hexspaces.hexagonal_space("jacobi2d", S1=128, S2=128, T=16)
    points = space.points()
    wanted = [points[7].label, "tT=2,tS1=99,tS2=64,bx=64,by=1", points[2].label,
              points[5].label]
    strategy = _driver().InOrder(wanted)
    strategy.start(space, points)
    asked = []
    while (p := strategy.ask()) is not None:
        asked.append(p.label)
    assert asked == [wanted[0], wanted[2], wanted[3]]     # a label not in the space: skipped


def test_shipped_plan_measures_round9s_picks_then_whole_baseline_sets():
    from workbench.kernels.timetiled import hexspaces

    plan = json.loads((H100 / "hexagonal-round10-plan.json").read_text())
    round9 = json.loads((H100 / "hexagonal-round9-picks-plan.json").read_text())
    kinds = [s["kind"] for s in plan["stages"]]
    assert kinds == ["chosen-round7"] * 3 + ["baseline"] * 3
    for stage in plan["stages"]:
        sizes = stage["sizes"]
        key = f"{stage['stencil']} " + ",".join(f"{k}={v}" for k, v in sizes.items())
        if stage["kind"] == "chosen-round7":
            assert stage["labels"] == round9[key]["chosen-round7"]
        else:
            whole = {p.label for p in hexspaces.hexagonal_space(
                stage["stencil"], baseline=1, **sizes).points()}
            assert len(stage["labels"]) == len(whole) == 204
            assert set(stage["labels"]) == whole
    assert [s["leave_s"] for s in plan["stages"][3:]] == [0, 30, 0]
