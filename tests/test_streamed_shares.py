"""A structure that may share an earlier structure's counts speculates as its own fit
would (issue #33, the GPU host's 16 cores): idle counting processes count its own fit's
likely next points, not only its first round, so that where the share fails the fit
that follows does not wait a round for them; and every point of it counted so far is
evidence: a share whose counted point differs from its counterpart falls back to its
own fit, which takes that count, rather than carrying the earlier structure's count
there.  Numbers only, no kernels."""

from __future__ import annotations

from workbench.models.structure_counts import CountMethod, structural_knobs, structure_key
from workbench.models.structure_fit import StructureFit
from workbench.models.structure_share import SharedFit, share_structures
from workbench.tuning import TuningSpace

from tests.test_structure_joint_exact import assert_exact_fit

N = 2.0 ** 24
GS = (32, 64, 128, 256, 512)


def _fits(truth):
    space = TuningSpace(
        name="shared", description="numbers only",
        tune_params={"gs": GS, "ppi": (1, 2, 4), "unroll": (0, 1)},
        group_size=lambda p: (p["gs"],), kernel=lambda p: None)
    structural = structural_knobs(space)
    groups: dict = {}
    for p in space.points():
        groups.setdefault(structure_key(p, structural), []).append(p)
    fits = {(space, k): StructureFit(points, structural, lanes=("gs",), speculate=True)
            for k, points in groups.items()}
    share_structures(fits, space)
    first, second = (fits[space, k] for k in groups)
    assert isinstance(second, SharedFit)
    while not first.done:
        first.give({p: truth(p) for p in first.wanted()})
    return first, second


def _same_counts(p):
    return {"loads": 2 * N, "groups": N / (p["gs"] * p["ppi"]), "flops": N * p["ppi"]}


def test_a_share_speculates_its_own_fits_next_points():
    _, share = _fits(_same_counts)
    first_round = [p for p in share.own.wanted()]
    speculative = share.speculative()
    assert speculative[:len(first_round)] == first_round
    beyond = [p for p in share.own.speculative() if p not in first_round]
    assert beyond and all(p in speculative for p in beyond)


def test_a_share_whose_counted_point_differs_falls_back_and_is_exact():
    # the counts equal the earlier structure's at the share's probes, not at one point
    # its own fit speculates on (counted early on a host of many cores)
    _, share = _fits(_same_counts)
    odd = next(p for p in share.own.speculative() if p not in share.probes)

    def truth(p):
        found = _same_counts(p)
        if p["unroll"] == 1 and p == odd:
            found = {**found, "loads": 3 * N}
        return found

    first, share = _fits(truth)
    share.give({p: truth(p) for p in (*share.probes, odd)})
    assert share.method is not CountMethod.SHARED
    while not share.done:
        share.give({p: truth(p) for p in share.wanted()})
    assert_exact_fit(share, truth)
    assert share.values[odd]["loads"] == 3 * N


def test_a_share_whose_counted_points_all_agree_takes_the_earlier_counts():
    _, share = _fits(_same_counts)
    extra = next(p for p in share.own.speculative() if p not in share.probes)
    share.give({p: _same_counts(p) for p in (*share.probes, extra)})
    assert share.method is CountMethod.SHARED
    assert_exact_fit(share, _same_counts)
