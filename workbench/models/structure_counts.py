"""Counting a ``kernel(point)`` factory space once per structure, not once per point.

A user's factory builds a concrete loopy kernel per point, and loopy cannot take a
split length as a parameter (ISL needs affine domains), so its knobs cannot simply be
made symbolic.  But within one *structure* (the values of the knobs that change the
kernel's shape: a choice of strings, an on/off flag such as ``prefetch``, or what a
space declares in ``structure=``), every count a model reads is, for divisible splits,
a sum of a few monomials in the numeric knobs (``n^3/tx + n^3/(ty*wpt)``).  So per
structure:

1. a *base* point and, for every numeric knob, up to two points that differ from it
   in that knob only are built and counted (:func:`plan_structure`);
2. along every knob the values are fitted by one monomial ``w (x/x0)^e`` (integer
   ``e`` in -3..3), else by two; the terms of all knobs are joined by matching their
   weights (:func:`fit_feature`), which gives every feature as a sum of monomials
   with exact rational weights;
3. a further point that differs from the base in as many knobs as possible, and
   points at the ends of every knob's range (with two neighbours per knob, at every
   value of it: :func:`_edge_checks`) are counted and every fitted feature must equal
   its count there (up to float rounding); otherwise the whole structure is counted
   point by point, and the ranking's report says which and why
   (:class:`StructureCount`).

A feature that is the minimum of two others (a load/store pairing, ``min(loads,
stores)``, which no sum of monomials fits where the two cross) is not fitted: the
caller names its two parts (``minima``), and its value at every point is the minimum
of theirs, checked against its count at every counted point.

Steps 2 and 3 are plain arithmetic on numbers; the rounds that ask for points and
fall back are :class:`workbench.models.structure_fit.StructureFit`'s, building and
counting is the caller's (:mod:`workbench.models.candidate_features`).  Footprints and array sizes are fitted
the same way (constant within a structure where the problem is fixed).
"""

from __future__ import annotations

import enum
import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

#: functions of a knob's ratio to the base tried, (e, l): r^e log2(r)^l; a count's power
#: of a split size is small, and a tree reduction's barriers grow with log2 of its width
BASIS = (*((e, 0) for e in range(-3, 4)), *((e, 1) for e in (-1, 0, 1)))


def _basis(r, code):
    e, log = code
    return r ** float(e) * (np.log2(r) if log else 1.0)
#: relative tolerance of "equal up to float rounding"
RTOL = 1e-9
#: the most terms a feature may have, and hypotheses kept while joining knobs
MAX_TERMS = 4
MAX_HYPOTHESES = 64


class CountMethod(enum.Enum):
    SYMBOLIC = "symbolic"     # counted at a few points, fitted, verified
    PER_POINT = "per point"   # every point built and counted
    CACHED = "cached"         # every point's counts read from the disk cache
    SHARED = "shared"         # an earlier structure's counts, checked at a few points


@dataclass(frozen=True)
class StructureCount:
    """How the points of one structure of a space were counted."""

    space: str
    structure: tuple[tuple[str, object], ...]
    points: int
    counted: int
    method: CountMethod
    reason: str = ""

    @property
    def label(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.structure) or "(one structure)"

    def covers(self, point) -> bool:
        """Whether ``point`` is one of this structure's (or part's): its knobs' values,
        a range ``"32..128"`` where the part is one of a knob split at the sub-group
        width (:class:`~workbench.models.structure_fit.StructureFit`), a list
        ``"32|64|256"`` where a knob's singular values were split off."""
        # a name "gs*ppi": the product of those knobs (structure_lanes' split)
        return all(_within(math.prod(point[n] for n in k.split("*")), v)
                   for k, v in self.structure)


