"""Entry point of the ``workbench`` command."""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from workbench.errors import WorkbenchError


def build_parser() -> argparse.ArgumentParser:
    from workbench.cli import (
        build_info_cmds,
        cross_device_cmds,
        explain_cmds,
        kernel_cmds,
        kt_cmds,
        lab_cmds,
        measure_cmds,
        model_cmds,
        predict_cmds,
        ranking_fit_cmds,
        store_cmds,
        tiling_cmds,
        tune_cmds,
        volume_cmds,
    )

    from workbench.cli.arg_types import OneLineParser

    # the subcommands' parsers are of the same class: every argument error in one line
    parser = OneLineParser(
        prog="workbench", description="Model GPU kernel performance with loopy.",
        epilog="A first look, no GPU needed: workbench explain finite_diff --param n=4096 "
               "(the shipped H100 model; your own kernel: FILE.py:VARIABLE). Every "
               "command: docs/cli.md; every word the commands print: docs/glossary.md.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands")
    kernel_cmds.add_parsers(sub)
    measure_cmds.add_parsers(sub)
    build_info_cmds.add_parsers(sub)
    model_cmds.add_parsers(sub)
    predict_cmds.add_parsers(sub)
    explain_cmds.add_parsers(sub)
    tune_cmds.add_parsers(sub)
    ranking_fit_cmds.add_parsers(sub)
    kt_cmds.add_parsers(sub)
    volume_cmds.add_parsers(sub)
    tiling_cmds.add_parsers(sub)
    lab_cmds.add_parsers(sub)
    cross_device_cmds.add_parsers(sub)
    store_cmds.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except WorkbenchError as err:          # an argument error (cli.arg_types)
        print(f"workbench: error: {err}", file=sys.stderr)
        return 2
    from loopy.diagnostic import LoopyWarning

    # loopy's chatter is for kernel authors; an inexact count must still be seen.
    warnings.filterwarnings("ignore", category=LoopyWarning)
    warnings.filterwarnings("default", message=".*count_overestimate.*")
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as err:
        print(f"workbench: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader left (``workbench ... | head``): what is left to print has nowhere
        # to go, and Python's flush at exit must not fail on the closed pipe either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
