"""The help a newcomer reads first: a short usage line, and every option of predict and
explain said in words (a bare ``--group-size GROUP_SIZE`` left its format to guess)."""

from __future__ import annotations

import pytest

from workbench.cli.main import main


def test_the_top_usage_line_is_short(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    usage = out.split("\n\n")[0]
    assert usage == "usage: workbench [-h] COMMAND ..."
    assert "explain" in out and "predict the run time of a kernel" in out


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_every_option_of_a_first_command_is_explained(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "comma-separated" in out            # --param
    assert "16x16" in out                      # --group-size
    assert "'workbench kernels'" in out        # --variant