def _within(value, held) -> bool:
    if isinstance(held, str) and "|" in held and not isinstance(value, str):
        # the values of a knob whose singular values were split off (structure_lanes)
        return any(float(v) == value for v in held.split("|"))
    if isinstance(held, str) and ".." in held and not isinstance(value, str):
        lo, _, hi = held.partition("..")
        return float(lo) <= value <= float(hi)
    return value == held


def structural_knobs(space) -> tuple[str, ...]:
    """The knobs that change a kernel's shape: those the space declares in
    ``structure``, else every knob whose values are not all positive integers, or
    are only 0 and 1 (an on/off flag).  With a declared structure, a knob that takes
    a value no power of which is defined (0, a negative number, a string: the catalog
    transpose's ``pad`` of 0 or 1) is structural too: no monomial fits along it."""
    if space.structure:
        declared = tuple(space.structure)
        return declared + tuple(
            k for k, values in space.tune_params.items() if k not in declared and not all(
                isinstance(v, (int, float, np.integer, np.floating))
                and not isinstance(v, bool) and v > 0 for v in values))
    out = []
    for name, values in space.tune_params.items():
        numeric = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                      and v >= 1 for v in values)
        if not numeric or set(values) <= {0, 1}:
            out.append(name)
    return tuple(out)


def structure_key(point, structural: Sequence[str]) -> tuple[tuple[str, object], ...]:
    return tuple((k, point[k]) for k in structural)


@dataclass(frozen=True)
class StructurePlan:
    """The points of one structure to count: base, per-knob neighbours, a check."""

    knobs: tuple[str, ...]           # numeric knobs that vary within the structure
    base: object
    axes: tuple[tuple[object, ...], ...]   # per knob, its neighbours of the base
    checks: tuple[object, ...]
    #: per check, the knob to blame when the fit fails there alone (an end of that
    #: knob's range that no other probe reaches), else None
    blames: tuple[str | None, ...] = ()

    @property
    def probes(self) -> tuple[object, ...]:
        return (self.base, *(p for axis in self.axes for p in axis), *self.checks)


def _differing(a, b, knobs) -> list[str]:
    return [k for k in knobs if a[k] != b[k]]


def _spread(p, base, knobs) -> float:
    return sum(abs(math.log(float(p[k]) / float(base[k]))) for k in knobs)


def plan_structure(points: Sequence, structural: Sequence[str], *, per_knob: int = 2,
                   base=None) -> StructurePlan | str:
    """Which points of one structure to count (a base, ``per_knob`` neighbours of it
    along every numeric knob, a check that differs in as many knobs as possible), or
    why it must be counted per point."""
    names = [k for k, _ in points[0].items if k not in structural]
    knobs = tuple(k for k in names if len({p[k] for p in points}) > 1)
    if not knobs:
        return StructurePlan((), points[0], (), ())   # one kernel shape, one count
    # per knob, the points grouped by their other knobs' values: a base's neighbours
    # along a knob are its group (every point tried as the base: a lookup, not a scan)
    values = {p: tuple(p[k] for k in knobs) for p in points}
    lines = [defaultdict(list) for _ in knobs]
    for p in points:
        for i, line in enumerate(lines):
            line[values[p][:i] + values[p][i + 1:]].append(p)

    def neighbours(base):
        found = []
        at = values[base] if base in values else tuple(base[k] for k in knobs)
        for i, (k, line) in enumerate(zip(knobs, lines)):
            along = [p for p in line[at[:i] + at[i + 1:]] if values[p][i] != at[i]]
            # the farthest from the base on a log scale first: widest lever for the fit
            along.sort(key=lambda p: -abs(math.log(float(p[k]) / float(base[k]))))
            found.append(tuple(along[:per_knob]))
        return found

    ends = {(k, v) for k in knobs for v in (min(p[k] for p in points),
                                             max(p[k] for p in points))}
    best = None
    for base in ([base] if base is not None else points):
        axes = neighbours(base)
        # then the base whose lines reach most ends of the knobs' ranges: each end
        # reached by a neighbour is one edge check fewer (_edge_checks)
        reached = {(k, p[k]) for k, a in zip(knobs, axes) for p in (base, *a)} & ends
        score = (sum(min(1, len(a)) for a in axes), sum(len(a) for a in axes),
                 len(reached))
        if best is None or score > best[0]:
            best = (score, base, axes)
    _, base, axes = best
    lacking = [k for k, a in zip(knobs, axes) if not a]
    if lacking:
        return f"no point differs from the base in {lacking[0]} alone"
    used = {base, *(p for a in axes for p in a)}
    rest = [p for p in points if p not in used]
    if len(rest) <= 1:
        return "too few points to check a fit"
    check = max(rest, key=lambda p: (len(_differing(p, base, knobs)), _spread(p, base, knobs)))
    edges, blames = _edge_checks(points, knobs, base, [*used, check],
                                 every_value=per_knob > 1)
    return StructurePlan(knobs, base, tuple(axes), (check, *edges), (None, *blames))


