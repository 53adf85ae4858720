"""``space-order``: boosted trees that reorder a space by what the cheap ranking counted
(issue #33, ``structure-ranking.md`` sections 76-77).

The cheap model (``linear-nn`` with the residency penalty) prices each property the
same in every kernel; what a property costs depends on the kernel around it.  Trees
fitted on many measured spaces learn how a point's time, *relative to the other points
of its space*, follows from its counts relative to theirs.  For each point, from what
the cheap ranking computed anyway (nothing more is counted or built):

- each weighted property's count as ``log(1 + count)`` minus its median over the points
  ranked together;
- the cheap prediction (floors and residency factor applied), its log minus the median;
- log2 of the work-group size, and the residency factor.

The trees predict the point's log time minus its space's mean log time; a prediction in
seconds is the cheap predictions' geometric mean times ``exp`` of that, so the order is
the trees' and the level the cheap model's.  The features are relative to the points
predicted together: a space's order is meant to be asked of the whole space (a ranking)
at once; one point alone gets the cheap model's time.  The streamed ranking
(:mod:`workbench.tuning.stream`) therefore counts structure by structure with
:attr:`SpaceOrderModel.stream_model` and rescores the whole space once every structure
is in.  The trees are evaluated by :mod:`workbench.models.tree_ensemble` (numpy only);
xgboost fits them (:func:`fit_space_order`).

Where the cheap order is right the trees can be far wrong (``structure-ranking.md``
section 78: ``matmul_tiled`` 2 -> 48 runs to 95 %).  With ``interleave`` the ranking
takes the two orders in turn (:func:`interleaved_times`, section 79).  With the
``ranking`` objective (section 81) the trees learn an order, not times: each space is a
query and its top points count most; the learned order is handed the cheap model's
times (:func:`handed_times`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.contract import Need, Paper, RanksByPrediction
from workbench.models.prediction import Predictions, Term, TermKind
from workbench.models.tree_ensemble import TreeEnsemble

FAMILY = "space-order"
SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
#: the trees' settings (section 77, chosen on section 76's exploration)
TREE_SETTINGS = {"n_estimators": 300, "max_depth": 4, "learning_rate": 0.05,
                 "subsample": 0.8, "colsample_bytree": 0.8, "random_state": 0}
#: what the trees are fitted to: ``regression``, each point's log time relative to its
#: space's mean (section 77); ``ranking``, a learning-to-rank objective on the points of
#: each space, whose top picks count most (xgboost's ``rank:ndcg``, pairs within the top
#: :data:`RANKING_TOP`; relevance graded by the fraction of the space's best a point
#: reaches, :data:`RELEVANCE_GRADES`; section 81)
OBJECTIVES = ("regression", "ranking")
RANKING_TOP = 8
#: (fraction of the best reached, relevance), best first; any point below: relevance 0
RELEVANCE_GRADES = ((0.95, 4), (0.90, 3), (0.80, 2), (0.60, 1))
PREDICTION, GROUP, RESIDENCY = "log_prediction", "log2_group_size", "residency_factor"
#: the breakdown term holding a point's learned log time relative to the others'
RELATIVE_TERM = "space_order_log_ratio"
#: the model it reorders; the trees are the workbench's own (no paper)
PAPER = Paper("Stevens & Klöckner, 2016 (the cheap ranking it reorders)",
              "A unified, hardware-fitted, cross-GPU performance model",
              "stevens-kloeckner-unified", "https://doi.org/10.48550/arXiv.1604.04997")


def feature_names(properties: Sequence[str]) -> tuple[str, ...]:
    """The trees' inputs, in order, for a base model weighing ``properties``."""
    return (*(f"count:{p}" for p in properties), PREDICTION, GROUP, RESIDENCY)


def _centred(values: np.ndarray) -> np.ndarray:
    finite = np.isfinite(values)
    return values - np.median(values[finite]) if finite.any() else values


def space_features(inner: Predictions, properties: Sequence[str]) -> np.ndarray:
    """One row per candidate of the cheap model's predictions ``inner``
    (:func:`feature_names`' columns; NaN: not predicted), relative to the candidates
    predicted together."""
    n = len(inner.candidates)
    counts = np.zeros((n, len(properties)))
    factor = np.full(n, np.nan)
    column = {p: j for j, p in enumerate(properties)}
    for i, breakdown in enumerate(inner.breakdowns):
        if breakdown is None or not math.isfinite(inner.seconds[i]):
            counts[i] = np.nan
            continue
        for term in breakdown.terms:
            if term.kind is TermKind.SECONDS and term.weight and term.name in column:
                counts[i, column[term.name]] = term.value / term.weight
            elif term.name == RESIDENCY:
                factor[i] = term.value
    with np.errstate(divide="ignore", invalid="ignore"):
        logged = np.log1p(counts)
        seconds = np.asarray(inner.seconds, dtype=float)
        log_time = np.where(np.isfinite(seconds) & (seconds > 0), np.log(seconds), np.nan)
    group = np.array([math.log2(math.prod(c.group_size)) if c.group_size else 0.0
                      for c in inner.candidates])
    columns = [_centred(logged[:, j]) for j in range(len(properties))]
    return np.column_stack([*columns, _centred(log_time), group, factor]) if n else \
        np.zeros((0, len(properties) + 3))


