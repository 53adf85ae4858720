"""Every strategy on one measured space, side by side: the tuning report's data.

For an exhaustively measured space this replays (:mod:`workbench.tuning.replay`):

* ``exhaustive``: the space's order, and the cost of measuring everything;
* ``random``: the exact expectation over all orderings (:mod:`.metrics`);
* ``model:<label>``: each given fitted model's ranking, measured in predicted order
  (the ranking runs here; its cost is the one measured on this machine, or, given
  ``recorded``, the one a live exploration recorded on the GPU host:
  :mod:`workbench.tuning.costs`; each row's ``choosing_charged`` says which);
* any other strategy given by name and factory (``knn``, ``xgb``: rankings learnt
  from other programs), replayed the same way, its choosing cost counted; one that
  cannot rank the space (no training data besides the space's own program, a space
  of launch sequences) gets a row of ``n/a`` whose ``note`` says why;
* ``model-bo:<label>`` and ``model-tpe:<label>`` (:mod:`workbench.tuning.guided`):
  each model's ranking corrected on what the strategy measures, the ranking's cost
  charged as the choosing cost; they and other seeded strategies (``bo``) stop at the
  highest target, 95 %, which is all the figures need;
* ``tpe``: optuna's TPE, over several seeds (mean runs and seconds; a seed that never
  reaches a target counts as the whole space).

Every other replay stops once it has found the space's best: the curves end there.
Every row also gives its time to 90 and 95 % in *oracle measurements*: the cost of
measuring the space's best point once (an oracle that knows the best measures one
point, so 1.0 is the floor).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.errors import ModelError, TuningError
from workbench.measure.store import RankingCost
from workbench.tuning.costs import charge
from workbench.tuning.metrics import (
    TARGETS,
    Curve,
    curve,
    exhaustive_cost,
    optimum,
    random_curve,
    random_reach,
)
from workbench.tuning.replay import ReplayEvaluator, replay
from workbench.tuning.space import TuningSpace
from workbench.tuning.strategies import Exhaustive, ModelGuided, OptunaTPE, Strategy

if TYPE_CHECKING:   # annotations only: _streamed imports stream when a family streams
    from workbench.tuning.stream import StreamedCharge


@dataclass
class SpaceComparison:
    """Rows (one per strategy) and curves of one space."""

    space: str
    points: int
    best_s: float
    best_point: str
    exhaustive_s: float
    rows: list[dict] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)
    random_curve: np.ndarray | None = None
    random_cost_per_run: float = 0.0
    oracle_s: float = math.nan    # what measuring the best point once costs

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


def _row(space: str, strategy: str, reach: Mapping[float, tuple[float, float] | None],
         choosing_s: float, **extra) -> dict:
    row = {"space": space, "strategy": strategy, "choosing_s": choosing_s}
    for t in TARGETS:
        r = reach.get(t)
        key = f"{round(t * 100)}"
        row[f"runs_to_{key}"] = math.nan if r is None else r[0]
        row[f"seconds_to_{key}"] = math.nan if r is None else r[1]
    row.update(extra)
    return row


def _charged(c: Curve, recorded: Mapping[str, RankingCost] | None, names: Sequence[str],
             points: int) -> tuple[Curve, str]:
    """The curve with its choosing charged as ``recorded`` says (see
    :func:`workbench.tuning.costs.charge`), and how it was charged."""
    seconds, note = charge(recorded, names, points, c.choosing_s)
    return Curve(c.label, c.fraction, c.cost_s - c.choosing_s + seconds, seconds), note


def _ranked(space: TuningSpace, evaluator: ReplayEvaluator, ordered: ModelGuided,
            best: float, overlap_charge: str) -> tuple[Curve, str]:
    """The model's one ranking replayed (its curve), alone or beside the host's share
    of measuring the headline's early points (seed 0's: the first structure's base
    point, then random draws), and what a row's note adds to say which."""
    if overlap_charge == "alone":
        return curve(replay(space, evaluator, ordered, until=1.0), best), ""
    from workbench.tuning.beside import ranking_beside
    from workbench.tuning.early import BASES, bases_then_draws

    host = bases_then_draws(space, space.points(), BASES, 0)
    with ranking_beside(space, host, evaluator.evaluations) as share:
        c = curve(replay(space, evaluator, ordered, until=1.0), best)
    return c, (f"; ranked beside the host's share of measuring ({share.points} points "
               f"prepared, {share.prepare_s:.2f} s)")