def _edge_checks(points, knobs, base, probes, every_value: bool = False
                 ) -> tuple[list, list]:
    """Checks at the ends of every knob's range that no probe reaches (with
    ``every_value``, then at every value inside it too), the fewest points that reach
    them all, and per check the knob to blame if it alone fails.

    A count is a sum of monomials in a knob only while the kernel keeps its shape, and
    loopy changes the shape at the ends of a range: a loop or local axis of length one
    is dropped with its tree and barriers, a split whose outer loop runs once loses it.
    A fit through the inner values alone would carry a barrier count to a group with
    one lane along the tree (issue #33: a column sum's ``by = 1``).  Inside the range
    too: two monomials along a knob of four values pass through the three its probes
    take whatever the count is at the fourth (a prefetch's local stores per sub-group,
    ``2 + 4/wpt`` for ``wpt >= 2`` but 8 at ``wpt = 1``: the fit through 1, 4 and 8
    gave ``wpt = 2`` 4.5 for 4, issue #33's blind5 syrk).  So the second round's plan
    (two neighbours per knob, whose two-term fits nothing along the knob checks)
    checks every value; the first round's one monomial per knob is checked along it
    by the ends."""
    ends, inside = set(), set()
    for k in knobs:
        values = {p[k] for p in points}
        missed = {(k, v) for v in values if not any(q[k] == v for q in probes)}
        ends |= missed & {(k, min(values)), (k, max(values))}
        if every_value:
            inside |= missed - ends
    rest = [p for p in points if p not in probes]
    edges, blames = [], []
    # the ends first, as they were chosen before any value inside was checked: the
    # checks only grow, so a fit they took is no less checked than it was
    for uncovered in (ends, inside):
        while uncovered and rest:
            best = max(rest, key=lambda p: (len({(k, p[k]) for k in knobs} & uncovered),
                                            len(_differing(p, base, knobs)),
                                            _spread(p, base, knobs)))
            reached = {(k, best[k]) for k in knobs} & uncovered
            if not reached:
                break
            edges.append(best)
            rest.remove(best)
            if uncovered is ends:
                inside -= {(k, best[k]) for k in knobs}
            uncovered -= reached
            blamed = {k for k, _ in reached}
            blames.append(blamed.pop() if len(blamed) == 1 else None)
    return edges, blames


# {{{ fitting

#: a feature's name -> the names of the two features it is the minimum of, or None
Minima = Callable[[str], "tuple[str, str] | None"]


def _fitted_names(names, minima: Minima | None) -> tuple[list[str], dict]:
    """The names to fit, and those to take as the minimum of two others."""
    pairs = {n: minima(n) for n in names} if minima is not None else {}
    pairs = {n: pair for n, pair in pairs.items() if pair is not None}
    return [n for n in names if n not in pairs], pairs


