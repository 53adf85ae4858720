"""Device-feature families computed on the counting processes (issue #33): a pool of two
workers gives every family the values one process gives, its probes are computed in
the workers (not here), and a compute that cannot be sent there is computed here."""

import functools
import math
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.test_device_structure import _space
from workbench.kernels.candidate import Candidate
from workbench.models.counting_pool import fork_counting_pool, pool_for
from workbench.models.device_structure import per_structure
from workbench.models.dependent_loads import dependent_load_values
from workbench.models.fma_pairs import fma_pair_values
from workbench.models.function_calls import function_call_values
from workbench.models.local_features import local_values
# the family's own function: occupancy_values remembers its last candidates' values
from workbench.models.occupancy_features import _occupancy_values
from workbench.models.address_arithmetic import address_arithmetic_values
from workbench.models.feature_rows import built_rows
from workbench.models.recurrence_features import recurrence_values
from workbench.models.reread_features import reread_values
from workbench.models.reuse_stack_features import stack_explog_values
from workbench.models.scattered_access_features import scattered_values
from workbench.models.substitution_features import substitution_values

H100 = "NVIDIA H100 80GB HBM3"


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", "off")
    monkeypatch.delenv("WORKBENCH_STRUCTURE_COUNTS", raising=False)
    # two workers compute the families here (by default only eight or more do)
    monkeypatch.setenv("WORKBENCH_DEVICE_POOL_FROM", "2")
    # two counting processes whatever this machine's cores (one core would mean none)
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "2")
    return monkeypatch


def _numbers(p) -> dict[str, float]:
    return {"threads": p["group"], "items": 65536 / p["per_item"],
            "both": 3 * p["group"] * p["per_item"] + 7}


def _noting_pid(c: Candidate, folder: str) -> dict[str, float]:
    # module level (sent to the workers by reference): says which process computed it
    Path(folder, f"{os.getpid()}-{c.point.label}").touch()
    return _numbers(c.point)


def _computed_by(folder: Path) -> tuple[set[int], set[str]]:
    names = [f.name.split("-", 1) for f in folder.iterdir()]
    return {int(pid) for pid, _ in names}, {label for _, label in names}


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)   # NaN equals NaN


@pytest.mark.parametrize("family", [fma_pair_values, local_values, _occupancy_values,
                                    stack_explog_values, function_call_values,
                                    dependent_load_values,
                                    # every point built: built_rows on the pool
                                    reread_values, scattered_values, recurrence_values,
                                    substitution_values, address_arithmetic_values])
def test_a_pool_of_two_computes_a_family_as_one_process(env, family):
    space = _space()
    env.setenv("WORKBENCH_RANK_JOBS", "1")
    alone = family([Candidate.of_point(space, p) for p in space.points()], H100)
    env.setenv("WORKBENCH_RANK_JOBS", "2")
    pooled = family([Candidate.of_point(space, p) for p in space.points()], H100)
    _same(pooled, alone)
    # every feature known somewhere: a family that failed at every point (NaN in both)
    # would be equal too
    assert all(np.isfinite(v).any() for v in alone.values()), alone


def test_the_probes_are_computed_in_the_workers(env, tmp_path):
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    got = per_structure(candidates, functools.partial(_noting_pid, folder=str(tmp_path)))
    assert got == [_numbers(c.point) for c in candidates]
    pids, labels = _computed_by(tmp_path)
    assert os.getpid() not in pids and pids
    # the probes only, as in one process: unroll=0's 12 points are fitted from fewer
    assert 0 < len([lb for lb in labels if "unroll=0" in lb]) < 12, labels


def test_a_pool_forked_ahead_computes_them(env, tmp_path):
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    pool = fork_counting_pool([space], jobs=2)
    try:
        pool.wait_ready()
        workers = {w.pid for w in pool.pool._pool}
        got = per_structure(candidates,
                            functools.partial(_noting_pid, folder=str(tmp_path)))
    finally:
        pool.close()
    assert got == [_numbers(c.point) for c in candidates]
    pids, _ = _computed_by(tmp_path)
    assert pids and pids <= workers


