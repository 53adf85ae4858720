"""Choosing among variants of a kernel at a fraction of the cost of measuring them.

* :mod:`.space`: search spaces (tunable parameters, restrictions, a loopy kernel per
  point; for cheap ranking a symbolic template per structure), defined below in
  :mod:`workbench.kernels.space` and re-exported; :mod:`.catalog`, the
  catalog's spaces (``stencil2d``, ``matmul``, ``transpose``, Lift's ``lift_*``, the
  time-tiled stencils' ``tt_*``) and a user's own (``FILE.py:VARIABLE``);
* :mod:`.strategies`: exhaustive, random, model-guided (any registered model's
  ranking, :mod:`.ranking`), optuna's TPE, behind one registry;
* :mod:`.guided`: model-guided strategies that correct the model on what they
  measure (``model-bo``: a Gaussian process on the model's residuals;
  ``model-tpe``: TPE seeded with the model's picks; ``model-ei``: ``model-bo`` with
  its first picks spread over the model's near-ties and the small Gaussian process of
  :mod:`.gp`); :mod:`.hedge`, ``model-hedge``: ``model-ei`` hedged with seeded
  random draws, a bandit choosing between them, ``model-hedge-base``, the same
  with the first structure's base point measured first, and ``model-hedge-check``,
  whose first picks wait on its model ordering the early points; :mod:`.stream`,
  ``model-hedge-stream``, whose model picks start as the ranking's structures
  arrive (its timed ranking with loopy's disk caches empty and private,
  :mod:`.loopy_caches`); :mod:`.rerank`, ``model-hedge-rerank``, the same with the
  cheap ranking's first few points re-ranked by the shipped default model; :mod:`.handover`,
  ``model-hedge-handover``, the stream whose model turns go to the shipped default model's
  order once a host of many cores has ranked with it; :mod:`.early`, any of them measuring the points its counting
  builds while it ranks (``--early-start``);
* :mod:`.runner`: the exploration runner (budget, progress, resume), recording every
  evaluation and its costs (:mod:`.evaluation`) in the measurement store; evaluated
  live on an OpenCL device (:mod:`.live`, :mod:`.sequence` for points that are
  launch sequences, :func:`evaluator_for` choosing, :mod:`.parallel` to build ahead
  on every core) or replayed from a measured space (:mod:`.replay`);
* :mod:`.metrics` and :mod:`.study`: best-so-far curves, runs and time to 90 % and
  95 % of the best, every strategy side by side (random as its expectation);
* :mod:`.timetiled_campaign` and :mod:`.timetiled_microbench`: the time-tiled
  stencils' spaces explored and their microbenchmarks timed on a device;
* :mod:`.kernel_tuner_io`: Kernel Tuner cache files out and in;
* :mod:`.selection`: the 2019 paper's model-guided selection within variant families.
"""

from workbench.tuning.catalog import SPACES, get_space, resolve_space
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.kernel_tuner_io import export_cache, import_cache
from workbench.tuning.ranking import rank_space
from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations, replay
from workbench.tuning.runner import Budget, ExplorationResult, Explorer, StopReason
from workbench.tuning.sequence import evaluator_for
from workbench.tuning.selection import FamilySelection, measured_times, rank_candidates, select
from workbench.tuning.space import Point, TuningSpace
from workbench.tuning.strategies import STRATEGIES, make_strategy
from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN  # registers knn, xgb
from workbench.tuning.guided import ModelBO, ModelEI, ModelTPE  # registers model-bo, -ei, -tpe
from workbench.tuning.hedge import (  # registers model-hedge, -hedge-base, -hedge-check
    ModelHedge,
    ModelHedgeBase,
    ModelHedgeCheck,
)
from workbench.tuning.loop_ties import (  # registers model-hedge-loops, -hedge-trips
    ModelHedgeLoops,
    ModelHedgeTrips,
)
from workbench.tuning.stream import ModelHedgeStream  # registers model-hedge-stream
from workbench.tuning.rerank import ModelHedgeRerank  # registers model-hedge-rerank
from workbench.tuning.handover import ModelHedgeHandover  # registers model-hedge-handover
from workbench.tuning.study import compare_strategies, summary
from workbench.tuning.early import EarlyStart

__all__ = ["SPACES", "STRATEGIES", "Budget", "Cost", "EarlyStart", "Evaluation", "ExplorationResult", "Explorer",
           "IRFeatureKNN", "ModelBO", "ModelEI", "ModelHedge", "ModelHedgeBase", "ModelHedgeCheck", "ModelHedgeHandover",
           "ModelHedgeLoops", "ModelHedgeRerank", "ModelHedgeStream", "ModelHedgeTrips",
           "ModelTPE",
           "FamilySelection", "Point", "ReplayEvaluator", "StopReason", "TuningSpace",
           "compare_strategies", "evaluator_for", "export_cache", "get_space", "import_cache",
           "load_space_evaluations", "make_strategy", "measured_times", "rank_candidates",
           "rank_space", "replay", "resolve_space", "select", "summary"]