@dataclass(frozen=True, eq=False)
class SpaceOrderModel(RanksByPrediction):
    """The cheap model's predictions reordered by trees (module docstring)."""

    base: object                             # the cheap model, residency penalty included
    base_document: Mapping                   # the base weights' own document
    properties: tuple[str, ...]
    trees: TreeEnsemble
    training: Mapping = field(default_factory=dict)
    residency_strength: float = 1.0
    #: rank the trees' order and the cheap model's in turn (section 79) instead of the
    #: trees' alone
    interleave: bool = False
    #: :data:`OBJECTIVES`: a ranking's trees give a score, higher for a faster point
    objective: str = "regression"
    #: the least gap, in log time, between consecutive handed-out times (0: the cheap
    #: times as they are).  A strategy that spreads its first picks over near-ties
    #: (``ModelEI.TIE``) would otherwise read the cheap model's ties at the top as the
    #: learned order's and spread over them, not follow it (section 82)
    tie_gap: float = 0.0
    family: str = FAMILY

    def __post_init__(self):
        if not self.tie_gap >= 0:
            raise ModelError(f"a space-order model's tie gap is 0 or more, not {self.tie_gap}")
        if self.objective not in OBJECTIVES:
            raise ModelError(f"a space-order model's objective is one of "
                             f"{', '.join(OBJECTIVES)}, not {self.objective!r}")
        if self.trees.features != feature_names(self.properties):
            raise ModelError("the trees' features do not match the base model's "
                             "properties: refit the space-order model")

    @property
    def stream_model(self):
        """What a streamed ranking counts structure by structure with: the cheap model
        (the trees need the whole space)."""
        return self.base

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        raise ModelError("the space-order model predicts candidates (a space's points), "
                         "not dataset rows")

    def predict_candidates(self, candidates, **context) -> Predictions:
        from workbench.models.prediction import predict

        inner = predict(self.base, candidates, **context)
        return self.reorder(inner)

    def order_keys(self, features: np.ndarray) -> np.ndarray:
        """The trees' value of each row of :func:`space_features`, lower first (a
        ranking's score, higher for a faster point, negated)."""
        if not len(features):
            return np.zeros(0)
        keys = self.trees.predict(features)
        return -keys if self.objective == "ranking" else keys

    def reorder(self, inner: Predictions) -> Predictions:
        """The cheap model's predictions of a set of candidates, reordered."""
        relative = self.order_keys(space_features(inner, self.properties))
        seconds = np.asarray(inner.seconds, dtype=float)
        ok = np.isfinite(seconds) & (seconds > 0)
        out = np.full(len(seconds), np.nan)
        if ok.any() and self.interleave:
            out[ok] = interleaved_times(relative[ok], seconds[ok], self.tie_gap)
        elif ok.any() and self.objective == "ranking":
            # a score has no scale of time: the learned order is handed the cheap times
            out[ok] = handed_times(np.argsort(relative[ok], kind="stable"), seconds[ok],
                                   self.tie_gap)
        elif ok.any():
            level = float(np.mean(np.log(seconds[ok])))
            out[ok] = np.exp(level + relative[ok] - float(np.mean(relative[ok])))
        breakdowns = tuple(
            None if b is None else dataclasses.replace(
                b, terms=(*b.terms, Term(RELATIVE_TERM, TermKind.COUNT, float(r))))
            for b, r in zip(inner.breakdowns, relative))
        return dataclasses.replace(inner, seconds=out, breakdowns=breakdowns)

    def report_data(self) -> dict:
        parameters = pd.DataFrame({"feature": list(self.trees.features)})
        return {"parameters": parameters,
                "fit": {"trees": len(self.trees.trees), **dict(self.training)}}

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": FAMILY,
                "base": dict(self.base_document), "properties": list(self.properties),
                "residency_strength": self.residency_strength,
                "interleave": self.interleave, "objective": self.objective,
                "tie_gap": self.tie_gap,
                "trees": self.trees.to_json(), "training": dict(self.training)}