def _streamed(model, space: TuningSpace, evaluator: ReplayEvaluator,
              guided: Sequence[str], overlap_charge: str, host_record=None,
              computed=None, time_scale: float = 1.0,
              order=None) -> dict[str, StreamedCharge]:
    """Per family of ``guided`` whose ranking streams (:mod:`workbench.tuning.stream`):
    its streamed ranking and its rows' note.  One streamed ranking is made for all of
    them; a family with a ``charge_beside`` (``model-hedge-rerank``) makes its own from
    it, with what it adds timed here too.  ``host_record``
    (:class:`~workbench.tuning.handover.HostRecord`): the streamed ranking as another
    host recorded it (its arrivals' times and predictions; ``computed``, this host's
    ranking of the same model, is compared with them), and a family with a
    ``charge_recorded`` (``model-hedge-handover``) takes what it adds from it too.
    ``time_scale``: the streamed ranking's times scaled so (a hypothetical:
    :func:`~workbench.tuning.stream.scaled_stream`); ``order``: a hypothetical order
    (:class:`~workbench.tuning.stream.OrderHypothesis`; None: the model's own)."""
    from workbench.tuning.guided import GUIDED

    streaming = [f for f in guided if getattr(GUIDED[f], "STREAMS", False)]
    if not streaming:
        return {}
    if host_record is not None:
        if time_scale != 1.0 or order is not None:
            raise TuningError("a host's recorded ranking is replayed as recorded, not "
                              "scaled or reordered")
        from workbench.tuning.handover import recorded_stream

        shared = recorded_stream(host_record, space, computed)
        out = {}
        for family in streaming:
            own = getattr(GUIDED[family], "charge_recorded", None)
            if own is None and getattr(GUIDED[family], "charge_beside", None) is not None:
                raise TuningError(f"{family} cannot be charged from a host record")
            out[family] = shared if own is None else own(shared, host_record, space)
        return out
    from workbench.tuning.stream import streamed_beside

    shared = streamed_beside(model, space, evaluator.evaluations, overlap_charge,
                             time_scale, order)
    out = {}
    for family in streaming:
        own = getattr(GUIDED[family], "charge_beside", None)
        out[family] = shared if own is None else \
            own(shared, space, evaluator.evaluations, overlap_charge)
    return out


def _shift(reach: Mapping[float, tuple[float, float]], by: float
           ) -> dict[float, tuple[float, float]]:
    return {t: (r[0], r[1] + by) for t, r in reach.items()}


def _seeded(space: TuningSpace, evaluator: ReplayEvaluator, best: float, points: int,
            label: str, make: Callable[[int], Strategy], seeds: int,
            until: float = 1.0) -> tuple[dict, Curve, float]:
    """Mean (runs, seconds) to each target over ``seeds`` replays (a seed that never
    reaches a target counts as the whole space), the first seed's curve and the mean
    choosing cost.  ``until``: where each replay stops (the highest target is enough
    for the figures; a Gaussian process refitted on hundreds of points is slow)."""
    reaches: dict[float, list[tuple[float, float]]] = {t: [] for t in TARGETS}
    first, choosing = None, []
    for seed in range(seeds):
        c = curve(replay(space, evaluator, make(seed), seed=seed, until=until), best)
        first = first or Curve(label, c.fraction, c.cost_s, c.choosing_s)
        choosing.append(c.choosing_s)
        for t in TARGETS:
            reaches[t].append(c.reach(t) or (points, float(c.cost_s[-1])))
    mean = {t: (float(np.mean([r[0] for r in v])), float(np.mean([r[1] for r in v])))
            for t, v in reaches.items()}
    return mean, first, float(np.mean(choosing))


def _forget_features() -> None:
    """Empty the process's cache of symbolic IR features, so that a strategy pays for
    the features it reads: a template's features are cached by value, so without this
    the second strategy replayed on a space (and every strategy on the same benchmark at
    another input) would reuse what the first one read."""
    from workbench.models.ir_features.extract import symbolic_ir_features

    symbolic_ir_features.cache_clear()