def _take_minima(out: dict, pairs: dict, counted: Mapping, probes: Sequence,
                 points: Sequence) -> str | None:
    """Each of ``pairs`` (name -> its two parts) at every point as the minimum of its
    parts' fitted values (a part never counted is 0, as a count not listed is),
    checked against its counts at ``probes``; why not, if it does not check out."""
    where = {p: j for j, p in enumerate(points)}
    zero = np.zeros(len(points))
    for name, (a, b) in pairs.items():
        values = np.minimum(out.get(a, zero), out.get(b, zero))
        for p in probes:
            got, want = float(values[where[p]]), float(counted[p].get(name, 0.0))
            if not (_close(got, want) or (np.isnan(got) and np.isnan(want))):
                return f"{name} is not the minimum of {a} and {b} at {p.label}"
        out[name] = values
    return None


def _close(a, b) -> bool:
    # np.isclose's test on two numbers, without its arrays (a fit calls this thousands
    # of times): |a - b| <= atol + rtol |b|, NaN equal to nothing, an infinity to itself
    a, b = float(a), float(b)
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-300) + RTOL * abs(b)


def _fit_axis(ratios: Sequence[float], values: Sequence[float], y0: float
              ) -> list[tuple[tuple[int, int], float]] | None:
    """``y(r) = sum w_c b_c(r)`` (:data:`BASIS`) through (1, y0) and the given points:
    a list of (basis code, weight), the fewest terms that fit; None if none does, or
    if two pairs of terms do (then a term is too small at these ratios to tell, and
    the first pair could be far off where it is not)."""
    if y0 == 0 and all(v == 0 for v in values):
        return []
    for code in BASIS:
        if code[1] == 0 and all(_close(y0 * _basis(r, code), v)
                                for r, v in zip(ratios, values)):
            return [(code, y0)]
    if len(ratios) < 2:
        return None
    (r1, r2), (y1, y2) = ratios[:2], values[:2]
    found = []
    for c1, c2 in itertools.combinations(BASIS, 2):
        # w1 b1(1) + w2 b2(1) = y0, w1 b1(r1) + w2 b2(r1) = y1; checked at r2
        a = np.array([[_basis(1.0, c1), _basis(1.0, c2)], [_basis(r1, c1), _basis(r1, c2)]])
        if abs(np.linalg.det(a)) < 1e-12:
            continue
        w1, w2 = np.linalg.solve(a, [y0, y1])
        if w1 == 0 or w2 == 0 or _close(w1, 0) or _close(w2, 0):
            continue
        if _close(w1 * _basis(r2, c1) + w2 * _basis(r2, c2), y2):
            found.append([(c1, float(w1)), (c2, float(w2))])
    # two pairs through the same three values: a term too small to tell at these
    # ratios (a weight below the tolerance of the other), not a fit
    return found[0] if len(found) == 1 else None


#: a fitted feature: terms (weight, exponent per knob), in ratios to the base's values
Terms = tuple[tuple[float, tuple[int, ...]], ...]


def _join(axes: Sequence[list[tuple[int, float]]], total: float) -> list[Terms]:
    """Every set of terms whose weights, grouped by exponent along each knob, give each
    knob's fit (the fewest terms: as many as the knob with most)."""
    if all(len(a) == 0 for a in axes):
        return [()] if total == 0 else []
    if any(len(a) == 0 for a in axes):
        # zero along one knob through the base, not along another (a tree's barriers
        # with the base at the end where it vanishes): no join of one knob's terms at
        # a time gives it, and "zero everywhere" would pass a check at the base's value
        return []
    if len(axes) > 1 and any(code[1] for a in axes for code, _ in a):
        return []    # a log term is 0 at the base, unseen along the other knobs: fit jointly
    seed = max(range(len(axes)), key=lambda i: len(axes[i]))
    n_terms = len(axes[seed])
    if n_terms > MAX_TERMS:
        return []
    hypotheses = [[{seed: e} for e, _ in axes[seed]]]
    weights = [w for _, w in axes[seed]]
    for i, groups in enumerate(axes):
        if i == seed:
            continue
        extended = []
        for assignment in itertools.product(range(len(groups)), repeat=n_terms):
            sums = [0.0] * len(groups)
            for term, g in enumerate(assignment):
                sums[g] += weights[term]
            if all(_close(s, w) for s, (_, w) in zip(sums, groups)):
                for h in hypotheses:
                    extended.append([{**t, i: groups[g][0]} for t, g in zip(h, assignment)])
        hypotheses = extended[:MAX_HYPOTHESES]
        if not hypotheses:
            return []
    return [tuple((w, tuple(t[i] for i in range(len(axes))))
                  for w, t in zip(weights, h)) for h in hypotheses]


