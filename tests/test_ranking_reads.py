"""Counting only what a ranking reads: loopy's counters run on plain integers per
instruction run (the same counts as loopy's own maps), and a model whose barrier
weight is zero has its factory points counted without the local barriers, marked so
that a later model that reads them counts them."""

from __future__ import annotations

import os
import warnings

import loopy as lp
import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _stencil():
    knl = lp.make_kernel(
        "{[i, j]: 0 <= i < n and 0 <= j < n}",
        "out[i, j] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])"
        " - u[i + 1, j + 1] / 3",
        [lp.GlobalArg("u", np.float32, shape=("n + 2", "n + 2")),
         lp.GlobalArg("out", np.float32, shape=("n", "n"), is_output=True),
         lp.ValueArg("n", np.int32)],
        name="stencil", lang_version=(2018, 2), assumptions="n >= 16 and n mod 16 = 0")
    knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    return lp.split_iname(knl, "i", 4, outer_tag="g.1", inner_tag="l.1")


def test_plain_integer_counters_equal_loopys_maps():
    from workbench.properties.counting import access_counts, op_counts, prepare
    from workbench.properties.features import Granularity

    warnings.filterwarnings("ignore")
    knl = _stencil()
    pre = prepare(knl)
    runs: dict = {}
    ops = op_counts(pre, Granularity.WORKITEM, None, runs)
    mem = access_counts(pre, Granularity.WORKITEM, None, runs)
    params = {"n": 64}
    theirs_ops = lp.get_op_map(knl, subgroup_size="guess", count_within_subscripts=True)
    for key, count in theirs_ops.count_map.items():
        # loopy counts arithmetic per sub-group (32 lanes of a 64-item group here)
        lanes = 32 if key.count_granularity == "subgroup" else 1
        assert ops[key].eval_with_dict(params) == lanes * count.eval_with_dict(params), key
    theirs_mem = lp.get_mem_access_map(knl, subgroup_size="guess")
    for key, count in theirs_mem.count_map.items():
        if key.count_granularity != "workitem":
            continue
        assert mem[key].eval_with_dict(params) == count.eval_with_dict(params), key
    assert {str(k.name) for k in ops} >= {"add", "mul", "div"}


@pytest.fixture
def disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_COUNT_CACHE", str(tmp_path / "counts.sqlite"))
    monkeypatch.setenv("WORKBENCH_RANK_JOBS", "1")
    warnings.filterwarnings("ignore")


def test_barriers_counted_only_for_a_model_that_reads_them(disk_cache):
    from workbench.models import load_model
    from workbench.models.candidate_features import (
        counting_report,
        flush_saves,
        forget_counts,
        remembered_counts,
    )
    from workbench.models.point_counts import BARRIERS_COUNTED
    from workbench.models.structure_counts import CountMethod
    from workbench.properties import extract_properties
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.ranking import rank_space

    ref = f"{ROOT}/examples/spaces/rowsum.py:space"
    free = load_model(f"{ROOT}/sample_data/h100/weights-linear-non-negative.json")
    reads = load_model(f"{ROOT}/sample_data/h100/weights-linear.json")
    assert free.weights["f_sync_barrier_local"] == 0 != reads.weights["f_sync_barrier_local"]
    space = resolve_space(ref)
    forget_counts(space)
    points = space.points()
    rank_space(free, space, points)
    held = remembered_counts(space)
    workitem = {label: v for (label, grain), v in held.items() if grain.startswith("workitem")}
    assert all(v[BARRIERS_COUNTED] == pytest.approx(0.0) and "f_sync_barrier_local" not in v
               for v in workitem.values())

    # the same space (memory cache) under a model that reads the barriers: counted now
    ranked = rank_space(reads, space, points)
    assert sum(r.counted for r in ranked.counting) > 0
    held = remembered_counts(space)
    sample = points[5]
    truth = extract_properties(space.build(sample)).counts
    barriers = next(e for f, e in truth.items() if f.name == "f_sync_barrier_local")
    from pymbolic import evaluate
    expected = float(evaluate(barriers, dict(space.problem)))
    assert expected > 0
    assert held[sample.label, "workitem/None"]["f_sync_barrier_local"] == pytest.approx(expected)
    assert held[sample.label, "workitem/None"][BARRIERS_COUNTED] == pytest.approx(1.0)

    # a second session finds the barriers on disk
    flush_saves()
    again = resolve_space(ref)
    forget_counts(again)
    second = rank_space(reads, again, again.points())
    assert {r.method for r in second.counting} == {CountMethod.CACHED}
    np.testing.assert_allclose(second.predicted_s, ranked.predicted_s, rtol=1e-12)
    assert counting_report(again) == second.counting