def compare_strategies(space: TuningSpace, evaluator: ReplayEvaluator,
                       models: Mapping[str, object] = (), *, tpe_seeds: int = 10,
                       strategies: Mapping[str, Callable[[], Strategy]] = (),
                       guided: Sequence[str] = (),
                       guided_seeds: int | None = None,
                       seeded: Mapping[str, Callable[[int], Strategy]] = (),
                       recorded: Mapping[str, RankingCost] | None = None,
                       early: bool = False, overlap_charge: str = "alone",
                       host_record=None, ranking_time_scale: float = 1.0,
                       order=None) -> SpaceComparison:
    """Every strategy replayed on one space.  ``guided``: the learning model-guided
    strategies to add (``model-bo``, ``model-tpe``: :mod:`workbench.tuning.guided`),
    run with every model, on the model's
    one ranking (its fresh cost charged to each); the stochastic ones (``model-tpe``)
    over ``guided_seeds`` seeds (default: ``tpe_seeds``, at least 1), as is every
    strategy of ``seeded`` (name: factory of the seed, e.g. ``bo``).  ``early``: each
    model strategy also measuring while it ranks (:mod:`workbench.tuning.early`, the
    replay clock), charged both ways: ``+early`` with the ranking beside the early
    points, ``+early (serial charge)`` with it before them, as without overlap.
    ``overlap_charge``: ``alone`` times each model's one ranking alone; ``beside``
    times it beside the host's share of measuring the early points
    (:mod:`workbench.tuning.beside`: what a live run that measures while it ranks pays
    on this machine), and every row of that model is charged that time.
    ``host_record`` (:class:`~workbench.tuning.handover.HostRecord`): the streaming
    families' rankings charged as that host recorded them, not timed here.
    ``ranking_time_scale``: the streaming families' rankings timed here and their times
    scaled so, a hypothetical (what a ranking that cost so much less would give);
    ``order``: a hypothetical order for them
    (:class:`~workbench.tuning.stream.OrderHypothesis`: what a perfect order, or one as
    good as a model of some error, would give at that ranking's cost; None: the
    model's own)."""
    from workbench.tuning.beside import OVERLAP_CHARGES
    from workbench.tuning.guided import GUIDED

    if overlap_charge not in OVERLAP_CHARGES:
        raise TuningError(f"overlap_charge is one of {', '.join(OVERLAP_CHARGES)}, "
                          f"not {overlap_charge!r}")

    measured = evaluator.measured
    best = optimum(measured)
    best_eval = min((e for e in measured if e.ok), key=lambda e: e.time_s)
    comparison = SpaceComparison(space.name, len(measured), best, best_eval.point.label,
                                 exhaustive_cost(measured), oracle_s=best_eval.cost_s)
    n = len(measured)
    ex = curve(replay(space, evaluator, Exhaustive(), until=1.0), best)
    comparison.curves.append(ex)
    comparison.rows.append(_row(space.name, "exhaustive", {t: ex.reach(t) for t in TARGETS},
                                0.0, seconds_all=comparison.exhaustive_s))
    comparison.rows.append(_row(space.name, "random (expected)",
                                {t: random_reach(measured, t) for t in TARGETS}, 0.0))
    comparison.random_curve = random_curve(measured, n)
    comparison.random_cost_per_run = comparison.exhaustive_s / n
    seeds = max(1, tpe_seeds if guided_seeds is None else guided_seeds)
    for label, model in dict(models).items():
        ordered = ModelGuided(model, label)
        family_name = getattr(model, "family", "model")
        # on a fresh copy of the space: nothing another model counted is reused
        c, beside = _ranked(dataclasses.replace(space), evaluator, ordered, best,
                            overlap_charge)
        c, note = _charged(c, recorded, (f"model:{label}", f"model:{family_name}"), n)
        note += beside
        comparison.curves.append(c)
        comparison.rows.append(_row(space.name, f"model:{label}",
                                    {t: c.reach(t) for t in TARGETS}, c.choosing_s,
                                    ms_per_variant=1e3 * c.choosing_s / n,
                                    choosing_charged=note))
        # a strategy whose ranking streams is given its own, made structure by
        # structure (counts cold) and timed as the whole one is
        streamed = _streamed(model, space, evaluator, guided, overlap_charge,
                             host_record, ordered.ranking, ranking_time_scale, order)
        for family in guided:
            cls = GUIDED[family]
            runs = seeds if cls.stochastic else 1
            streams = family in streamed
            own, own_note = (streamed[family].ranking, streamed[family].note) if streams \
                else (ordered.ranking, beside)

            def make(seed, cls=cls, label=label, ranking=own):
                return cls(model, label, seed=seed, ranking=ranking)

            name = f"{family}:{label}" + (f" (mean of {runs} seeds)" if runs > 1 else "")
            mean, first, choosing = _seeded(space, evaluator, best, n, name, make, runs,
                                            until=max(TARGETS))
            # a streamed ranking is charged what it cost here, never a recorded cost
            charged, note = charge(None if streams else recorded,
                                   (f"{family}:{label}", f"{family}:{family_name}"), n,
                                   choosing)
            note += own_note
            first = Curve(first.label, first.fraction,
                          first.cost_s - first.choosing_s + charged, charged)
            comparison.curves.append(first)
            comparison.rows.append(_row(space.name, name, _shift(mean, charged - choosing),
                                        charged, ms_per_variant=1e3 * charged / n,
                                        choosing_charged=note))
        if early:
            _early_rows(comparison, space, evaluator, best, n, model, label,
                        ordered.ranking, guided, seeds, recorded, beside, streamed)
    for label, make_plain in dict(strategies).items():
        _forget_features()
        try:
            result = replay(dataclasses.replace(space), evaluator, make_plain(), until=1.0)
        except (TuningError, ModelError) as err:
            # a learned strategy with nothing to learn from, or a space its features
            # cannot describe: listed, with the reason
            comparison.rows.append(_row(space.name, label, {}, math.nan,
                                        note=f"n/a: {err}"))
            continue
        c, note = _charged(curve(result, best), recorded, (label,), n)
        comparison.curves.append(Curve(label, c.fraction, c.cost_s, c.choosing_s))
        comparison.rows.append(_row(space.name, label, {t: c.reach(t) for t in TARGETS},
                                    c.choosing_s,
                                    ms_per_variant=1e3 * c.choosing_s / n,
                                    choosing_charged=note))
    for label, make_seeded in dict(seeded).items():
        mean, first, choosing = _seeded(space, evaluator, best, n, label, make_seeded,
                                        seeds, until=max(TARGETS))
        comparison.curves.append(first)
        comparison.rows.append(_row(space.name, f"{label} (mean of {seeds} seeds)", mean,
                                    choosing))
    if tpe_seeds:
        mean, first, _ = _seeded(space, evaluator, best, n, "tpe",
                                 lambda seed: OptunaTPE(seed=seed), tpe_seeds)
        comparison.curves.append(first)
        comparison.rows.append(_row(space.name, f"tpe (mean of {tpe_seeds} seeds)", mean,
                                    0.0))
    return comparison