def exact_counts(fitted: np.ndarray, counts) -> np.ndarray:
    """A fitted feature's values, those within float rounding of an integer made that
    integer where every count it was fitted and checked on is one (a count of
    accesses or operations: a fit's ``4718591.999999999`` is 4718592); else as they
    are."""
    counts = np.asarray(list(counts), dtype=float)
    counts = counts[np.isfinite(counts)]
    if not len(counts) or np.any(counts != np.round(counts)):
        return fitted
    nearest = np.round(fitted)
    close = np.abs(fitted - nearest) <= 4 * RTOL * np.maximum(np.abs(nearest), 1.0)
    return np.where(close, nearest, fitted)


def evaluate_terms(terms: Terms, ratios: np.ndarray) -> np.ndarray:
    """A fitted feature at points given as ratios to the base (points x knobs)."""
    out = np.zeros(len(ratios))
    for w, codes in terms:
        out = out + w * _monomial(ratios, codes)
    return out


def _monomial(ratios: np.ndarray, codes) -> np.ndarray:
    out = np.ones(len(ratios))
    for i, code in enumerate(codes):
        out = out * _basis(ratios[:, i], code)
    return out


def knob_ratios(points: Sequence, base, knobs: Sequence[str]) -> np.ndarray:
    return np.array([[float(p[k]) / float(base[k]) for k in knobs] for p in points]
                    ).reshape(len(points), len(knobs))


def fit_feature(plan: StructurePlan, values: Mapping[object, float]
                ) -> tuple[list[Terms], str | None]:
    """Candidate sums of monomials of one feature from its values at the plan's base
    and neighbours (the caller checks them), and the knob that fits none, if one."""
    y0 = values[plan.base]
    axes = []
    for knob, along in zip(plan.knobs, plan.axes):
        ratios = [float(p[knob]) / float(plan.base[knob]) for p in along]
        fit = _fit_axis(ratios, [values[p] for p in along], y0)
        if fit is None:
            return [], knob
        axes.append(fit)
    if not plan.knobs:
        return ([((y0, ()),)] if y0 != 0 else [()]), None
    return _join(axes, y0), None


