"""The paper's time-tiling numbers beside ours: the hexagonal rows come from the shipped
H100 stores of ``scripts/h100_hexagonal.sh`` and say "not measured" without them."""

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.tiling_side_by_side import (  # noqa: E402
    FORMS,
    H100,
    OWN,
    RESIDENT,
    SHIPPED,
    side_by_side,
)
from workbench.measure.store.compressed import resolve_store_path  # noqa: E402

HEX = [H100 / "hexagonal.sqlite", H100 / "hexagonal-8192.sqlite"]


def test_without_hexagonal_stores_the_rows_say_not_measured(tmp_path):
    frame = side_by_side([tmp_path / "absent.sqlite"], tmp_path / "absent-mb.sqlite")
    hexagonal = frame[frame["scheme"] != "overlapped"]
    assert len(hexagonal) == 1 and "not measured" in hexagonal["why"].iloc[0]
    # the overlapped rows carry both numbers for every RMSE pair
    rmse = frame[frame["quantity"].str.startswith("RMSE within")]
    assert len(rmse) == 12 and rmse["ours"].notna().all()


@pytest.mark.skipif(not all(resolve_store_path(p) for p in HEX),
                    reason="the hexagonal H100 stores are not shipped here")
def test_both_hexagonal_stores_give_every_problem_a_row():
    frame = side_by_side(HEX)
    hexagonal = frame[frame["scheme"] == "hexagonal/hybrid"]
    rmse = hexagonal[hexagonal["quantity"].str.startswith("RMSE within")]
    picked = hexagonal[hexagonal["quantity"].str.startswith("selected vs")
                       & hexagonal["quantity"].str.contains(r"\[% faster\]")
                       & ~hexagonal["section"].str.contains("abstract")]
    # jacobi1d plus four 2-D stencils at 4096^2, four at 8192^2 (the second store)
    assert len(rmse) == 9 and len(picked) == 9
    assert sum("8192" in q for q in rmse["quantity"]) == 4
    assert rmse["ours"].between(0, 5).all()
    assert all("Spearman" in why for why in rmse["why"])
    # the same problems priced with the scheme's own constants (issue 34), beside them
    own = frame[frame["scheme"] == OWN]
    own_rmse = own[own["quantity"].str.startswith("RMSE within")]
    assert list(own_rmse["quantity"]) == list(rmse["quantity"])
    assert not np.allclose(own_rmse["ours"].to_numpy(), rmse["ours"].to_numpy())
    constants = own[own["quantity"].str.contains("microbenchmarks")]
    assert {"hexagonal", "hybrid"} <= {q.rsplit(", ", 1)[1].split()[0]
                                       for q in constants["quantity"]}
    # and with the resident-latency extension, both forms, from the shipped ladder
    if resolve_store_path(H100 / "hexagonal-resident.sqlite") is None:
        return
    for form, label in FORMS.items():
        ext = frame[frame["scheme"] == label]
        ext_rmse = ext[ext["quantity"].str.startswith("RMSE within")]
        assert list(ext_rmse["quantity"]) == list(rmse["quantity"])
        assert ext_rmse["ours"].between(0, 5).all()
        latency = ext[ext["quantity"].str.startswith("row latency")]
        if form == "resident-rows-passes" and resolve_store_path(
                H100 / "hexagonal-lanes.sqlite") is None:
            continue
        assert len(latency) == 2 and (latency["ours"] > 0).all()
    # the picks measured in the ladder's call, against the best baseline measured again
    picks = frame[frame["quantity"].str.startswith("picks vs best baseline, same call,")
                  & ~frame["section"].str.contains("abstract")]
    assert {OWN, RESIDENT} <= set(picks["scheme"])
    assert picks["ours"].between(-100, 100).all()
    # the second call (the lane-shape ladder): the two-term form's constants and picks,
    # and every problem's per-row picks measured in one call or the other
    if resolve_store_path(H100 / "hexagonal-lanes.sqlite") is None:
        return
    both = frame[frame["scheme"] == FORMS["resident-rows-passes"]]
    passes = both[both["quantity"].str.startswith("pass latency")]
    assert len(passes) == 2 and (passes["ours"] > 0).all()
    assert FORMS["resident-rows-passes"] in set(picks["scheme"])
    per_row = picks[picks["scheme"] == RESIDENT]["quantity"]
    assert sorted(per_row) == sorted(set(per_row)) and len(per_row) == 9


@pytest.mark.skipif(not all(resolve_store_path(p) for p in HEX),
                    reason="the hexagonal H100 stores are not shipped here")
def test_the_shipped_calibration_prices_every_problem_as_it_ships(tmp_path, monkeypatch):
    """The table shows what ships (issue 34: redo the side-by-side table): the
    calibration file as it is, in the lane-rows form the CLI uses, not constants derived
    here; a constant changed in the file changes the shipped rows."""
    import json
    import lzma

    import pandas as pd

    import benchmarks.tiling_side_by_side as sbs

    found = [resolve_store_path(p) for p in HEX]
    shipped = pd.DataFrame(sbs.shipped_rows(found))
    assert set(shipped["scheme"]) == {SHIPPED}
    rmse = shipped[shipped["quantity"].str.startswith("RMSE within")]
    assert len(rmse) == 9 and rmse["ours"].between(0, 5).all()
    # the shipped file is tiling-calibration.json.xz (issue #25), read by its plain name
    from workbench.models.tiling.machine import calibration_file

    source = calibration_file(sbs.CALIBRATION)
    doc = json.loads(lzma.decompress(source.read_bytes()) if source.suffix == ".xz"
                     else source.read_text())
    doc["schemes"]["hybrid+resident-lane-rows"]["lane_rows"] = 0.5
    changed = tmp_path / "tiling-calibration.json"
    changed.write_text(json.dumps(doc))
    monkeypatch.setattr(sbs, "CALIBRATION", changed)
    again = pd.DataFrame(sbs.shipped_rows(found))
    moved = again["ours"].fillna(-1) != shipped["ours"].fillna(-1)
    assert moved.any() and (again.loc[rmse.index, "ours"] != rmse["ours"]).sum() == 8
    # and the whole table holds the rows
    assert SHIPPED in set(side_by_side(HEX, tmp_path / "absent-mb.sqlite")["scheme"])


def test_without_the_microbenchmark_store_the_own_rows_say_not_measured(tmp_path):
    if not all(resolve_store_path(p) for p in HEX):
        pytest.skip("the hexagonal H100 stores are not shipped here")
    frame = side_by_side(HEX, tmp_path / "absent-mb.sqlite")
    own = frame[frame["scheme"] == OWN]
    assert len(own) == 1 and "not measured" in own["why"].iloc[0]
