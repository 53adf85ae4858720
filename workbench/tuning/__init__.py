"""Choosing among variants of a kernel: today, model-guided selection within the
variant families of the 2019 paper (:mod:`.selection`: rank candidates with any
fitted model, compare the predicted pick with the best measured one).

This is also the home of the tuning machinery that builds on every model's
``rank()``: search spaces of tunable parameters, strategies behind one registry
(exhaustive, random, model-guided, adaptive black-box), an exploration runner that
records each evaluation and its costs in the measurement store, replay of measured
spaces, and the metrics and reports of exploration.
"""

from workbench.tuning.selection import FamilySelection, measured_times, rank_candidates, select

__all__ = ["FamilySelection", "measured_times", "rank_candidates", "select"]