#: what the ``+early`` rows charge, for a report to say
EARLY_CHARGING = (
    "+early rows: the device measured the counting's probe points while the model "
    "ranked (measured_before_ranking), and the ranking is charged beside them: the "
    "first model point starts once both are done; '(serial charge)': the same runs "
    "with the ranking charged before every point, as without early start")


def _early_rows(comparison: SpaceComparison, space, evaluator, best: float, n: int,
                model, label: str, ranking, guided: Sequence[str], seeds: int,
                recorded: Mapping[str, RankingCost] | None = None,
                beside: str = "", streamed: Mapping[str, StreamedCharge] | None = None
                ) -> None:
    """Rows of the model strategies measuring while they rank, on the model's one
    ranking, in both chargings; the replay clock runs on the ranking's cost measured
    now, or recorded (``recorded``, as :func:`~workbench.tuning.costs.charge` finds it)."""
    from workbench.tuning.early import EarlyStart
    from workbench.tuning.guided import GUIDED

    charged, note = charge(recorded, (f"model:{label}",), n, float(ranking.seconds))
    note += beside
    ranking = dataclasses.replace(ranking, seconds=charged)

    makers = {"model": (lambda seed: ModelGuided(model, label, ranking=ranking), 1)}
    for family in guided:
        cls = GUIDED[family]
        # a streamed ranking is charged what it cost here (its arrivals' times)
        streamed = streamed or {}
        own = streamed[family].ranking if family in streamed else ranking
        makers[family] = ((lambda seed, cls=cls, own=own: cls(model, label, seed=seed,
                                                              ranking=own)),
                          seeds if cls.stochastic else 1)
    for family, (make, runs) in makers.items():
        reach: dict = {c: {t: [] for t in TARGETS} for c in ("overlap", "serial")}
        overlapped, first = [], None
        for seed in range(runs):
            result = replay(space, evaluator, EarlyStart(make(seed), clock="replay"),
                            seed=seed, until=max(TARGETS) if family != "model" else 1.0)
            overlapped.append(result.overlapped)
            for charging in reach:
                c = curve(result, best, charging)
                if first is None:
                    first = c
                for t in TARGETS:
                    reach[charging][t].append(c.reach(t) or (n, float(c.cost_s[-1])))
        seeded = f" (mean of {runs} seeds)" if runs > 1 else ""
        name = f"{family}:{label}+early"
        comparison.curves.append(Curve(name, first.fraction, first.cost_s,
                                       first.choosing_s))
        streams = family != "model" and family in streamed
        row_charged, row_note = (streamed[family].ranking.seconds, streamed[family].note) \
            if streams else (charged, note)
        for charging, suffix in (("overlap", ""), ("serial", " (serial charge)")):
            mean = {t: (float(np.mean([r[0] for r in v])), float(np.mean([r[1] for r in v])))
                    for t, v in reach[charging].items()}
            comparison.rows.append(_row(space.name, f"{name}{suffix}{seeded}", mean,
                                        row_charged, ms_per_variant=1e3 * row_charged / n,
                                        choosing_charged=row_note,
                                        measured_before_ranking=float(np.mean(overlapped))))


