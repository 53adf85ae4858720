"""An explanation (:class:`workbench.models.explanation.Explanation`) in words a
student follows: the overlap's sides told apart, negative terms said for what they
are, and what to change first.  Wording only: every number is the explanation's own.

An overlap's side is labelled by the categories it pays for (``global memory +
arithmetic + ...``), and two sides of one overlap often share a category: the
softmax of a row read "global memory wins ... against global memory + arithmetic",
which tells a reader nothing.  Where sides share one, each is also named by its
largest term.  ``workbench explain`` and the dashboard's Explain tab print these.
"""

from __future__ import annotations

from workbench.models.floors import Bound
from workbench.models.parallelism import CaveatKind
from workbench.models.terms import Category, Overlap, OverlapSide

#: what to change first, by what the limiting category pays for ("the largest share",
#: not "most": a limiter at 45% of the time read as a contradiction)
NEXT_STEP = {
    Category.LAUNCH.value:
        "the launch's fixed cost takes the largest share of the time: the kernel does too little to "
        "time anything else; give one launch more work (larger sizes, or fuse it with "
        "the kernels before or after it)",
    Category.GROUPS.value:
        "launching and scheduling work groups takes the largest share of the time: give each work "
        "group more to do (more work items per group, or several outputs per work item)",
    Category.ARITHMETIC.value:
        "arithmetic takes the largest share of the time: do fewer or cheaper operations (no division or "
        "special function in the innermost loop, multiply-adds the GPU can fuse, "
        "float32 where float64 is not needed)",
    Category.ON_CHIP.value:
        "local memory and barriers take the largest share of the time: store fewer values to local "
        "memory and pass fewer barriers per output (each work item computing several "
        "outputs from one tile), or try the kernel without the tile: the L1 cache may "
        "serve the reuse on its own (explain both versions)",
    Category.GLOBAL.value:
        "global memory takes the largest share of the time: touch fewer bytes, and touch them "
        "coalesced (neighbouring work items on neighbouring addresses, stride 1); values "
        "that several work items read are often served by the caches, and a local-memory "
        "tile pays only where it saves more than its copy costs (explain both versions)",
    # the roofline family's limiters: the memory level whose traffic takes longest
    "DRAM": "the bytes from DRAM limit it: touch fewer distinct bytes (narrower types, "
            "one pass instead of two) or reuse each byte more while a cache holds it",
    "L2": "L2 traffic limits it: reuse data nearer, in L1 or local memory (a larger "
          "block along the dimension that is reused)",
    "L1": "L1 traffic limits it: fewer accesses per output (keep reused values in "
          "registers)",
    Category.SERIAL.value:
        "one work item's chain of dependent steps takes the largest share of the time: split the chain "
        "(a parallel scan or reduction) so that more work items share it",
}

#: what to change where the prediction is lifted to a floor, by the floor's bound: a
#: serial or latency floor is one work item's, and more work items lower it
FLOOR_STEP = {
    "launch": "the prediction is the launch's fixed cost: give one launch more work (larger "
              "sizes, or fuse it with the kernels before or after it)",
    "serial work": "the prediction is one work item's own chain of work: spread the loop "
                   "over many work items (lp.split_iname with g.0 and l.0 tags)",
    "loads in flight": "the prediction is one warp's loads, waited for a few at a time: "
                       "spread the loop over many more work items",
    "L1 wavefronts": "the prediction is the L1 cache's wavefronts for this access pattern: "
                     "neighbouring work items on neighbouring addresses need fewer",
}

#: a prediction within this factor of its physical floor is at the floor
AT_THE_FLOOR = 1.1

#: a more precise step where the largest term says more than its category
TERM_STEP = (
    ("walk", "each work item walks a row of its own, so neighbouring work items read "
             "addresses a row apart: give each row to a work group whose work items read "
             "neighbouring elements (or store the matrix transposed)"),
    ("gt4", "neighbouring work items read addresses more than 4 elements apart "
            "(uncoalesced): map the fastest-varying index to l.0"),
    ("partial_store", "each store writes a sector a work item, in part, and other "
                      "stores fill it (an array of structures written field by field): "
                      "store each field as an array of its own (planes), or build the "
                      "structure in local memory and write it out coalesced"),
    ("isolated_load", "each work item reads one value from a row no other load reads "
                      "(one 32-byte sector of each 64 bytes fetched): keep the values read "
                      "in an array of their own, or read whole rows coalesced"),
    ("prefetch_local", "the copy of the tile into local memory costs most: a tile "
                       "reused by many outputs pays for itself, one read a few times "
                       "may not; explain the kernel without the tile to compare"),
)


