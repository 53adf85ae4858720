"""Argument types that refuse nonsense at the command line, in one line.

``--jobs 0``, ``--runs -3`` or ``--top -1`` mean nothing; argparse's plain ``int``
takes them and leaves the command to misbehave.  :func:`at_least` gives a type that
refuses them, and :class:`OneLineParser` says so in one line (the command and the
message, with where to find the usage) instead of the whole usage block.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(least: int) -> Callable[[str], int]:
    """A whole number no smaller than ``least``."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") \
                from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value

    return whole_number


#: counts of things to do (jobs, runs, workers, results shown): 1 or more
positive_int = at_least(1)
#: counts that may be zero (bootstrap resamples, seeds)
non_negative_int = at_least(0)


class OneLineParser(argparse.ArgumentParser):
    """An argument error in one line: ``workbench tune: error: argument --jobs: must be
    at least 1, not 0 (workbench tune --help for usage)``."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help for usage)\n")
