"""A model's own account of one prediction, in seconds: what a family that can
explain itself returns (:meth:`explain_terms`, see :class:`Explains` in
:mod:`workbench.models.contract`).

The account's terms add up to the model's own time (before any physical floor):

* a linear model's terms are its weights times the counts;
* an expression model's terms are the products of its sums; where the expression
  takes the (smooth) maximum of several sides, an :class:`Overlap` records every
  side's cost, and only the winning side's terms are terms of the prediction (plus
  the smoothing, what the smooth maximum adds to the larger side);
* the roofline's one term is its limiter's time, the maximum of the limiters.

:mod:`workbench.models.explanation` wraps an account with the prediction, its floor,
its limiter and the roofline point.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass


class Category(enum.Enum):
    """What a term pays for (the limiter of a fitted model is its largest category)."""

    LAUNCH = "launch"
    GROUPS = "work-group scheduling"
    ARITHMETIC = "arithmetic"
    ON_CHIP = "on-chip memory and barriers"
    GLOBAL = "global memory"
    SMOOTHING = "overlap smoothing"
    FLOOR = "physical floor"
    SERIAL = "serial dependence"
    OTHER = "other"


def category_of(name: str) -> Category:
    """The category of a count feature's name (``f_op_float32_add``: arithmetic)."""
    if name == "f_sync_kernel_launch":
        return Category.LAUNCH
    # a launch's waves of resident groups are what the scheduling of its groups costs
    if "thread_groups" in name or name == "f_waves":
        return Category.GROUPS
    if name.startswith("f_op_"):
        return Category.ARITHMETIC
    # the local-tree features (local wavefronts per active warp, barrier phases) price
    # what local accesses and barriers cost; the volumes, the bytes that reach L2 and DRAM
    if name.startswith(("f_mem_access_local", "f_sync_barrier", "f_local_", "f_barrier_",
                        "f_global_barrier_", "f_prefetch_")):
        return Category.ON_CHIP
    # the L1 shares split a global access's sectors; the stack is device memory
    # behind L1, as a global access is; a walked row's sectors, a store's partial ones
    # and a load's isolated ones are global accesses, as are the loads of a dependent chain
    # and the sectors a work item re-reads from its registers (taken off the global loads)
    if name.startswith(("f_mem_access_global", "f_mem", "f_dram_", "f_l2_",
                        "f_footprint_bytes", "f_l1_", "f_stack_", "f_walk_",
                        "f_partial_store_", "f_isolated_load_", "f_dependent_loads_",
                        "f_held_reread_")):
        return Category.GLOBAL
    if name == "f_floor_s":
        return Category.FLOOR
    if name in ("f_recurrence_s", "f_substitution_s"):
        return Category.SERIAL
    return Category.OTHER