def side_names(overlap: Overlap) -> list[str]:
    """Each side's label, told apart where sides share a category
    (:meth:`Overlap.side_names`)."""
    return overlap.side_names()


def taken_back(overlap: Overlap) -> bool:
    """Whether ``overlap`` is subtracted from a sum (``A + M - smin(A, M)``, the
    default model's arithmetic hidden behind its global accesses): its sides cost
    negative seconds and what it "wins", the smaller side, is taken back off the sum."""
    return overlap.function == "smin" and all(s.seconds <= 0 for s in overlap.sides)


def hidden_terms(explanation) -> set[tuple[str, float]]:
    """The terms (name, seconds) that a subtracted overlap takes back: each is also
    charged, with the opposite sign, by the sum it is taken off."""
    return {(t.name, t.seconds) for o in explanation.overlaps if taken_back(o)
            for t in o.winning.terms}


def pays_for(term, hidden: set[tuple[str, float]]) -> str:
    """What a term pays for, and where an overlap takes it back, that it does (a reader
    saw "f_op_float64_add ... 2.9%" and "f_op_float64_add ... -2.9%" unexplained)."""
    said = term.category.value
    return f"{said}, taken back (hidden)" if (term.name, term.seconds) in hidden else said


def overlap_says(overlap: Overlap) -> str:
    """:meth:`Overlap.says` with the sides told apart (:func:`side_names`); a subtracted
    overlap in plain words (:func:`taken_back`), not as a side that "wins" at -0.006 ms."""
    said = overlap.says()
    other = overlap.runner_up
    if other is None:
        return said
    names = side_names(overlap)
    if taken_back(overlap):
        return _taken_back_says(overlap, names[overlap.winner],
                                names[overlap.runner_up_index])
    return said       # says() names the sides apart itself


def _taken_back_says(overlap: Overlap, hidden: str, behind: str) -> str:
    hidden_s, behind_s = -overlap.winning.seconds, -overlap.runner_up.seconds
    if not hidden_s:
        return (f"{overlap.function}, taken back: nothing (the side it would hide costs "
                f"0 ms here), so {behind} ({_ms(behind_s)}) is charged in full")
    return (f"{overlap.function}, taken back: {hidden} ({_ms(hidden_s)}) runs hidden "
            f"behind {behind} ({_ms(behind_s)}), so the model takes the smaller one "
            "back off the sum: the two together cost what the larger one costs")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


def counts_say(model) -> str | None:
    """What the ``count`` column counts, where it is not every work item's operations."""
    granularity = getattr(model, "granularity", None)
    if getattr(granularity, "value", granularity) != "subgroup":
        return None
    return ("counts are the model's own: operations and local-memory accesses once per "
            "warp of 32 work items (per sub-group), global accesses in 32-byte sectors, "
            "barriers per work item; docs/glossary.md")


def negative_terms_say(explanation) -> list[str]:
    """One line per negative term: what a time below zero means here."""
    lines = []
    added = [(t.name, t.seconds) for t in explanation.terms if t.seconds > 0]
    for t in explanation.terms:
        if t.seconds >= 0:
            continue
        if "fma_pairs" in t.name:
            lines.append(f"{t.name} is negative on purpose: the GPU fuses a multiply "
                         "and an add into one instruction (FMA), so the model takes back "
                         "one of the two it counted")
        elif any(name == t.name and abs(seconds + t.seconds) <= 1e-9 * seconds
                 for name, seconds in added):
            continue    # an overlap takes back what the sum charged: its lines say so
        else:
            lines.append(f"{t.name} is negative: its fitted weight is below zero, which "
                         "prices a bundle of counts that always occur together, not this "
                         "count alone (docs/glossary.md, 'weight')")
    return lines


#: a floor's bound that costs nothing, in words: "DRAM traffic 0 ms" read as a DRAM
#: that answers in no time, where no byte has to cross it at all
NOTHING_SAYS = {
    Bound.DRAM: "no DRAM traffic (the data fit in the L2 cache)",
    Bound.FLOPS: "no floating-point operations",
}


def floor_parts_say(floor) -> str:
    """A physical floor's bounds, each with its time, a bound of none in words."""
    return ", ".join(NOTHING_SAYS[b] if s == 0 and b in NOTHING_SAYS else f"{b.value} {_ms(s)}"
                     for b, s in floor.parts)


def next_step(explanation) -> str | None:
    """What to change first, in one sentence (None where nothing useful is known), and
    how far the physical floor is (:func:`first_step` and :func:`how_far` in one)."""
    step = first_step(explanation)
    if step is None:
        return None
    far = how_far(explanation)
    return f"{step}. {far[0].upper()}{far[1:]}" if far else step


