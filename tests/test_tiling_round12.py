"""Round 12 of the resident-latency extension (issue 34): the shipped constants' picks
timed beside the best baseline points in interleaved rounds
(``benchmarks/tiling_round12.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks import tiling_round12 as r12

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"


def _times(rows):
    return pd.DataFrame(rows, columns=["stencil", "sizes", "label", "kinds", "round",
                                       "run", "time_s", "launches"])


def test_speed_up_uses_each_rounds_minimum_and_pairs_rounds():
    rows = []
    # baseline B: round minima 10.0, 10.2, 10.1 (the 11.0 runs are noise above them);
    # picks P1 (first) and P2 (faster)
    for r, (b, p1, p2) in enumerate(((10.0, 9.5, 9.0), (10.2, 9.6, 9.3), (10.1, 9.4, 9.1))):
        for run, extra in enumerate((1.0, 0.0)):
            rows += [("heat2d", "S1=8,S2=8,T=4", "B", "baseline", r, run, b + extra, 2),
                     ("heat2d", "S1=8,S2=8,T=4", "P1", "chosen-shipped", r, run,
                      p1 + extra, 2),
                     ("heat2d", "S1=8,S2=8,T=4", "P2", "chosen-shipped", r, run,
                      p2 + extra, 2)]
    table = r12.point_table(_times(rows)).set_index("label")
    assert table.loc["B", "median"] == pytest.approx(10.1)
    assert table.loc["B", "spread_pct"] == pytest.approx(100 * 0.2 / 10.1)
    assert table.loc["B", "runs"] == 6
    got = r12.problem_rows(_times(rows), {("heat2d", "S1=8,S2=8,T=4"): ["P1", "P2"]})
    row = got.iloc[0]
    assert row["best_baseline"] == "B" and row["best_pick"] == "P2"
    assert row["first_pick"] == "P1"
    assert row["best_pick_faster_pct"] == pytest.approx(100 * (1 - 9.1 / 10.1))
    assert row["first_pick_faster_pct"] == pytest.approx(100 * (1 - 9.5 / 10.1))
    # round by round: 1 - 9.0/10.0, 1 - 9.3/10.2, 1 - 9.1/10.1
    lo, hi = (float(x) for x in row["best_pick_rounds_pct"].split(".."))
    assert lo == pytest.approx(100 * (1 - 9.3 / 10.2), abs=0.05)
    assert hi == pytest.approx(10.0, abs=0.05)


def test_shipped_call_holds_every_problem_with_its_picks_and_repeats():
    times = r12.read_csv(r12.TIMES)
    plan = json.loads((H100 / "hexagonal-round12-plan.json").read_text())
    picked = json.loads((H100 / "hexagonal-round12-picks-plan.json").read_text())
    assert list(plan) == list(picked) == [f"{s} {r12.sizes_of(s, n)}" for s, n in r12.ORDER]
    counts = times.groupby(["stencil", "sizes", "label"])["time_s"].count()
    assert set(counts) == {21}                            # 7 rounds of 3 timed runs
    for key, kinds in picked.items():
        stencil, sizes = key.split()
        labels = set(counts.loc[(stencil, sizes)].index)
        assert set(kinds["chosen-shipped"]) | set(plan[key]["baseline"]) == labels
        assert kinds["baseline"] == plan[key]["baseline"]
    rows = r12.problem_rows(times, r12.ranks_of())
    assert len(rows) == 11
    lines = r12.summary(rows)
    assert any(line.startswith("nine fitted problems, best_pick_faster_pct: mean +16.5 %")
               for line in lines)
    assert any(line.startswith("9216^2 (no fit saw), best_pick_faster_pct: mean +7.5 %")
               for line in lines)
