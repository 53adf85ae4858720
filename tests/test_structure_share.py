"""Structures that share an earlier structure's counts (workbench.models.structure_share):
on numbers alone, driven as the ranking drives its fits (rounds of wanted points)."""

from __future__ import annotations

import math

from workbench.models.structure_counts import CountMethod, structural_knobs, structure_key
from workbench.models.structure_fit import StructureFit
from workbench.models.structure_share import SharedFit, share_structures
from workbench.tuning import TuningSpace


def _space() -> TuningSpace:
    return TuningSpace(
        name="synthetic", description="numbers only",
        tune_params={"tx": (8, 16, 32, 64), "ty": (1, 2, 4, 8), "wpt": (1, 2, 4),
                     "mode": ("a", "b"), "flag": (0, 1)},
        restrictions=("tx*ty <= 256",),
        group_size=lambda p: (p["tx"], p["ty"]), kernel=lambda p: None)


def _rank(space, truth, share: bool = True) -> tuple[dict, list]:
    """Every structure's fit, shared where it may, counted in rounds from ``truth``:
    (the fits, every point counted in the order asked)."""
    structural = structural_knobs(space)
    groups: dict = {}
    for p in space.points():
        groups.setdefault(structure_key(p, structural), []).append(p)
    fits = {(space, k): StructureFit(points, structural) for k, points in groups.items()}
    if share:
        share_structures(fits, space)
    counted: dict = {}
    builds = []
    while True:
        wanted = list(dict.fromkeys(p for fit in fits.values() for p in fit.wanted()
                                    if p not in counted))
        for p in wanted:
            counted[p] = truth(p)
            builds.append(p)
        for fit in fits.values():
            fit.give(counted)
        if all(fit.done for fit in fits.values()) or not wanted:
            break
    assert all(fit.done for fit in fits.values())
    return fits, builds


def _check(fits, truth) -> None:
    for fit in fits.values():
        for p, values in fit.values.items():
            for name, v in truth(p).items():
                assert math.isclose(values.get(name, 0.0), v, rel_tol=1e-9,
                                    abs_tol=1e-9), (p.label, name)


def test_a_flag_that_changes_no_count_shares_and_one_that_does_is_fitted():
    def truth(p):       # flag changes nothing; mode doubles the loads
        scale = 2.0 if p["mode"] == "b" else 1.0
        return {"loads": scale * 2.0 ** 20 / p["tx"] + 2.0 ** 20 / (p["ty"] * p["wpt"]),
                "groups": 2.0 ** 14 / (p["tx"] * p["ty"] * p["wpt"])}

    space = _space()
    fits, builds = _rank(space, truth)
    _check(fits, truth)
    methods = {tuple(v for _, v in key): fit.method for (_, key), fit in fits.items()}
    assert methods[("a", 1)] is CountMethod.SHARED and methods[("b", 1)] is CountMethod.SHARED
    assert methods[("a", 0)] is CountMethod.SYMBOLIC
    # mode=b: shares with no earlier structure (its counts differ from a's at its
    # probes), fitted from its own, those probes among them
    assert methods[("b", 0)] is CountMethod.SYMBOLIC
    assert "counts differ" in fits[space, (("mode", "b"), ("flag", 0))].report()[0][4]
    assert len(builds) == len(set(builds))
    _, alone = _rank(space, truth, share=False)
    shared = [f for f in fits.values() if isinstance(f, SharedFit)
              and f.method is CountMethod.SHARED]
    assert shared and all(len(f.counted) == len(f.probes) for f in shared)
    assert len(builds) < len(alone)


def test_a_flag_whose_counts_differ_at_one_end_is_not_shared():
    def truth(p):       # flag=1 drops a loop of length one (tx = 8): one count differs
        extra = 1.0 if p["flag"] == 1 and p["tx"] == 8 else 0.0
        return {"loads": 2.0 ** 20 / p["tx"] + 2.0 ** 20 / p["ty"] + extra * p["wpt"]}

    space = _space()
    fits, _ = _rank(space, truth)
    _check(fits, truth)
    # flag=1 takes nothing from flag=0 (the end tx = 8 is among its probes); mode
    # changes nothing here, so mode=b's structures take mode=a's of their flag
    assert fits[space, (("mode", "a"), ("flag", 1))].method is not CountMethod.SHARED
    shared = fits[space, (("mode", "b"), ("flag", 1))]
    assert shared.method is CountMethod.SHARED and "mode=a,flag=1" in shared.reason


def test_a_flag_whose_counts_differ_at_an_end_that_only_a_neighbour_reaches_is_not_shared():
    # tx = 64 is reached by the base's neighbour along tx, not by the base or its
    # checks: the shared probes must reach every end of every knob's range themselves
    def truth(p):       # flag=1 changes one count at the other end of tx's range
        extra = 1.0 if p["flag"] == 1 and p["tx"] == 64 else 0.0
        return {"loads": 2.0 ** 20 / p["tx"] + 2.0 ** 20 / p["ty"] + extra * p["wpt"]}

    space = _space()
    fits, _ = _rank(space, truth)
    _check(fits, truth)
    assert fits[space, (("mode", "a"), ("flag", 1))].method is not CountMethod.SHARED
    shared = [f for f in fits.values() if isinstance(f, SharedFit)
              and f.method is CountMethod.SHARED]
    assert shared and all({8, 64} <= {p["tx"] for p in f.probes} for f in shared)
    # the ends are taken among its own fit's probes: nothing counted in vain
    assert all(set(f.probes) <= set(f.own.wanted()) for f in shared)


def test_a_probe_that_cannot_be_counted_ends_the_sharing():
    space = _space()

    def truth(p):
        # the point of flag=1 that differs from its base in most knobs: a probe
        if p["flag"] == 1 and p["tx"] == 32 and p["ty"] == 8 and p["wpt"] == 4:
            return None
        return {"loads": 2.0 ** 20 / p["tx"]}

    fits, _ = _rank(space, truth)
    broken = [f for f in fits.values() if isinstance(f, SharedFit)
              and any(f.counted.get(p, 0) is None for p in f.probes)]
    assert broken
    for fit in broken:
        assert fit.method is not CountMethod.SHARED
        assert "could not be counted" in fit.report()[0][4]