def first_step(explanation) -> str | None:
    """What to change first (None where nothing useful is known)."""
    caveats = {c.kind for c in explanation.caveats}
    if explanation.limiter.endswith(" floor"):
        bound = explanation.limiter.removesuffix(" floor")
        return FLOOR_STEP.get(bound, "the prediction is the physical floor: only less "
                                     "work or fewer bytes make it faster")
    step = _term_step(explanation)
    if step is None and CaveatKind.LOW_PARALLELISM in caveats:
        step = ("the launch leaves much of the GPU idle: use more work items (one per "
                "output element, or split each work item's loop among several)")
    return step or NEXT_STEP.get(explanation.limiter)


def how_far(explanation) -> str | None:
    """How much faster the kernel can get as written: its distance to the physical
    floor (None where there is no floor, or the prediction is lifted to it)."""
    floor = explanation.floor
    if floor is None or floor.seconds <= 0 or explanation.limiter.endswith(" floor"):
        return None
    ratio = explanation.predicted_s / floor.seconds
    where = f"{floor.bound.value}, {floor.seconds * 1e3:.4g} ms"
    if ratio < AT_THE_FLOOR:
        return (f"as written, the kernel is at its physical floor ({where}): only such a "
                "change of the kernel makes it faster")
    return (f"as written, the kernel can get at most {ratio:.3g}x faster (its physical "
            f"floor: {where})")


def limiter_lines(explanation) -> list[str]:
    """The limiter in short lines: what limits and its share of the time; why (the
    overlap it wins, or the floor it is lifted to); how far the floor is; what to
    change first.  (One sentence of 250 characters said all of it; a newcomer read the
    line twice and still asked what to do.)"""
    e = explanation
    share = limiter_share(e)
    lines = [f"limiter: {e.limiter}" + (f" ({share:.0%} of the time)"
                                         if share is not None else "")]
    if (why := limiter_why(e)) is not None:
        lines.append(f"  why: {why}")
    if (far := how_far(e)) is not None:
        lines.append(f"  how far: {far}")
    if (step := first_step(e)) is not None:
        lines.append(f"to go faster: {step}")
    return lines


def limiter_share(explanation) -> float | None:
    """The limiting category's share of the prediction (None for a floor's or a
    family's own limiter, which is no category of terms)."""
    paid = [t.seconds for t in explanation.terms if t.category.value == explanation.limiter
            and t.category is not Category.SMOOTHING]
    if not paid or not explanation.predicted_s:
        return None
    return sum(paid) / explanation.predicted_s


def limiter_why(explanation) -> str | None:
    """Why the limiter limits, in one short clause: the floor the model's time is lifted
    to, or the last overlap that is not taken back, its winner against its runner-up."""
    e = explanation
    if e.limiter.endswith(" floor") and e.floor is not None:
        return (f"the model's {_ms(e.model_s)} is below the physical floor "
                f"({e.floor.says()}), which is the prediction")
    decisive = [o for o in e.overlaps if not taken_back(o)]
    if not decisive:
        return None
    o = decisive[-1]
    other = o.runner_up
    if other is None:
        return f"overlap {o.function}: {o.winning.label} alone"
    names = side_names(o)
    who = (f"its side of overlap {o.function}" if e.limiter in o.winning.label
           else f"{names[o.winner]}, in overlap {o.function},")
    own = _paid_by_one_side(o.winning, other)
    if e.limiter in _categories(other) and e.limiter in _categories(o.winning) and own:
        # paid on both sides ("launch: its side of overlap smax wins ... against launch
        # + arithmetic", a newcomer's 1-D convolution): what decides is the rest
        who = (f"{e.limiter} is paid on both sides of overlap {o.function}, the same "
               f"whichever wins; the side with {own}")
    return (f"{who} wins, {_ms(o.winning.seconds)} against {_ms(other.seconds)} "
            f"({o.ratio:.3g}x) for {names[o.runner_up_index]}")


def _categories(side: OverlapSide) -> set[str]:
    return {t.category.value for t in side.terms if t.category is not Category.SMOOTHING}


def _paid_by_one_side(side: OverlapSide, other: OverlapSide) -> str | None:
    """What ``side`` pays for that ``other`` does not, the most seconds first."""
    paid: dict[str, float] = {}
    for t in side.terms:
        if t.category is not Category.SMOOTHING and t.category.value not in _categories(other):
            paid[t.category.value] = paid.get(t.category.value, 0.0) + t.seconds
    return max(paid, key=paid.get) if paid else None


def _term_step(explanation) -> str | None:
    top = max((t for t in explanation.terms if t.category.value == explanation.limiter),
              key=lambda t: t.seconds, default=None)
    if top is None:
        return None
    return next((step for word, step in TERM_STEP if word in top.name), None)
