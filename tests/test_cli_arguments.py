"""Integer options refuse values that mean nothing (``--jobs 0``, a negative seed or
count) in one line, on every command that takes them; so does every other argument
error (no usage block)."""

from __future__ import annotations

import pytest

from workbench.cli.main import main

REFUSED = [
    (["calibrate", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["calibrate", "--runs", "-2"], "--runs must be at least 1, not -2"),
    (["build-info", "--jobs", "-1"], "--jobs must be at least 1, not -1"),
    (["tune", "finite_diff", "--jobs", "0"], "--jobs must be at least 1, not 0"),
    (["tune", "finite_diff", "--seed", "-1"], "--seed must be at least 0, not -1"),
    (["tuning-report", "--store", "x", "--tpe-seeds", "0"],
     "--tpe-seeds must be at least 1, not 0"),
    (["rank-blocks", "finite_diff", "--top", "-3"], "--top must be at least 1, not -3"),
    (["tile-sizes", "--top", "0"], "--top must be at least 1, not 0"),
    (["fit", "-o", "x.json", "--bootstrap", "-5"], "--bootstrap must be at least 0, not -5"),
    (["table2", "--bootstrap", "two"], "--bootstrap must be a whole number, not 'two'"),
    (["explain", "finite_diff", "--format", "yaml"], "argument --format: invalid choice"),
]


@pytest.mark.parametrize("argv, says", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_nonsense_is_refused_in_one_line(argv, says, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("workbench: error: ") and says in err
    assert f"(workbench {argv[0]} --help for usage)" in err


def test_sensible_counts_still_parse():
    from workbench.cli.main import build_parser

    args = build_parser().parse_args(["calibrate", "--jobs", "2", "--runs", "5"])
    assert (args.jobs, args.runs) == (2, 5)
