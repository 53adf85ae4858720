"""A pool of counting processes forked and warmed before a ranking
(workbench.models.counting_pool): the ranking counts on it, nothing forked inside."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_warm_pool_counts_the_ranking_and_equals_counting_in_one_process(monkeypatch):
    import workbench.models.candidate_features as cf
    import workbench.models.counting_pool as counting_pool
    from workbench.models import load_model
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    model = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    ref = f"{ROOT}/examples/spaces/stencil3d_7pt.py:space"
    space = resolve_space(ref)
    cf.forget_counts(space)
    pool = counting_pool.fork_counting_pool([space], warm=cf.warm_up)
    assert pool is not None and pool.wait_ready() > 0 and pool.workers_cpu_s() > 0
    sent = []
    submit = pool.submit
    monkeypatch.setattr(pool, "submit", lambda key, s, p, *a: sent.append(p) or
                        submit(key, s, p, *a))
    forked = []
    monkeypatch.setattr(counting_pool, "CountingPool", lambda *a, **k: forked.append(a))
    try:
        warm = rank_space(model, space)
    finally:
        pool.close()
    assert sent and not forked and counting_pool.active_pool([space]) is None
    assert [r.method.value for r in warm.counting] == ["symbolic"]
    # the same space ranked in this process alone, in rounds
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    again = resolve_space(ref)
    cf.forget_counts(again)
    alone = rank_space(model, again)
    assert len(sent) == alone.counting[0].counted     # two processes: no speculation
    np.testing.assert_allclose(warm.predicted_s, alone.predicted_s, rtol=1e-12)
    assert cf.remembered_counts(space) == cf.remembered_counts(again)


def test_tune_forks_the_warm_pool_before_the_device_and_the_ranking_uses_it(
        monkeypatch, tmp_path, capsys):
    import json

    import workbench.models.counting_pool as counting_pool
    from workbench.cli.main import main
    from workbench.measure import list_devices

    try:
        if not list_devices():
            pytest.skip("no OpenCL device")
    except Exception:  # noqa: BLE001
        pytest.skip("no OpenCL device")
    warnings.filterwarnings("ignore")
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    pools, sent = [], []
    real_pool, submit = counting_pool.CountingPool, counting_pool.CountingPool.submit
    monkeypatch.setattr(counting_pool, "CountingPool", lambda *a, **k: pools.append(
        (a, k)) or real_pool(*a, **k))
    monkeypatch.setattr(real_pool, "submit", lambda self, *a: sent.append(a) or
                        submit(self, *a))
    assert main(["tune", f"{ROOT}/examples/kernels/my_space.py:space", "--strategy",
                 "model", "--weights", f"{ROOT}/sample_data/h100/weights-linear.json",
                 "--early-start", "--budget-evals", "2", "--store",
                 str(tmp_path / "s.sqlite"), "--no-progress", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["evaluations"] == 2
    # one pool, warmed, forked before the device was opened; the ranking counted on it
    assert len(pools) == 1 and pools[0][0][2] is not None and sent
    assert counting_pool.active_pool([]) is None


def _count_or_die(candidate, victim):
    """A count whose process dies at one point, as a worker killed mid-count does."""
    import signal

    if candidate.variant == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    return {"label": candidate.variant}, None


def test_a_worker_that_dies_mid_count_gives_its_point_back_failed(monkeypatch):
    import queue

    import workbench.models.counting_pool as counting_pool
    from workbench.tuning.catalog import resolve_space

    monkeypatch.setattr(counting_pool, "POLL_S", 0.05)
    space = resolve_space(f"{ROOT}/examples/spaces/stencil3d_7pt.py:space")
    points = list(space.points())[:6]
    victim = points[2].label
    pool = counting_pool.fork_counting_pool([space], jobs=2)
    try:
        results = queue.SimpleQueue()
        for key, point in enumerate(points):
            pool.submit(key, space, point, _count_or_die, (victim,), results)
        got = {}
        for _ in points:          # before, the victim's result never came: a hang
            key, found, error = pool.get(results)
            got[key] = (found, error)
        assert got[2] == ({}, counting_pool.LOST)
        assert all(got[k] == ({"label": p.label}, None)
                   for k, p in enumerate(points) if k != 2)
        # the pool replaced its worker and goes on counting, by run() as well
        again = pool.run([counting_pool.Candidate.of_point(space, p) for p in points[:2]],
                         _count_or_die, (victim,))
        assert sorted(again) == [(0, {"label": points[0].label}, None),
                                 (1, {"label": points[1].label}, None)]
    finally:
        pool.close()


def test_counting_in_rounds_survives_a_worker_that_dies(monkeypatch):
    import workbench.models.counting_pool as counting_pool
    from workbench.kernels.candidate import Candidate
    from workbench.tuning.catalog import resolve_space

    monkeypatch.setattr(counting_pool, "POLL_S", 0.05)
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    space = resolve_space(f"{ROOT}/examples/spaces/stencil3d_7pt.py:space")
    tasks = [Candidate.of_point(space, p) for p in list(space.points())[:5]]
    got = counting_pool.count_all(tasks, _count_or_die, tasks[3].variant)
    assert got[3] == ({}, counting_pool.LOST)
    assert [g for i, g in enumerate(got) if i != 3] == \
        [({"label": t.variant}, None) for i, t in enumerate(tasks) if i != 3]


def test_a_point_lost_with_its_worker_is_not_saved_as_uncountable(monkeypatch, tmp_path):
    import workbench.models.candidate_features as cf
    import workbench.models.count_cache as count_cache
    import workbench.models.counting_pool as counting_pool
    from workbench.tuning.catalog import resolve_space

    saved = []
    monkeypatch.setattr(count_cache, "cache_path", lambda: tmp_path / "counts.sqlite")
    monkeypatch.setattr(count_cache, "save", lambda *a: saved.append(a))
    space = resolve_space(f"{ROOT}/examples/spaces/stencil3d_7pt.py:space")
    lost, kept = list(space.points())[:2]
    cf._save_disk(space, "fingerprint", {lost: {}, kept: {}},
                  {lost: counting_pool.LOST, kept: "ValueError: not countable"})
    for thread in cf._SAVING:
        thread.join()
    (_, counts, errors, _), = saved
    key = count_cache.point_key
    assert key(lost, space.group_size(lost)) not in counts | errors
    assert errors == {key(kept, space.group_size(kept)): "ValueError: not countable"}