def test_a_main_function_is_computed_here(env):
    """A pool forked ahead cannot read a function ``__main__`` defined after its fork
    (its worker dies reading the task and the pool would wait for it for ever): such a
    function is computed in this process."""
    from workbench.models.counting_pool import _sendable

    def numbers(c):   # a script's function: defined in __main__ (it pickles)
        return _numbers(c.point)
    numbers.__module__, numbers.__qualname__ = "__main__", "late_numbers"
    env.setattr(sys.modules["__main__"], "late_numbers", numbers, raising=False)
    pickle.dumps(functools.partial(numbers))
    assert not _sendable(functools.partial(numbers))
    assert _sendable(functools.partial(_noting_pid, folder="x"))
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    pool = fork_counting_pool([space], jobs=2)
    try:
        pool.wait_ready()
        assert pool_for(space, functools.partial(numbers), len(candidates)) == (None, False)
    finally:
        pool.close()


def test_one_counting_process_computes_here(env, tmp_path):
    env.setenv("WORKBENCH_RANK_JOBS", "1")
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    got = per_structure(candidates, functools.partial(_noting_pid, folder=str(tmp_path)))
    assert got == [_numbers(c.point) for c in candidates]
    assert _computed_by(tmp_path)[0] == {os.getpid()}


def test_a_closure_is_computed_here(env):
    env.setenv("WORKBENCH_RANK_JOBS", "2")
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    seen = []

    def compute(c):       # a closure cannot be sent to another process
        seen.append(c.point)
        return {"root": math.sqrt(c.point["group"])}
    got = per_structure(candidates, compute)
    assert [g["root"] for g in got] == [math.sqrt(c.point["group"]) for c in candidates]
    assert seen


def test_a_build_report_in_use_keeps_them_here(env, tmp_path):
    from workbench.models import counting_pool

    env.setenv("WORKBENCH_RANK_JOBS", "2")
    env.setattr(counting_pool, "_HERE_WHEN", [lambda: True])
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    got = per_structure(candidates, functools.partial(_noting_pid, folder=str(tmp_path)))
    assert got == [_numbers(c.point) for c in candidates]
    assert _computed_by(tmp_path)[0] == {os.getpid()}


def test_built_rows_computes_every_point_in_the_workers(env, tmp_path):
    env.setenv("WORKBENCH_RANK_JOBS", "2")
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    nan = np.zeros(len(candidates))
    rows = list(built_rows(candidates, functools.partial(_noting_pid, folder=str(tmp_path)),
                           (nan,)))
    assert [(i, c, found) for i, c, found in rows] == \
        [(i, c, _numbers(c.point)) for i, c in enumerate(candidates)]
    pids, labels = _computed_by(tmp_path)
    assert os.getpid() not in pids and pids
    assert labels == {c.point.label for c in candidates}


def _raising_at_unroll(c: Candidate) -> dict[str, float]:
    if c.point["unroll"]:
        raise ValueError("no kernel")
    return _numbers(c.point)


def test_built_rows_on_the_workers_leaves_a_failed_point_unknown(env):
    env.setenv("WORKBENCH_RANK_JOBS", "2")
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    unknown = np.zeros(len(candidates))
    rows = list(built_rows(candidates, _raising_at_unroll, (unknown,)))
    assert [i for i, _, _ in rows] == [i for i, c in enumerate(candidates)
                                      if not c.point["unroll"]]
    assert [bool(np.isnan(v)) for v in unknown] == [bool(c.point["unroll"])
                                                    for c in candidates]


def test_fewer_workers_than_device_pool_from_compute_here(env, tmp_path):
    env.setenv("WORKBENCH_RANK_JOBS", "2")
    env.setenv("WORKBENCH_DEVICE_POOL_FROM", "8")
    space = _space()
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    got = per_structure(candidates, functools.partial(_noting_pid, folder=str(tmp_path)))
    assert got == [_numbers(c.point) for c in candidates]
    assert _computed_by(tmp_path)[0] == {os.getpid()}