@dataclass(frozen=True)
class TermShare:
    """One term of a prediction: ``seconds`` = ``weight`` x ``count`` where the term is
    a product of a fitted weight and a count; otherwise ``seconds`` alone."""

    name: str
    seconds: float
    category: Category
    count: float | None = None
    weight: float | None = None
    parameter: str | None = None         # the fitted parameter(s) of the weight

    def to_json(self, total: float | None = None) -> dict:
        out = {"name": self.name, "seconds": _number(self.seconds),
               "category": self.category.value}
        if total:
            out["share"] = _number(self.seconds / total)
        for key in ("count", "weight"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _number(value)
        if self.parameter:
            out["parameter"] = self.parameter
        return out


@dataclass(frozen=True)
class OverlapSide:
    """One argument of an overlap (a max): its cost and its terms."""

    label: str
    seconds: float
    terms: tuple[TermShare, ...] = ()

    def to_json(self) -> dict:
        return {"label": self.label, "seconds": _number(self.seconds),
                "terms": [t.to_json() for t in self.terms]}


@dataclass(frozen=True)
class Overlap:
    """A (smooth) maximum or minimum of sides: which side wins, by how much."""

    function: str                        # smax, smin, max (the roofline's limiters)
    sides: tuple[OverlapSide, ...]
    winner: int                          # index into sides
    seconds: float                       # the overlap's value in the prediction

    @property
    def winning(self) -> OverlapSide:
        return self.sides[self.winner]

    @property
    def runner_up_index(self) -> int | None:
        """The closest loser's index into sides (two equal sides are still two)."""
        others = [i for i in range(len(self.sides)) if i != self.winner]
        if not others:
            return None
        pick = max if self.function != "smin" else min
        return pick(others, key=lambda i: self.sides[i].seconds)

    @property
    def runner_up(self) -> OverlapSide | None:
        index = self.runner_up_index
        return None if index is None else self.sides[index]

    @property
    def margin_s(self) -> float:
        """How much the winner's side differs from the closest loser's."""
        other = self.runner_up
        return abs(self.winning.seconds - other.seconds) if other is not None else math.nan

    @property
    def ratio(self) -> float:
        """The winner's cost over the runner-up's (how clearly it wins)."""
        other = self.runner_up
        if other is None or other.seconds == 0:
            return math.inf
        return self.winning.seconds / other.seconds

    @property
    def smoothing_s(self) -> float:
        """What a smooth maximum adds to its winner (0 for an exact max)."""
        return self.seconds - self.winning.seconds

    def side_names(self) -> list[str]:
        """Each side's label, told apart from the others: where sides share a category
        (two "global memory" sides), each is also named by its largest term of its own
        (one the other sides lack), and by its place where even that fails."""
        words = [set(s.label.replace(" + ...", "").split(" + ")) for s in self.sides]
        names = []
        for i, side in enumerate(self.sides):
            if not any(words[i] & w for j, w in enumerate(words) if j != i):
                names.append(side.label)
                continue
            others = {t.name for j, s in enumerate(self.sides) if j != i for t in s.terms}
            largest, own = _largest(side.terms), _largest(
                [t for t in side.terms if t.name not in others])
            if own is not None and own == largest:
                names.append(f"{side.label} (largest: {own})")
            elif own is not None:
                # its largest term is paid on another side too (a launch on both)
                names.append(f"{side.label} (largest of its own: {own})")
            else:
                names.append(side.label)
        alike = {n for n in names if names.count(n) > 1}
        return [f"{n} [side {i + 1} of {len(names)}]" if n in alike else n
                for i, n in enumerate(names)]

    def says(self) -> str:
        """Which side wins, against which, by how much; the sides by
        :meth:`side_names` ("smax: global memory wins ... against global memory" told
        a reader nothing)."""
        other = self.runner_up
        names = self.side_names()
        if other is None:
            return f"{self.function}: {names[self.winner]} alone"
        return (f"{self.function}: {names[self.winner]} wins, "
                f"{_ms(self.winning.seconds)} against {names[self.runner_up_index]} "
                f"{_ms(other.seconds)} ({self.ratio:.3g}x, by {_ms(self.margin_s)})")

    def to_json(self) -> dict:
        other = self.runner_up
        return {"function": self.function, "winner": self.winning.label,
                "winner_s": _number(self.winning.seconds),
                "runner_up": other.label if other is not None else None,
                "runner_up_s": _number(other.seconds) if other is not None else None,
                "margin_s": _number(self.margin_s), "ratio": _number(self.ratio),
                "smoothing_s": _number(self.smoothing_s), "seconds": _number(self.seconds),
                "says": self.says(), "sides": [s.to_json() for s in self.sides]}


@dataclass(frozen=True)
class Account:
    """A family's account of one prediction (module docstring)."""

    terms: tuple[TermShare, ...]
    total_s: float                       # the model's own time, which the terms make up
    overlaps: tuple[Overlap, ...] = ()
    limiter: str | None = None           # a family's own limiter (the roofline's level)
    notes: tuple[str, ...] = ()

    @property
    def terms_sum_s(self) -> float:
        return float(sum(t.seconds for t in self.terms))


def side_label(terms) -> str:
    """A side named by what it pays for, largest first: ``global memory``."""
    seconds: dict[Category, float] = {}
    for t in terms:
        if t.category is not Category.SMOOTHING:
            seconds[t.category] = seconds.get(t.category, 0.0) + t.seconds
    named = [c.value for c, s in sorted(seconds.items(), key=lambda cs: -cs[1]) if s > 0]
    return " + ".join(named[:2]) + (" + ..." if len(named) > 2 else "") if named \
        else "nothing"


def _largest(terms) -> str | None:
    """The name of the largest term but the smoothing (by size: a subtracted overlap's
    terms are negative)."""
    terms = [t for t in terms if t.category is not Category.SMOOTHING]
    return max(terms, key=lambda t: abs(t.seconds)).name if terms else None


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


def _number(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
