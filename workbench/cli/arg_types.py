"""Argument types that refuse nonsense at the command line, in one line.

``--jobs 0``, ``--runs -3`` or ``--top -1`` mean nothing; argparse's plain ``int``
takes them and leaves the command to misbehave.  :func:`at_least` gives a type that
refuses them, and :class:`OneLineParser` says so in one line (``workbench: error:
--jobs must be at least 1, not 0 (workbench tune --help for usage)``) instead of the
whole usage block: an argument error is a :class:`~workbench.errors.ParameterError`,
which ``workbench``'s entry reports as every other expected error.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from workbench.errors import ParameterError


def at_least(least: int) -> Callable[[str], int]:
    """A whole number no smaller than ``least``."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") \
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
    """Argument errors raised as :class:`~workbench.errors.ParameterError`, said in one
    line by the entry point (module docstring)."""

    def error(self, message: str):
        named = re.match(r"argument ([^:]+): (must be .*)", message)
        if named:
            message = f"{named.group(1)} {named.group(2)}"
        raise ParameterError(f"{message} ({self.prog} --help for usage)")
