"""The rounds of counting one structure of a ``kernel(point)`` space: which points to
build and count next, the fits of :mod:`workbench.models.structure_counts` over what
was counted, and where they fail, a split of the structure or a count of every point."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.models.structure_counts import (
    CountMethod,
    Minima,
    StructurePlan,
    TensorPlan,
    fit_structure,
    fit_tensor,
    joint_fit_order,
    plan_structure,
    plan_tensor,
)
from workbench.models.structure_lanes import (
    cover,
    differs,
    key_name,
    key_value,
    lane_check_points,
    lane_keys,
    lane_misses,
    unprobed_points,
)
from workbench.models.structure_rename import AcrossKnob, class_swaps


#: the sub-group (warp) width that a knob's values may cross: the shipped models count
#: sectors per sub-group of 32 lanes (``subgroup/32``), and an access's sectors per warp
#: change form where a group's extent along ``lid(0)`` crosses it (a warp spanning two
#: rows of a 16-wide group touches other sectors than one inside a 32-wide row)
SUBGROUP_WIDTH = 32


def _straddles(points: Sequence, knob: str) -> bool:
    values = [p[knob] for p in points]
    return min(values) < SUBGROUP_WIDTH <= max(values)


def _checkable(points: Sequence, knob: str) -> bool:
    """Whether both sides of the sub-group width hold one value of ``knob`` (the knob
    fixed there, as a split by values makes it) or at least three: a side of two values
    fits a monomial through both and checks none along the knob, and where the count
    changes form with another knob there, the checks may miss it (the overlap model's
    local stores of transpose, ``bx`` of 32 and 64 with ``by wpi`` of 32 to 128, 3 values
    wrong: issue #33)."""
    below = {p[knob] for p in points if p[knob] < SUBGROUP_WIDTH}
    above = {p[knob] for p in points if p[knob] >= SUBGROUP_WIDTH}
    return all(len(side) == 1 or len(side) >= 3 for side in (below, above))


class StructureFit:
    """Counts one structure from as few counted points as it can, in rounds: the
    caller counts :meth:`wanted`, hands the counts to :meth:`give`, and repeats until
    :attr:`done`; then :attr:`values` holds every feature at every point.

    Round 1 counts the base, one neighbour per knob and a check, and fits one monomial
    per feature; where that fails, round 2 adds a second neighbour per knob and fits
    sums of two; where that fails too, the structure is split by the knob whose fit
    failed (a barrier count of ``log2`` of a group size, a stride class that changes
    with a work-per-item), or with no knob to blame and no joint fit by the knob of
    fewest values, and each part fitted on its own; where that knob only moves an
    access's class (a blocked order's work per item), the structure is fitted across
    it on renamed classes instead (:mod:`~workbench.models.structure_rename`); where
    nothing fits, every point is counted.  ``report`` tells which.

    A knob that is the group's extent along ``lid(0)`` (``lanes``, the caller's: the
    space's group size says it) whose values lie on both sides of the sub-group width
    (:data:`SUBGROUP_WIDTH`, ``bx`` of 16 to 128) is split at it first, into two parts
    that keep it as a knob: a sector count per warp is often one sum of monomials in
    ``bx`` above the warp width and another below it (issue #33: ``chains38``'s
    ``..._dramsectors`` of a stencil, constant in ``bx >= 32`` and another constant at
    ``bx = 16``), where one part per value of ``bx`` fits each value on its own.
    """

    def __init__(self, points: Sequence, structural: Sequence[str], depth: int = 0, *,
                 per_point: str | None = None, speculate: bool = False,
                 minima: Minima | None = None, ranges: tuple[str, ...] = (),
                 lanes: tuple[str, ...] = (), listed: tuple[str, ...] = ()):
        self.points = list(points)
        self.lanes = tuple(lanes)
        # knobs (or products of two, ``gs*ppi``) whose values this part lists in its
        # report: a part split off at one such value, or the rest of the structure
        # (``gs=32|64|256``)
        self.listed = tuple(listed)
        # an accepted fit's values while its unprobed lane values are counted
        self._pending: dict | None = None
        self._lane_points: tuple = ()
        # knobs this part is a range of (split at the sub-group width), still numeric
        self.ranges = tuple(ranges)
        self._members = set(self.points)
        self.minima = minima
        self.structural = tuple(structural)
        self.depth = depth
        self.counted: dict = {}
        self.values: dict[object, dict[str, float]] | None = None
        self.parts: list[StructureFit] = []
        self.reason = ""
        self.method: CountMethod | None = None
        # with cores to spare, two neighbours per knob at once: a round fewer where one
        # monomial per feature is not enough, at no wall time
        self._round = 1 if speculate else 0
        self._speculate = speculate
        self._plan = None
        self._order: tuple | None = None     # (plan, its speculative order)
        if per_point is not None:
            self._per_point(per_point)
        else:
            self._next()

    @property
    def done(self) -> bool:
        return self.values is not None

    def _next(self) -> None:
        self._round += 1
        if self._round > 2:
            self._per_point(self.reason)
            return
        plan = self._second_plan() if self._round == 2 else plan_structure(
            self.points, self.structural, per_knob=1)
        if isinstance(plan, str):
            self._per_point(plan)
            return
        self._plan = plan

    def _second_plan(self):
        """Round 2's plan: two neighbours per knob of the first round's base, or of
        another base where that one has fewer along some knob (a base at the end of a
        range that a restriction cuts, ``bx*by >= 64`` with ``bx = 16``: one ``by``
        beside it, so no two-term fit along ``by`` and a split of the structure by it,
        three fits instead of one); the first round's probes are counted anyway."""
        plan = plan_structure(self.points, self.structural, per_knob=2,
                              base=self._plan.base if self._plan is not None else None)
        if isinstance(plan, StructurePlan) and any(len(a) < 2 for a in plan.axes):
            other = plan_structure(self.points, self.structural, per_knob=2)
            if isinstance(other, StructurePlan) and \
                    sum(map(len, other.axes)) > sum(map(len, plan.axes)):
                return other
        return plan

    def _per_point(self, reason: str) -> None:
        self._plan = None
        self.method = CountMethod.PER_POINT
        self.reason = reason

    def wanted(self) -> list:
        if self.done:
            return []
        if self.parts:
            return [p for part in self.parts for p in part.wanted()]
        if self._pending is not None:
            return [p for p in self._lane_points if p not in self.counted]
        want = self._plan.probes if self._plan is not None else self.points
        return [p for p in want if p not in self.counted]

    def first_probes(self) -> tuple:
        """The base and the checks of the plan it starts from, then the fewest points
        that reach the ends of every knob's range and every value of each lane key
        (:func:`~workbench.models.structure_lanes.lane_keys`) that those miss (none
        where it counts every point): :mod:`workbench.models.structure_share`'s probes.
        The plan's checks leave out the ends its neighbours reach, which a share does
        not count; a structure that differs from another only where a loop of length
        one is dropped would take the other's counts there.  Ends and lane values are
        taken together (exact17 took the ends, then the lane values, at the plan's
        neighbours first: as many builds as the own fit, so no share was ever tried);
        of points that reach as many, a neighbour of the plan first."""
        if self._plan is None or self.counted:
            return ()
        plan = self._plan
        keys = lane_keys(plan.knobs, self.lanes)

        def pairs(p) -> set:
            # an end of a knob's range it reaches, and its value of every lane key
            return {(("end", k), p[k]) for k in plan.knobs} | \
                {(key, key_value(p, key)) for key in keys}

        ends = {(("end", k), v) for k in plan.knobs
                for v in (min(p[k] for p in self.points), max(p[k] for p in self.points))}
        # and every value of a lane knob, as a fit is checked (structure_lanes): a
        # structure whose counts equal another's but at one lane value (blind10's
        # bitonic_step, blocked order's fraction of lines at gs = 128, cyclic order's
        # unit stride there) must not take the other's there
        lanes = {(key, key_value(p, key)) for p in self.points for key in keys}
        probes = [plan.base, *plan.checks]
        missed = (ends | lanes) - set().union(*(pairs(p) for p in probes))
        # the fewest points that reach the ends and lane values together (a point at
        # one end with an unprobed lane value counts for both: section 61 of the
        # structure-ranking notes); of those that reach as many, the plan's neighbours
        # first, which a fit after all counts anyway
        neighbours = {q for axis in plan.axes for q in axis}
        rest = [p for p in self.points if p not in probes]
        return (*probes, *cover(rest, pairs, missed, plan.base, plan.knobs, neighbours))

    def first_stage(self) -> int:
        """How many of :meth:`first_probes` lead it that its own fit counts too (the
        plan's base and checks)."""
        return 1 + len(self._plan.checks) if self._plan is not None else 0

    def first_cost(self) -> int:
        """The builds its own fit takes at the least: the first round's probes not
        counted yet and the lane checks that an accepted first-round fit adds
        (:func:`~workbench.models.structure_lanes.lane_check_points`); what a share's
        :meth:`first_probes` is weighed against (``structure_share``).  Without the lane
        checks a share that checks every lane value costs as many builds as the first
        round alone, and was not tried (section 58 of the structure-ranking notes)."""
        if self._plan is None or self.done:
            return len(self.wanted())
        return len(self.wanted()) + len(lane_check_points(
            self._plan, self.points, self.lanes, self.counted))

    def speculative(self) -> list:
        """Points worth counting now on cores that would otherwise wait, most likely
        needed first: the lane checks that an accepted fit of this plan counts next
        (:func:`~workbench.models.structure_lanes.lane_check_points`), then the plan's
        second neighbours per knob, then the points a joint fit takes first
        (:func:`plan_tensor`'s order), then every other point; a split structure's
        parts' in turn."""
        if self.parts:
            return [p for part in self.parts for p in part.speculative()]
        if self.done or self._plan is None or isinstance(self._plan, TensorPlan) or \
                self._pending is not None:
            return []
        if self._order is None or self._order[0] is not self._plan:
            # asked again after every result while cores are idle: ordered once a plan
            # -- the lane checks first: most structures' first fit is accepted, and
            # its lane checks were a round of their own after it, each waiting for the
            # fit's slowest probe (on the GPU host's 16 cores, a structure's rounds and
            # not the cores bound a ranking's wall time: structure-ranking.md, host19).
            # A lane check counted before the fit is left out of the fit's own checks
            # (give: ``unprobed_points``) and compared by the lane checks as ever.
            out = list(lane_check_points(self._plan, self.points, self.lanes,
                                         self.counted))
            if self._round < 2:
                more = self._second_plan()
                if isinstance(more, StructurePlan):
                    out += [p for p in more.probes if p not in self._plan.probes]
            out += joint_fit_order(self._plan, self.points)
            probes = set(self._plan.probes)
            self._order = (self._plan,
                           list(dict.fromkeys(p for p in out if p not in probes)))
        return [p for p in self._order[1] if p not in self.counted]

    def give(self, counted: Mapping[object, Mapping[str, float] | None]) -> None:
        """Counts of points (None: the point could not be counted)."""
        if self.done:
            return
        if self.parts:
            for part in self.parts:
                part.give(counted)
            if all(part.done for part in self.parts):
                self.values = {p: v for part in self.parts for p, v in part.values.items()}
            return
        self.counted.update({p: v for p, v in counted.items() if p in self._members})
        if self._pending is not None:
            self._check_lanes()
            return
        if self._plan is None:
            if all(p in self.counted for p in self.points):
                self.values = {p: dict(self.counted[p] or {}) for p in self.points}
            return
        if any(p not in self.counted for p in self._plan.probes):
            return
        bad = [p for p in self._plan.probes if self.counted[p] is None]
        if bad:
            self._per_point(f"{bad[0].label} could not be counted")
            self.give({})       # every point may be counted already (as a split's)
            return
        if isinstance(self._plan, TensorPlan):
            fitted, reason, knob = fit_tensor(self._plan, self.counted, self.points,
                                              self.minima)
        else:
            fitted, reason, knob = fit_structure(self._plan, self.counted, self.points,
                                                 self.minima)
        if fitted is not None:
            # a point counted beyond the plan's (a parent's lane check, a speculative
            # count) is a check too: its count, not the fit, is what it is
            values = {p: {n: float(v[j]) for n, v in fitted.items()}
                      for j, p in enumerate(self.points)}
            # -- but one at a lane value no probe of the plan had is left to the lane
            # checks, which split its value off (a share's probes, counted before the
            # fit: blind10's bitonic_step, blocked order at gs*ppi = 128, failed the
            # whole first round and was split by ppi, at more builds than the share)
            lane_valued = unprobed_points(self._plan, self.points, self.lanes)
            wrong = next(((p, n) for p, found in self.counted.items()
                          if found is not None and p not in lane_valued
                          for n in (differs(found, values[p]),) if n is not None), None)
            if wrong is not None:
                fitted, knob = None, None
                reason = f"{wrong[1]}'s fit differs from its count at {wrong[0].label}"
        if fitted is not None:
            if self._round > 1 and not isinstance(self._plan, TensorPlan) and self.reason:
                self.reason = f"one monomial per feature did not fit: {self.reason}"
            self._pending = values
            self._lane_points = lane_check_points(self._plan, self.points, self.lanes,
                                                  self.counted)
            self._check_lanes()
            return
        self.reason = reason
        if self._round == 1:
            self._next()
            # its points may be counted already (a part of a split structure starts
            # from its parent's counts): then fitted now, or nothing would ask again
            self.give({})
            return
        joint = isinstance(self._plan, TensorPlan)
        if knob is None and not joint:
            tensor = plan_tensor(self._plan, self.counted, self.points, self.minima)
            if isinstance(tensor, TensorPlan):
                self._plan = tensor
                self.reason = f"terms fitted jointly in all knobs: {reason}"
                self.give({})
                return
        warp = self._warp_knob(knob)
        if warp is not None:
            # below and above the warp width: each part keeps the knob (a range split
            # takes no depth; a part's values no longer straddle it, so it ends)
            below = [p for p in self.points if p[warp] < SUBGROUP_WIDTH]
            above = [p for p in self.points if p[warp] >= SUBGROUP_WIDTH]
            self.parts = [StructureFit(g, self.structural, self.depth,
                                       speculate=self._speculate, minima=self.minima,
                                       ranges=(*self.ranges, warp), lanes=self.lanes)
                          for g in (below, above)]
            self.reason = f"split by {warp} at the sub-group width {SUBGROUP_WIDTH}: {reason}"
            self.give(self.counted)
            return
        how = ""
        if knob is None and len(self._plan.knobs) > 1:
            # no knob to blame and no joint fit: split by the knob of fewest values
            # (a stride class that changes with it, say), whose parts are fitted and
            # checked as any structure, on the points counted so far; never more
            # builds than counting every point
            knob = min(self._plan.knobs, key=lambda k: len({p[k] for p in self.points}))
            how = ", the knob of fewest values"
        if knob is not None and self.depth < 2:
            groups: dict = {}
            for p in self.points:
                groups.setdefault(p[knob], []).append(p)

            def split(knob=knob, groups=groups):
                return [StructureFit(g, (*self.structural, knob), self.depth + 1,
                                     speculate=self._speculate, minima=self.minima,
                                     ranges=tuple(r for r in self.ranges if r != knob),
                                     lanes=self.lanes)
                        for g in groups.values()]

            def across():
                return StructureFit(self.points, self.structural, self.depth + 1,
                                    speculate=self._speculate, minima=self.minima,
                                    ranges=self.ranges, lanes=self.lanes)
            # where the knob moves a count's access class (a blocked order's work per
            # item), one fit across it on renamed classes, else the split by values
            moves = class_swaps(self.points, knob, self.counted, self._plan.base[knob])
            if moves is None or any(moves.values()):
                self.parts = [AcrossKnob(self.points, knob, self._plan.base[knob], across,
                                         split, f"split by {knob}{how}")]
                self.reason = reason
            else:
                self.parts = split()
                self.reason = f"split by {knob}{how}: {reason}"
            # the parts start from the counts so far: where they need no more, done now
            # (a pool gives only new results, and asks nothing more of a fit that wants
            # nothing: counting_pool.count_streaming)
            self.give(self.counted)
            return
        if joint:
            self._per_point(reason)
        else:
            self._next()
        self.give({})

    def _check_lanes(self) -> None:
        """The accepted fit where it equals the counts at every unprobed lane value
        (once those are counted); else the points of each value that differs split off,
        each a structure fitted on its own, and the rest a part that keeps the fit."""
        if any(p not in self.counted for p in self._lane_points):
            return
        misses, more = lane_misses(self._plan, self.points, self.lanes, self.counted,
                                   self._pending)
        if more:
            self._lane_points = (*self._lane_points, *more)
            return
        values, self._pending = self._pending, None
        if not misses:
            self.method = CountMethod.SYMBOLIC
            self.values = values
            return
        groups: dict = {}
        for p in self.points:
            hit = next(((key, v) for key, v, _ in misses if key_value(p, key) == v), None)
            groups.setdefault(hit, []).append(p)
        rest = groups.pop(None)
        names = tuple(dict.fromkeys(key_name(key) for key, _, _ in misses))
        self.reason = "; ".join([*([self.reason] if self.reason else []),
                                 *(why for _, _, why in misses)])
        # each part keeps the structure's knobs (one is fixed there, or a product of
        # two: a diagonal that no one-knob plan fits, so counted point by point)
        self.parts = [StructureFit(g, self.structural, self.depth + 1,
                                   speculate=self._speculate, minima=self.minima,
                                   ranges=self.ranges, lanes=self.lanes,
                                   listed=(*self.listed, key_name(key)))
                      for (key, _), g in groups.items()]
        kept = StructureFit(rest, self.structural, self.depth, per_point="",
                            ranges=self.ranges, lanes=self.lanes,
                            listed=(*self.listed, *(n for n in names if n not in self.listed)))
        kept.method, kept.reason = CountMethod.SYMBOLIC, "the fit kept"
        kept.values = {p: values[p] for p in rest}
        kept.counted = {p: v for p, v in self.counted.items() if p in kept._members}
        self.parts.append(kept)
        self.give(self.counted)

    def _warp_knob(self, blamed: str | None) -> str | None:
        """The knob to split at the sub-group width where the fit failed: the blamed
        knob if it sets the lanes and its values straddle the width; with no knob to
        blame, the first of the plan's knobs that does; else None (the split by values,
        as before).  Only a lane knob: a work-per-item of 2 to 32 changes its stride
        class at every value (triad's blocked order), and two parts of it are split
        again, value by value, for more probes than one split."""
        knobs = [k for k in self._plan.knobs
                 if k in self.lanes and _straddles(self.points, k) and _checkable(self.points, k)]
        if blamed is not None:
            return blamed if blamed in knobs else None
        return knobs[0] if knobs else None

    def report(self) -> list[tuple[tuple, int, int, CountMethod, str]]:
        """(structure, points, points counted, method, reason) of it or its parts; a
        part of a split at the sub-group width names its knob's range (``bx=32..128``),
        or its one value."""
        if self.parts:
            return [(*r[:4], self.reason + (f"; {r[4]}" if r[4] else ""))
                    for part in self.parts for r in part.report()]
        structure = tuple((k, self.points[0][k]) for k in self.structural)
        for name in self.listed:
            values = sorted({key_value(p, tuple(name.split("*"))) for p in self.points})
            structure += ((name, values[0] if len(values) == 1 else
                           "|".join(str(v) for v in values)),)
        for k in (r for r in self.ranges if r not in self.listed):
            values = sorted({p[k] for p in self.points})
            structure += ((k, values[0] if len(values) == 1 else
                           f"{values[0]}..{values[-1]}"),)
        return [(structure, len(self.points), len(self.counted),
                 self.method or CountMethod.PER_POINT, self.reason)]
