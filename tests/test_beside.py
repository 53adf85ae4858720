"""The host's share of measuring beside a replayed ranking (workbench.tuning.beside)."""

from __future__ import annotations

import os
import threading
import time
import warnings

import pytest

from workbench.errors import TuningError
from workbench.measure.store import Status
from workbench.tuning.beside import HostWork, busy_outside_lock, ranking_beside
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.space import TuningSpace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tiny_space() -> TuningSpace:
    import loopy as lp
    import numpy as np

    def kernel(p):
        knl = lp.make_kernel("{[i]: 0 <= i < 1024}", "y[i] = 2*x[i]",
                             [lp.GlobalArg("x, y", np.float32, shape=(1024,))],
                             name="tiny", lang_version=(2018, 2))
        return lp.split_iname(knl, "i", p["g"], outer_tag="g.0", inner_tag="l.0")

    return TuningSpace(name="tiny", description="tiny", tune_params={"g": (32, 64, 128)},
                       restrictions=(), group_size=lambda p: (p["g"],), problem={},
                       kernel=kernel)


def recorded(space, build: float, run: float) -> dict[str, Evaluation]:
    return {p.label: Evaluation(p, Status.OK, 1e-3, {Cost.BUILD: build, Cost.RUN: run})
            for p in space.points()}


def test_host_work_prepares_each_point_then_pays_its_recorded_build_and_run():
    space = tiny_space()
    points = space.points()
    work = HostWork(space, points, recorded(space, build=0.03, run=0.02))
    assert work.space is not space          # the ranking is given none of its work
    with work:
        deadline = time.perf_counter() + 60
        while work.share.points < len(points) and time.perf_counter() < deadline:
            time.sleep(0.01)
    share = work.share
    assert share.points == len(points)
    assert share.build_s == pytest.approx(0.03 * len(points))
    assert share.run_s == pytest.approx(0.02 * len(points))
    assert share.prepare_s > 0


def test_host_work_stops_when_the_ranking_is_done():
    space = tiny_space()
    with ranking_beside(space, space.points(), recorded(space, build=0.0, run=30.0)) as share:
        deadline = time.perf_counter() + 60
        while share.prepare_s == 0 and time.perf_counter() < deadline:
            time.sleep(0.01)
        began = time.perf_counter()
    # left while the first point's 30 s of device time were being waited out
    assert time.perf_counter() - began < 5
    assert share.points == 1


def test_the_busy_wait_lets_another_thread_run():
    counted = [0]
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            counted[0] += 1

    other = threading.Thread(target=count)
    other.start()
    began = time.perf_counter()
    busy_outside_lock(0.2)
    spent = time.perf_counter() - began
    stop.set()
    other.join()
    assert spent >= 0.2
    assert counted[0] > 0


def test_the_study_charges_every_row_the_ranking_timed_beside_the_host_share():
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations
    from workbench.tuning.study import compare_strategies

    warnings.filterwarnings("ignore")
    space = resolve_space(f"{ROOT}/examples/spaces/rowsum.py:space")
    evaluator = ReplayEvaluator(space, load_space_evaluations(
        f"{ROOT}/sample_data/h100/user-spaces.sqlite", space))
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    with pytest.raises(TuningError, match="overlap_charge"):
        compare_strategies(space, evaluator, {"linear": model}, tpe_seeds=0,
                           overlap_charge="later")
    table = compare_strategies(space, evaluator, {"linear": model}, tpe_seeds=0,
                               guided=(), early=True,
                               overlap_charge="beside").frame().set_index("strategy")
    for row in ("model:linear", "model:linear+early"):
        assert "ranked beside the host's share of measuring" in \
            table.loc[row, "choosing_charged"]
    assert table.loc["model:linear+early", "choosing_s"] == \
        table.loc["model:linear", "choosing_s"]