def fit_structure(plan: StructurePlan, counted: Mapping[object, Mapping[str, float]],
                  points: Sequence, minima: Minima | None = None
                  ) -> tuple[dict[str, np.ndarray] | None, str, str | None]:
    """Every feature of ``counted`` (point -> name -> value, at the plan's probes) at
    every one of ``points``: fitted and checked (``minima``: the module docstring);
    else None, why, and the knob to blame if one is (a feature that fits no sum of
    monomials along it)."""
    names, pairs = _fitted_names(sorted(set().union(*(counted[p] for p in plan.probes))),
                                 minima)
    fitted = [p for p in plan.probes if p not in plan.checks]
    ratios = knob_ratios(points, plan.base, plan.knobs)
    check_ratios = knob_ratios(plan.checks, plan.base, plan.knobs)
    out: dict[str, np.ndarray] = {}
    for name in names:
        values = {p: float(counted[p].get(name, 0.0)) for p in plan.probes}
        if all(np.isnan(v) for v in values.values()):
            out[name] = np.full(len(points), np.nan)
            continue
        if any(np.isnan(v) for v in values.values()):
            return None, f"{name} is known at some points only", None
        candidates, knob = fit_feature(plan, {p: values[p] for p in fitted})
        if knob is not None:
            return None, f"{name} is no sum of few monomials in {knob}", knob
        if not candidates:
            return None, f"{name}'s terms along the knobs do not match up", None
        misses = [[not _close(float(v), values[c]) for v, c in
                   zip(evaluate_terms(t, check_ratios), plan.checks)] for t in candidates]
        good = [t for t, miss in zip(candidates, misses) if not any(miss)]
        if not good:
            # the check every candidate misses; its knob is to blame if it has one
            first = next((i for i in range(len(plan.checks)) if all(m[i] for m in misses)),
                         0)
            blame = plan.blames[first] if first < len(plan.blames) else None
            return None, f"{name}'s fit differs from its count at " \
                f"{plan.checks[first].label}", blame
        at_points = [evaluate_terms(t, ratios) for t in good]
        if any(not np.allclose(a, at_points[0], rtol=RTOL, atol=0) for a in at_points[1:]):
            return None, f"{name} has several fits that the check cannot tell apart", None
        out[name] = exact_counts(at_points[0], values.values())
    reason = _take_minima(out, pairs, counted, plan.probes, points)
    return (None, reason, None) if reason else (out, "", None)

# {{{ terms over products of knobs

#: the most monomials of a joint fit (its points are counted: more costs more)
MAX_JOINT_TERMS = 16
#: a joint fit's absolute tolerance, relative to its largest count (near zero counts)
JOINT_ATOL = 1e-13


@dataclass(frozen=True)
class TensorPlan:
    """A joint fit: every feature a sum over all products of the exponents its knobs
    show one at a time (``n^2 (1 + 2/bx)(1 + 2/(by wpi))`` has four terms whose
    weights do not sort out knob by knob), its weights solved from enough points."""

    knobs: tuple[str, ...]
    base: object
    bases: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]   # feature -> monomials
    fit_points: tuple[object, ...]
    checks: tuple[object, ...]
    blames: tuple[str | None, ...] = ()     # as StructurePlan's

    @property
    def probes(self) -> tuple[object, ...]:
        return (*self.fit_points, *self.checks)


def _design(ratios: np.ndarray, basis) -> np.ndarray:
    return np.stack([_monomial(ratios, codes) for codes in basis], axis=1)


def joint_fit_order(plan: StructurePlan, points: Sequence) -> list:
    """The points beyond a plan's probes in the order a joint fit takes them: those
    that differ from the base in most knobs, farthest first."""
    return sorted((p for p in points if p not in plan.probes),
                  key=lambda p: (-len(_differing(p, plan.base, plan.knobs)),
                                 -_spread(p, plan.base, plan.knobs), p.label))


