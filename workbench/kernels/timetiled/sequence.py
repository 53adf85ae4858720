"""The driver of time-tiled stencils: a point's bands launched back to back and timed
as one.  It is generic (it knows launch sequences, not stencils), so it lives in
:mod:`workbench.tuning.sequence`; re-exported here, beside the kernels it drives."""

from workbench.tuning.sequence import SequenceEvaluator, SpanEvent, evaluator_for, run_sequence

__all__ = ["SequenceEvaluator", "SpanEvent", "evaluator_for", "run_sequence"]