def handed_times(order: Sequence[int], cheap_s: np.ndarray, gap: float = 0.0
                 ) -> np.ndarray:
    """Times whose order is ``order`` (indices, first first): the k-th point of it gets
    the k-th shortest of the cheap times, so the spread a strategy sees is the cheap
    model's; ``gap``: each at least ``exp(gap)`` times the one before."""
    handed = np.sort(np.asarray(cheap_s, dtype=float))
    # equal cheap times (points at one floor) would let a consumer's stable sort undo
    # the order among them: each is lifted to just above the one before
    step = math.exp(gap)
    for k in range(1, len(handed)):
        if not handed[k] > handed[k - 1] * step:
            handed[k] = np.nextafter(handed[k - 1] * step, np.inf)
    out = np.empty(len(handed))
    out[np.asarray(order, dtype=int)] = handed
    return out


def interleaved_times(learned: np.ndarray, cheap_s: np.ndarray, gap: float = 0.0
                      ) -> np.ndarray:
    """Times whose order takes the learned order's best, then the cheap order's best not
    yet taken, and so on (:func:`handed_times` gives them the cheap model's spread)."""
    by_learned = iter(np.argsort(learned, kind="stable"))
    by_cheap = iter(np.argsort(cheap_s, kind="stable"))
    taken: set[int] = set()
    order: list[int] = []
    sources = (by_learned, by_cheap)
    turn = 0
    while len(order) < len(cheap_s):
        for i in sources[turn]:
            if int(i) not in taken:
                taken.add(int(i))
                order.append(int(i))
                break
        turn = 1 - turn
    return handed_times(order, cheap_s, gap)


def relevance(seconds: np.ndarray) -> np.ndarray:
    """Each point's relevance for the ``ranking`` objective: :data:`RELEVANCE_GRADES` of
    the fraction of its space's best it reaches (``seconds``: one space's times)."""
    seconds = np.asarray(seconds, dtype=float)
    fraction = seconds.min() / seconds
    grades = np.zeros(len(seconds), dtype=int)
    for share, grade in reversed(RELEVANCE_GRADES):
        grades[fraction >= share] = grade
    return grades


def _base_model(document: Mapping, strength: float):
    """The cheap model of a weights document (the unified-linear family's), penalised."""
    from workbench.models.residency_penalty import ResidencyPenalty
    from workbench.models.unified.linear import UnifiedLinearModel

    family = UnifiedLinearModel()
    if document.get("family") != family.name:
        raise ModelError(f"a space-order model reorders a {family.name} model's ranking, "
                         f"not a {document.get('family')!r} one")
    return ResidencyPenalty(family.load(dict(document)), strength)


def training_frame(model_base, base_document: Mapping, space, measured_s: Mapping[str, float]
                   ) -> pd.DataFrame:
    """One space's rows to fit on: each point's features under ``model_base`` (the cheap
    model with its residency penalty, as :class:`SpaceOrderModel` predicts) and its
    measured seconds (``measured_s``: label -> seconds; points absent are not rows)."""
    from workbench.kernels.candidate import Candidate
    from workbench.models.prediction import predict

    properties = _weighted(base_document)
    candidates = [Candidate.of_point(space, p) for p in space.points()]
    inner = predict(model_base, candidates)
    frame = pd.DataFrame(space_features(inner, properties),
                         columns=list(feature_names(properties)))
    frame["label"] = [c.point.label for c in candidates]
    frame["seconds"] = [measured_s.get(c.point.label, np.nan) for c in candidates]
    frame["space"] = space.name
    ok = np.isfinite(frame["seconds"]) & (frame["seconds"] > 0)
    return frame[ok].reset_index(drop=True)


def _weighted(base_document: Mapping) -> tuple[str, ...]:
    return tuple(name for name, w in base_document["weights"].items() if w)