def plan_tensor(plan: StructurePlan, counted: Mapping, points: Sequence,
                minima: Minima | None = None) -> TensorPlan | str:
    """The joint fit's monomials per feature (from the two-neighbour fits along each
    knob) and the points it needs: the plan's, then ones that differ from the base in
    most knobs, until every feature's weights are determined with two checks left."""
    names, _ = _fitted_names(sorted(set().union(*(counted[p] for p in plan.probes))),
                             minima)
    bases = []
    for name in names:
        y0 = float(counted[plan.base].get(name, 0.0))
        exps = []
        for knob, along in zip(plan.knobs, plan.axes):
            ratios = [float(p[knob]) / float(plan.base[knob]) for p in along]
            fit = _fit_axis(ratios, [float(counted[p].get(name, 0.0)) for p in along], y0)
            if fit is None:
                return f"{name} is no sum of few monomials in {knob}"
            exps.append(sorted({c for c, _ in fit} | ({(0, 0)} if not fit else set())))
        basis = tuple(itertools.product(*exps))
        if len(basis) > MAX_JOINT_TERMS:
            return f"{name} would need {len(basis)} monomials"
        bases.append((name, basis))
    # points whose monomials span what all the structure's points' do: then the
    # weights' fit gives the same values at every point whichever solution it picks
    union = sorted({e for _, b in bases for e in b})
    if len(union) > 2 * MAX_JOINT_TERMS:
        return f"the features would need {len(union)} monomials"
    target = np.linalg.matrix_rank(_design(knob_ratios(points, plan.base, plan.knobs), union))
    fit_points = [p for p in plan.probes if p not in plan.checks]
    rank = np.linalg.matrix_rank(_design(knob_ratios(fit_points, plan.base, plan.knobs), union))
    # points counted already (a failed share's) first: no build for them
    rest = sorted((p for p in joint_fit_order(plan, points) if p not in fit_points),
                  key=lambda p: p not in counted)
    for p in rest:
        if rank >= target:
            break
        more = np.linalg.matrix_rank(_design(
            knob_ratios([*fit_points, p], plan.base, plan.knobs), union))
        if more > rank:
            fit_points.append(p)
            rank = more
    rest = [p for p in rest if p not in fit_points]
    checks = [*plan.checks, *rest[:1]]
    blames = (*plan.blames, *(None for _ in rest[:1]))
    if rank < target or len(checks) < 2 or len(fit_points) + len(checks) >= len(points):
        return "too few points for a joint fit"
    return TensorPlan(plan.knobs, plan.base, tuple(bases), tuple(fit_points), tuple(checks),
                      blames)


def fit_tensor(plan: TensorPlan, counted: Mapping, points: Sequence,
               minima: Minima | None = None
               ) -> tuple[dict[str, np.ndarray] | None, str, str | None]:
    """Every feature at every point from the joint fit, checked at two points (or
    more: the ends of the knobs' ranges); where a check with a knob to blame fails,
    that knob."""
    names, pairs = _fitted_names(sorted(set().union(*(counted[p] for p in plan.probes))),
                                 minima)
    bases = dict(plan.bases)
    at_fit = knob_ratios(plan.fit_points, plan.base, plan.knobs)
    at_check = knob_ratios(plan.checks, plan.base, plan.knobs)
    at_all = knob_ratios(points, plan.base, plan.knobs)
    out = {}
    for name in names:
        if name not in bases:
            return None, f"{name} appears only at points of the joint fit", None
        y = np.array([float(counted[p].get(name, 0.0)) for p in plan.fit_points])
        c = np.array([float(counted[p].get(name, 0.0)) for p in plan.checks])
        if np.isnan(y).all() and np.isnan(c).all():
            out[name] = np.full(len(points), np.nan)
            continue

        def design(r, basis=bases[name]):
            return _design(r, basis)
        a = design(at_fit)
        weights, *_ = np.linalg.lstsq(a, y, rcond=None)
        # each count to float rounding of itself; the absolute part is a solver's
        # rounding near a zero count only (RTOL of the largest count passed a term
        # lost where it is 4e-9 of the count)
        if np.linalg.matrix_rank(a) < np.linalg.matrix_rank(design(at_all)) or not np.allclose(
                a @ weights, y, rtol=RTOL, atol=JOINT_ATOL * np.abs(y).max(initial=0)):
            return None, f"{name} fits no sum of its monomials", None
        miss = ~np.isclose(design(at_check) @ weights, c, rtol=RTOL,
                           atol=JOINT_ATOL * np.abs(c).max(initial=0))
        if miss.any():
            first = int(np.argmax(miss))
            blame = plan.blames[first] if first < len(plan.blames) else None
            return None, f"{name}'s joint fit differs from its count at " \
                f"{plan.checks[first].label}", blame
        out[name] = exact_counts(design(at_all) @ weights, [*y, *c])
    reason = _take_minima(out, pairs, counted, plan.probes, points)
    return (None, reason, None) if reason else (out, "", None)

# }}}