def base_strategy(name: str) -> str:
    """A row's strategy without its seed count: ``tpe (mean of 10 seeds)`` -> ``tpe``."""
    return name.split(" (mean of")[0]


def strategy_means(table: pd.DataFrame) -> pd.DataFrame:
    """Per strategy (model labels kept), across spaces: the geometric mean of its time
    to 95 % against random search, exhaustive measurement and TPE, and in oracle
    measurements, and the median of its runs to 95 %: the figures of the tuning
    goals."""
    from workbench.tuning.metrics import geometric_mean

    rows = []
    for strategy, part in table.groupby("strategy", sort=False):
        row = {"strategy": strategy, "spaces": len(part)}
        for column in ("oracle_x_95", "oracle_x_90", "speedup_vs_tpe_95",
                       "speedup_vs_random_95", "speedup_vs_exhaustive_95"):
            if column in part:
                row[column] = geometric_mean(part[column])
        row["median_runs_to_95"] = float(np.nanmedian(part["runs_to_95"]))
        rows.append(row)
    return pd.DataFrame(rows)


def summary(comparisons: Sequence[SpaceComparison]) -> pd.DataFrame:
    """All spaces' rows, with each strategy's time to 90 and 95 % in oracle
    measurements, and its time to 95 % against random search, exhaustive measurement
    and TPE (where replayed) on the same space."""
    frames = []
    for c in comparisons:
        f = c.frame()
        rnd = f.loc[f["strategy"] == "random (expected)", "seconds_to_95"].iloc[0]
        f["oracle_s"] = c.oracle_s
        f["oracle_x_90"] = f["seconds_to_90"] / c.oracle_s
        f["oracle_x_95"] = f["seconds_to_95"] / c.oracle_s
        tpe = f.loc[f["strategy"].map(base_strategy) == "tpe", "seconds_to_95"]
        if len(tpe):
            f["speedup_vs_tpe_95"] = tpe.iloc[0] / f["seconds_to_95"]
        f["speedup_vs_random_95"] = rnd / f["seconds_to_95"]
        f["speedup_vs_exhaustive_95"] = c.exhaustive_s / f["seconds_to_95"]
        f.insert(1, "points", c.points)
        frames.append(f)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
