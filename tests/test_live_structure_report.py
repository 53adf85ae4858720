"""The live report's verdict: a run that never reaches 95 % is a lower bound."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.live_structure_report import verdict  # noqa: E402


def test_a_lower_bound_decides_only_one_way():
    reached = [(1.0, True), (2.0, True)]
    assert verdict(reached, [(3.0, True), (2.0, True)]) == "yes"
    assert verdict(reached, [(1.0, True), (1.0, True)]) == "no"
    # TPE censored: its mean is at least 2.5, above the model's 1.5
    assert verdict(reached, [(3.0, False), (2.0, True)]) == "yes"
    # ... or at least 1.0, below: either could be faster
    assert verdict(reached, [(1.0, False), (1.0, True)]) == "undecided"
    # the model censored at 2.0 already, TPE 1.0: slower whatever comes after
    assert verdict([(2.0, False)], [(1.0, True)]) == "no"
    assert verdict([(0.5, False)], [(1.0, True)]) == "undecided"
    assert verdict([(0.5, False)], [(1.0, False)]) == "undecided"
