"""Integer options refuse values that mean nothing (``--jobs 0``, a negative seed or
count) in one line, on every command that takes them."""

from __future__ import annotations

import pytest

from workbench.cli.main import main

REFUSED = [
    (["calibrate", "--jobs", "0"], "--jobs: must be at least 1, not 0"),
    (["calibrate", "--runs", "-2"], "--runs: must be at least 1, not -2"),
    (["build-info", "--jobs", "-1"], "--jobs: must be at least 1, not -1"),
    (["tune", "finite_diff", "--jobs", "0"], "--jobs: must be at least 1, not 0"),
    (["tune", "finite_diff", "--seed", "-1"], "--seed: must be at least 0, not -1"),
    (["rank-blocks", "finite_diff", "--top", "-3"], "--top: must be at least 1, not -3"),
    (["volumes", "finite_diff", "--block", "16x16", "--points", "0"],
     "--points: must be at least 1, not 0"),
    (["fit", "-o", "x.json", "--bootstrap", "-5"], "--bootstrap: must be at least 0, not -5"),
    (["table2", "--bootstrap", "two"], "--bootstrap: expected a whole number, not 'two'"),
]


@pytest.mark.parametrize("argv, says", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_nonsense_counts_are_refused_in_one_line(argv, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert says in err and f"workbench {argv[0]}" in err


def test_sensible_counts_still_parse():
    from workbench.cli.main import build_parser

    args = build_parser().parse_args(["calibrate", "--jobs", "2", "--runs", "5"])
    assert (args.jobs, args.runs) == (2, 5)