def fit_space_order(frames: Sequence[pd.DataFrame], base_document: Mapping, *,
                    training: Mapping | None = None, residency_strength: float = 1.0,
                    settings: Mapping | None = None, interleave: bool = False,
                    objective: str = "regression") -> SpaceOrderModel:
    """Trees fitted on the rows of measured spaces (:func:`training_frame`): with the
    ``regression`` objective each point's target is its log time minus its space's mean
    log time; with ``ranking`` each space is a query and each point's label its
    :func:`relevance`."""
    try:
        import xgboost
    except ImportError:
        raise ModelError("fitting a space-order model needs xgboost "
                         "(pip install xgboost-cpu)") from None
    properties = _weighted(base_document)
    names = list(feature_names(properties))
    data = pd.concat([f for f in frames if len(f)], ignore_index=True) if frames else None
    if data is None or data.empty or data["space"].nunique() < 2:
        raise ModelError("a space-order model learns from at least two measured spaces")
    if objective not in OBJECTIVES:
        raise ModelError(f"objective is one of {', '.join(OBJECTIVES)}, not {objective!r}")
    options = {**TREE_SETTINGS, **dict(settings or {}), "n_jobs": 1}
    if objective == "ranking":
        # a query's rows must be contiguous: the spaces in order, stably
        data = data.assign(_query=data["space"].astype("category").cat.codes)
        data = data.sort_values("_query", kind="stable", ignore_index=True)
        labels = data.groupby("space", sort=False)["seconds"].transform(
            lambda s: relevance(s.to_numpy(dtype=float)))
        options = {**options, "objective": "rank:ndcg",
                   "lambdarank_pair_method": "topk",
                   "lambdarank_num_pair_per_sample": RANKING_TOP}
        learner = xgboost.XGBRanker(**options)
        learner.fit(data[names].to_numpy(dtype=float), labels.to_numpy(dtype=int),
                    qid=data["_query"].to_numpy())
    else:
        log_time = np.log(data["seconds"].to_numpy(dtype=float))
        target = log_time - data.assign(t=log_time).groupby("space")["t"].transform("mean")
        learner = xgboost.XGBRegressor(**options)
        learner.fit(data[names].to_numpy(dtype=float), target.to_numpy(dtype=float))
    trees = TreeEnsemble.of_xgboost(learner.get_booster(), names)
    record = {"spaces": sorted(data["space"].unique().tolist()), "points": int(len(data)),
              "settings": {k: v for k, v in options.items() if k != "n_jobs"},
              "xgboost": xgboost.__version__, **dict(training or {})}
    return SpaceOrderModel(_base_model(base_document, residency_strength), base_document,
                           properties, trees, record, residency_strength, interleave,
                           objective)


class SpaceOrderFamily:
    """Model family 'space-order' (module docstring)."""

    name = FAMILY
    paper = PAPER
    needs = frozenset({Need.COUNTS, Need.CALIBRATION, Need.OTHER_PROGRAMS})
    home = "workbench.models.space_order"

    def describe(self) -> str:
        return ("The unified linear model's cheap ranking (linear-nn with the residency "
                "penalty), reordered by boosted trees learned on other "
                "programs' measured tuning spaces: each point's counts, prediction, "
                "work-group size and residency relative to the other points of its "
                "space give its time relative to theirs (or, fitted to rank, its "
                "place among them).  It orders the points of one space (asked of the "
                "whole space at once); the level of its times is the linear model's.")

    def fit(self, data: pd.DataFrame, *, base_document: Mapping | None = None, **options
            ) -> SpaceOrderModel:
        if base_document is None:
            raise ModelError("a space-order fit needs base_document: the cheap model's "
                             "weights document (e.g. weights-linear-non-negative.json)")
        return fit_space_order([data], base_document, **options)

    def ready(self, **options) -> SpaceOrderModel:
        raise ModelError("the space-order model learns from measured spaces: load a "
                         "fitted file (sample_data/h100/space-order.json.xz) or fit one "
                         "with benchmarks/fit_space_order.py")

    def load(self, document: Mapping) -> SpaceOrderModel:
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not a space-order model document")
        if document.get("schema_version") != SCHEMA_VERSION:
            raise ModelError(f"space-order model of schema version "
                             f"{document.get('schema_version')!r}; this workbench reads "
                             f"{SCHEMA_VERSION}")
        try:
            base_document = dict(document["base"])
            strength = float(document.get("residency_strength", 1.0))
            interleave = bool(document.get("interleave", False))
            objective = str(document.get("objective", "regression"))
            tie_gap = float(document.get("tie_gap", 0.0))
            properties = tuple(document["properties"])
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"malformed space-order model document: {err}") from None
        if properties != _weighted(base_document):
            raise ModelError("the space-order model's properties are not its base "
                             "weights' weighted ones")
        return SpaceOrderModel(_base_model(base_document, strength), base_document,
                               properties, TreeEnsemble.from_json(document["trees"]),
                               dict(document.get("training", {})), strength, interleave,
                               objective, tie_gap)


__all__ = ["FAMILY", "OBJECTIVES", "RELATIVE_TERM", "RELEVANCE_GRADES", "SpaceOrderFamily",
           "SpaceOrderModel", "TREE_SETTINGS", "feature_names", "fit_space_order",
           "handed_times", "interleaved_times", "relevance",
           "space_features", "training_frame"]
