"""The default-model choice's tie rule (round 17 of #34): pure functions on comparison rows,
no fitting."""

import pytest

from benchmarks.default_model_choice import (
    BLIND_ERA,
    BLIND_ERA_KEY,
    BLIND_ERA_NAME,
    choose,
    lacking_blind_era,
    tied_candidates,
)


def row(loko, blind=None, unseen=0.08, unseen2=0.07):
    out = {"loko_all_catalog_kernels": loko, "unseen_geomean_rel_error": unseen,
           "unseen2_geomean_rel_error": unseen2}
    if blind is not None:
        out[BLIND_ERA_KEY] = blind
    return out


def test_candidates_within_a_tenth_of_a_point_are_tied_and_the_blind_era_sets_decide():
    # rounds 15 and 16: 7.27 % against 7.22 % was a loss; now a tie, broken by heldout10-14
    rows = {"chains24": row(0.0722, blind=0.1201), "chains35": row(0.0727, blind=0.1082),
            "far": row(0.0833, blind=0.05)}
    assert tied_candidates(rows) == ["chains24", "chains35"]
    assert choose(rows) == "chains35"


def test_the_band_edge_is_inside_and_beyond_it_is_out():
    rows = {"a": row(0.0722, blind=0.12), "b": row(0.0732, blind=0.10),
            "c": row(0.0733, blind=0.01)}
    assert tied_candidates(rows) == ["a", "b"]
    assert choose(rows) == "b"


def test_equal_blind_era_figures_go_to_the_lower_unseen_sum():
    rows = {"a": row(0.0722, blind=0.11, unseen=0.0768, unseen2=0.0754),
            "b": row(0.0725, blind=0.11, unseen=0.0763, unseen2=0.0762)}
    assert choose(rows) == "a"


def test_a_lone_lowest_needs_no_blind_era_figures():
    rows = {"a": row(0.0722), "b": row(0.0740)}
    assert choose(rows) == "a"


def test_a_tie_without_the_blind_era_figures_is_refused():
    with pytest.raises(ValueError, match="b"):
        choose({"a": row(0.0722, blind=0.12), "b": row(0.0723)})


def test_the_reason_names_the_tie_and_its_break():
    from benchmarks.default_model_choice import reason

    rows = {"chains24": row(0.0722, blind=0.1201), "chains35": row(0.0727, blind=0.1033)}
    text = reason(rows, choose(rows), "now")
    assert "7.27%, within 0.10 points of the lowest (7.22%; 2 candidates tied)" in text
    assert "heldout10-21 among them (10.33%)" in text
    assert reason({"a": row(0.0722)}, "a", "now").startswith("lowest cross-kernel")


def test_round_19_breaks_ties_over_the_blind_era_and_recomputes_older_figures():
    # a row stored by round 18 (heldout10-15) is computed again
    old = {**row(0.0727, blind=0.1033), "blind_era": {f"heldout{k}": 0.1 for k in range(10, 16)}}
    new = {**row(0.0725, blind=0.1098), "blind_era": {n: 0.1 for n in BLIND_ERA}}
    rows = {"chains35": old, "chains36": new, "bare": row(0.0726)}
    assert lacking_blind_era(rows, tied_candidates(rows)) == ["bare", "chains35"]


def test_round_21_recomputes_round_20s_figures():
    # a row stored by round 20 (heldout10-17) is computed again
    old = {**row(0.0665, blind=0.1079), "blind_era": {f"heldout{k}": 0.1 for k in range(10, 18)}}
    new = {**row(0.0664, blind=0.1011), "blind_era": {n: 0.1 for n in BLIND_ERA}}
    rows = {"chains38": old, "chains41": new}
    assert lacking_blind_era(rows, tied_candidates(rows)) == ["chains38"]


def test_round_22_recomputes_round_21s_figures():
    # a row stored by round 21 (heldout10-18) is computed again
    old = {**row(0.0664, blind=0.1053), "blind_era": {f"heldout{k}": 0.1 for k in range(10, 19)}}
    new = {**row(0.0665, blind=0.1000), "blind_era": {n: 0.1 for n in BLIND_ERA}}
    rows = {"chains42": old, "chains44": new}
    assert lacking_blind_era(rows, tied_candidates(rows)) == ["chains42"]


def test_round_23_breaks_ties_over_heldout10_21_and_recomputes_round_22s_figures():
    assert BLIND_ERA == tuple(f"heldout{k}" for k in range(10, 22))
    assert BLIND_ERA_NAME == "heldout10-21"
    # a row stored by round 22 (heldout10-20) is computed again
    old = {**row(0.0665, blind=0.1065), "blind_era": {f"heldout{k}": 0.1 for k in range(10, 21)}}
    new = {**row(0.0666, blind=0.0950), "blind_era": {n: 0.1 for n in BLIND_ERA}}
    rows = {"chains38": old, "chains47": new}
    assert lacking_blind_era(rows, tied_candidates(rows)) == ["chains38"]
    # within the band the lower blind-era mean wins; beyond it the lower LOKO
    rows["chains38"] = {**old, "blind_era": {n: 0.1 for n in BLIND_ERA}}
    assert choose(rows) == "chains47"
    rows["chains47"] = {**new, "loko_all_catalog_kernels": 0.0676}
    assert choose(rows) == "chains38"
