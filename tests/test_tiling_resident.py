"""The resident-latency extension of the hexagonal/hybrid equations (issue 34): the
groups an SM holds, the row latency (per row, per pass of a row's load loop, or both),
its calibration from the row-latency and lane-shape ladders, and the paper's form left
as it was."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from workbench.errors import ModelError, UnknownNameError
from workbench.kernels.candidate import Candidate
from workbench.kernels.timetiled.hexagonal import HexConfig
from workbench.kernels.timetiled.microbench import (
    HEX_LADDERS,
    HEX_LANE_LADDERS,
    Micro,
    hex_ladder,
    hex_microbenchmarks,
)
from workbench.models.registry import get_family
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import (
    MicroRow,
    _resident_launch,
    resident_constants,
    with_scheme_constants,
)
from workbench.models.tiling.machine import SchemeConstants
from workbench.models.tiling.schemes import Form, load_passes

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8, "jacobi1d": 1e-8})
LAM = 5e-7


def _with(lam=LAM, L=4e-10, C=5e-8):
    consts = {}
    for form in (Form.RESIDENT_LATENCY, Form.RESIDENT_LOAD_PASSES, Form.RESIDENT_ROWS_PASSES):
        for scheme, stencil in ((Scheme.HEXAGONAL, "jacobi1d"), (Scheme.HYBRID, "jacobi2d")):
            consts[form.constants_key(scheme)] = SchemeConstants(L, {stencil: C},
                                                                 row_latency=lam)
    return with_scheme_constants(BASE, consts)


def _jacobi1d(cal, S1, form, t_T=8, t_S1=256, thr=128):
    return quantities(Scheme.HEXAGONAL, Problem((S1,), 64), [t_T], [[t_S1]], [thr], H100,
                      cal, "jacobi1d", form=form, lanes=[[thr]])


def test_a_row_of_few_hexagons_is_charged_the_groups_it_puts_on_an_sm():
    cal = _with(lam=1e-12)
    h, P = 4, 2 * 256 + 8 - 2
    # 2 hexagons per SM in an A row: the paper charges k = 16 sharing each SM
    S1 = 2 * 132 * P - h + 1
    paper = _jacobi1d(cal, S1, Form.PAPER)
    res = _jacobi1d(cal, S1, Form.RESIDENT_LATENCY)
    assert int(paper.k[0]) == 16 and int(res.k[0]) == 16      # the concurrency, eq. 11
    m = float(res.m_prime[0])
    c = float(res.c[0])
    assert m == pytest.approx(((256 + 16) + (256 + 14)) * 4e-10)   # no barriers in m'
    expected = m + c + (2 - 1) * max(m, c) + 8 * (1e-12 + 2 * 3e-8)
    assert float(res.T_tile[0]) == pytest.approx(expected)
    assert float(res.T_tile[0]) < float(paper.T_tile[0]) / 3
    # a row of many hexagons per SM: k_res = k, the same tile time as k groups
    S1 = 40 * 132 * P
    many = _jacobi1d(cal, S1, Form.RESIDENT_LATENCY)
    expected = m + c + 15 * max(m, c) + 8 * (1e-12 + 2 * 3e-8)
    assert float(many.T_tile[0]) == pytest.approx(expected)


def test_the_row_latency_is_paid_once_per_row_and_launch_not_per_group():
    problem = Problem((4096, 4096), 48)
    T_alg = {}
    for lam in (1e-7, 2e-7):
        q = quantities(Scheme.HYBRID, problem, [8], [[2], [256]], [256], H100, _with(lam),
                       "jacobi2d", form=Form.RESIDENT_LATENCY)
        T_alg[lam] = float(q.T_alg[0])
    K, N_s = 48 // 8, math.ceil((4096 + 7) / 256)
    P = 2 * 2 + 8 - 2
    w_A, w_B = math.ceil((4096 + 3) / P), math.ceil((4096 - 2) / P)
    rounds = sum(math.ceil(math.ceil(w / int(q.k[0])) / 132) for w in (w_A, w_B))
    assert T_alg[2e-7] - T_alg[1e-7] == pytest.approx(K * rounds * N_s * 8 * 1e-7)


def test_the_load_passes_are_those_the_generator_makes():
    for stencil, shape, t_T, tiles, threads in (
            ("jacobi1d", (5000,), 8, (256,), (128,)),
            ("jacobi1d", (5000,), 16, (1000,), (256,)),
            ("jacobi2d", (300, 300), 8, (2, 256), (2, 128)),
            ("jacobi2d", (300, 300), 12, (5, 96), (4, 64))):
        cfg = HexConfig(stencil, shape, 48, t_T, tiles, threads)
        found = load_passes([t_T], [tiles[0]], [np.array([t]) for t in threads],
                            [tiles[1]] if len(tiles) == 2 else None)
        assert int(found[0]) == cfg.per_tile()["load_passes"], cfg.label


def test_the_load_pass_form_charges_the_latency_per_pass():
    problem, T_alg = Problem((4096, 4096), 48), {}
    for lam in (1e-7, 2e-7):
        q = quantities(Scheme.HYBRID, problem, [8], [[2], [256]], [256], H100, _with(lam),
                       "jacobi2d", form=Form.RESIDENT_LOAD_PASSES, lanes=[[4], [64]])
        T_alg[lam] = float(q.T_alg[0])
    passes = HexConfig("jacobi2d", (4096, 4096), 48, 8, (2, 256), (4, 64)).per_tile()[
        "load_passes"]
    K, N_s, P = 48 // 8, math.ceil((4096 + 7) / 256), 2 * 2 + 8 - 2
    rounds = sum(math.ceil(math.ceil(w / int(q.k[0])) / 132)
                 for w in (math.ceil((4096 + 3) / P), math.ceil((4096 - 2) / P)))
    assert T_alg[2e-7] - T_alg[1e-7] == pytest.approx(K * rounds * N_s * passes * 1e-7)
    with pytest.raises(ModelError, match="needs the lanes"):
        quantities(Scheme.HYBRID, problem, [8], [[2], [256]], [256], H100, _with(),
                   "jacobi2d", form=Form.RESIDENT_LOAD_PASSES)


def test_the_paper_form_is_untouched_by_the_extension_constants():
    own = with_scheme_constants(BASE, {"hybrid": SchemeConstants(5e-10, {"jacobi2d": 7e-8})})
    both = with_scheme_constants(own, _with().schemes)

    def paper(cal):
        return quantities(Scheme.HYBRID, Problem((4096, 4096), 48), [8], [[2], [256]],
                          [256], H100, cal, "jacobi2d").T_alg[0]
    assert paper(both) == paper(own)
    with pytest.raises(ModelError, match="overlapped tiles are priced by the paper"):
        quantities(Scheme.OVERLAPPED, Problem((4096, 4096), 48), [4], [[32], [64]], [128],
                   H100, both, "jacobi2d", form=Form.RESIDENT_LATENCY)
    with pytest.raises(ModelError, match="no hybrid\\+resident-latency constants"):
        quantities(Scheme.HYBRID, Problem((4096, 4096), 48), [8], [[2], [256]], [256],
                   H100, own, "jacobi2d", form=Form.RESIDENT_LATENCY)


def test_a_model_of_the_extension_saves_its_form_and_older_files_stay_paper(tmp_path):
    family = get_family("tiling")
    cal = _with()
    paper_doc = family.ready(device_model="h100", calibration=cal).to_json()
    assert "form" not in paper_doc and paper_doc["schema_version"] == 1
    model = family.ready(device_model="h100", calibration=cal, form="resident-load-passes")
    doc = json.loads(json.dumps(model.to_json()))
    assert doc["schema_version"] == 2 and doc["form"] == "resident-load-passes"
    again = family.load(doc)
    assert again.form is Form.RESIDENT_LOAD_PASSES
    sizes = (("S1", 4096), ("S2", 4096), ("T", 48))
    point = Candidate("hx_jacobi2d", "tT=8,tS1=2,tS2=256,bx=128,by=2", (128, 2), sizes)
    assert again.predict_candidates([point]).seconds[0] == pytest.approx(
        model.predict_candidates([point]).seconds[0])
    assert again.calibration.schemes["hybrid+resident-load-passes"].row_latency == LAM
    with pytest.raises(UnknownNameError, match="form"):
        family.ready(device_model="h100", calibration=cal, form="resident")


def test_the_ladder_puts_exactly_its_rungs_on_every_sm():
    benches = hex_ladder(132)
    assert {b.what for b in benches} == {Micro.HEX_LADDER, Micro.HEX_LADDER_WR}
    assert len(benches) == 2 * sum(len(rungs) for *_, rungs in HEX_LADDERS)
    for b in benches:
        assert b.facts["groups"] == 132 * b.facts["per_sm"], b.variant
    # distinct from the pairs, whose calibration they leave as it was
    assert not {b.variant for b in benches} & {b.variant for b in hex_microbenchmarks()}


def _timed(benches, form, L, lam, C):
    rows = []
    for b in benches:
        stencil = b.variant.split(":")[0]
        twin = b.what.value.endswith("_wr")
        row = MicroRow(b.what.value, b.variant, 0.0, dict(b.facts), 132)
        rows.append(replace(row, time_s=_resident_launch(
            Scheme.paper(int(b.facts["stencil_dims"])), row, H100, BASE, L, lam,
            0.0 if twin else C[stencil], stencil, None, twin, form)))
    return rows


@pytest.mark.parametrize("form", [Form.RESIDENT_LATENCY, Form.RESIDENT_LOAD_PASSES])
def test_the_constants_come_back_from_launches_timed_as_the_form_prices_them(form):
    truth = {"jacobi1d": 2e-8, "jacobi2d": 5e-8, "heat2d": 6e-8}
    pairs = hex_microbenchmarks(["jacobi1d", "jacobi2d", "heat2d"])
    rows = _timed(pairs + hex_ladder(132), form, 3e-10, 6e-7, truth)
    found = resident_constants(rows, H100, BASE, form=form)
    assert set(found) == {form.constants_key(s) for s in (Scheme.HEXAGONAL, Scheme.HYBRID)}
    for consts in found.values():
        assert consts.L == pytest.approx(3e-10, rel=1e-4)
        assert consts.row_latency == pytest.approx(6e-7, rel=1e-4)
        for stencil, C in consts.C_iter.items():
            assert C == pytest.approx(truth[stencil], rel=1e-4)
        assert max(abs(e) for e in consts.provenance["twin_rel_error"]) < 1e-6
    # the pairs alone move rows and words together: no constants without a ladder
    assert resident_constants(_timed(pairs, form, 3e-10, 6e-7, truth), H100, BASE,
                              form=form) == {}


def test_tile_sizes_ranks_with_the_extension_and_refuses_it_for_overlapped_tiles(
        tmp_path, capsys):
    from workbench.cli.main import main
    from workbench.models.tiling import save_calibration

    path = tmp_path / "cal.json"
    save_calibration(_with(), path)
    argv = ["tile-sizes", "jacobi2d", "--param", "S1=4096,S2=4096,T=48", "--calibration",
            str(path), "--scheme", "hybrid", "--top", "3", "--format", "json"]
    times = {}
    for form in ("paper", "resident-latency", "resident-load-passes"):
        assert main(argv + ["--form", form]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["form"] == form
        times[form] = data["top"][0]["T_alg_s"]
    assert len(set(times.values())) == 3
    assert main(["tile-sizes", "jacobi2d", "--calibration", str(path), "--form",
                 "resident-latency"]) != 0
    assert "overlapped tiles are priced by the paper" in capsys.readouterr().err


def test_the_two_term_form_adds_the_per_row_and_the_per_pass_chains():
    problem = Problem((4096, 4096), 48)

    def T_alg(form, row, per_pass=0.0):
        consts = {form.constants_key(Scheme.HYBRID): SchemeConstants(
            4e-10, {"jacobi2d": 5e-8}, row_latency=row, pass_latency=per_pass)}
        return float(quantities(Scheme.HYBRID, problem, [8], [[2], [256]], [256], H100,
                                with_scheme_constants(BASE, consts), "jacobi2d",
                                form=form, lanes=[[4], [64]]).T_alg[0])

    both = Form.RESIDENT_ROWS_PASSES
    assert T_alg(both, 3e-7) == pytest.approx(T_alg(Form.RESIDENT_LATENCY, 3e-7))
    # the load-pass form keeps its barriers; the two-term form with no row wait too
    assert T_alg(both, 0.0, 1e-7) == pytest.approx(T_alg(Form.RESIDENT_LOAD_PASSES, 1e-7))
    # and the two waits add up
    assert T_alg(both, 3e-7, 1e-7) - T_alg(both, 0.0, 1e-7) == pytest.approx(
        T_alg(both, 3e-7) - T_alg(both, 0.0))
    with pytest.raises(ModelError, match="needs the lanes"):
        quantities(Scheme.HYBRID, problem, [8], [[2], [256]], [256], H100, _with(),
                   "jacobi2d", form=both)


def test_the_lane_ladder_keeps_each_tiles_rows_and_changes_its_passes():
    by_tile: dict = {}
    for stencil, (t_T, tiles, threads), rest, T, rungs in HEX_LANE_LADDERS:
        cfg = HexConfig(stencil, (4096, *rest), T, t_T, tiles, threads)
        per = cfg.per_tile()
        by_tile.setdefault((stencil, t_T, tiles), []).append(
            (per["rows"], per["loads"], per["load_passes"]))
    assert len(by_tile) == 2                        # one tile per dimensionality
    for tile, shapes in by_tile.items():
        assert len({(r, w) for r, w, _ in shapes}) == 1, tile   # same rows and words
        passes = sorted(p for *_, p in shapes)
        assert passes[-1] >= 3 * passes[0], tile                  # passes spread widely
    benches = hex_ladder(132, HEX_LANE_LADDERS)
    assert all(b.facts["groups"] == 132 * b.facts["per_sm"] for b in benches)


def test_both_latencies_come_back_from_twins_timed_as_the_two_term_form_prices_them():
    form, truth = Form.RESIDENT_ROWS_PASSES, {"jacobi1d": 2e-8, "jacobi2d": 5e-8}
    benches = (hex_microbenchmarks(["jacobi1d", "jacobi2d"]) + hex_ladder(132)
               + hex_ladder(132, HEX_LANE_LADDERS))
    rows = _timed(benches, form, 3e-10, (4e-7, 1.2e-7), truth)
    found = resident_constants(rows, H100, BASE, form=form)
    assert set(found) == {"hexagonal+resident-rows-passes", "hybrid+resident-rows-passes"}
    for consts in found.values():
        assert consts.L == pytest.approx(3e-10, rel=1e-4)
        assert consts.row_latency == pytest.approx(4e-7, rel=1e-4)
        assert consts.pass_latency == pytest.approx(1.2e-7, rel=1e-4)
        for stencil, C in consts.C_iter.items():
            assert C == pytest.approx(truth[stencil], rel=1e-4)
    # twins with a per-row wait only: the fit puts the per-pass one at zero
    only_rows = resident_constants(_timed(benches, Form.RESIDENT_LATENCY, 3e-10, 4e-7,
                                          truth), H100, BASE, form=form)
    for consts in only_rows.values():
        assert consts.row_latency == pytest.approx(4e-7, rel=1e-4)
        assert consts.pass_latency == pytest.approx(0.0, abs=1e-12)


def test_the_pass_latency_is_saved_and_a_negative_one_refused(tmp_path):
    from workbench.models.tiling import load_calibration, save_calibration

    consts = SchemeConstants(3e-10, {"jacobi2d": 5e-8}, row_latency=4e-7,
                             pass_latency=1.2e-7)
    cal = with_scheme_constants(BASE, {"hybrid+resident-rows-passes": consts})
    save_calibration(cal, tmp_path / "cal.json")
    again = load_calibration(tmp_path / "cal.json").schemes["hybrid+resident-rows-passes"]
    assert (again.row_latency, again.pass_latency) == (4e-7, 1.2e-7)
    with pytest.raises(ModelError, match="pass latency must be >= 0"):
        with_scheme_constants(BASE, {"hybrid+resident-rows-passes": replace(
            consts, pass_latency=-1e-9)})
