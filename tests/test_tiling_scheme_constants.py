"""Per-scheme L and C_iter (issue 34): a hexagonal/hybrid point is priced with its
scheme's own constants, the overlapped one with the overlapped constants, files without
per-scheme constants load as before, and the constants are what the model needs to
price the microbenchmarks' launches."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.kernels.timetiled.microbench import hex_pair
from workbench.models.registry import get_family
from workbench.models.tiling import H100, Problem, Scheme, TilingCalibration, quantities
from workbench.models.tiling.calibrate import (
    MicroRow,
    _launch_time,
    scheme_constants,
    with_scheme_constants,
)
from workbench.models.tiling.machine import SchemeConstants

#: Parameters for the arithmetic only (not a device's: those are measured).
BASE = TilingCalibration("test", L=2e-10, tau_sync=3e-8, T_sync=1e-6,
                         C_iter={"jacobi2d": 3e-8, "jacobi1d": 1e-8})
OWN = with_scheme_constants(BASE, {"hybrid": SchemeConstants(5e-10, {"jacobi2d": 7e-8}),
                                   "hexagonal": SchemeConstants(4e-9, {"jacobi1d": 2e-8})})
SIZES = (("S1", 4096), ("S2", 4096), ("T", 48))
HYBRID_POINT = "tT=8,tS1=2,tS2=256,bx=128,by=2"


def _hybrid(cal):
    return quantities(Scheme.HYBRID, Problem((4096, 4096), 48), [8], [[2], [256]], [256],
                      H100, cal, "jacobi2d")


def test_a_hybrid_point_is_priced_with_the_hybrid_constants():
    as_own = replace(BASE, L=5e-10, C_iter={"jacobi2d": 7e-8})
    assert _hybrid(OWN).T_alg[0] == pytest.approx(_hybrid(as_own).T_alg[0])
    assert _hybrid(OWN).T_alg[0] != pytest.approx(_hybrid(BASE).T_alg[0])
    # the overlapped scheme keeps the overlapped constants
    over = [quantities(Scheme.OVERLAPPED, Problem((4096, 4096), 48), [4], [[32], [64]],
                       [128], H100, cal, "jacobi2d").T_alg[0] for cal in (OWN, BASE)]
    assert over[0] == over[1]
    # through the family: an hx_ candidate is hybrid, a tt_ one overlapped
    model = get_family("tiling").ready(device_model="h100", calibration=OWN)
    hx = model.predict_candidates([Candidate("hx_jacobi2d", HYBRID_POINT, (128, 2), SIZES)])
    assert hx.seconds[0] == pytest.approx(_hybrid(as_own).T_alg[0])


def test_a_scheme_without_its_own_constants_uses_the_overlapped_ones():
    hexonly = with_scheme_constants(BASE, {"hexagonal": OWN.schemes["hexagonal"]})
    assert _hybrid(hexonly).T_alg[0] == _hybrid(BASE).T_alg[0]
    assert hexonly.constants("hybrid")[2] == "overlapped"
    assert OWN.constants("hexagonal") == (4e-9, {"jacobi1d": 2e-8}, "hexagonal")
    # a scheme with constants but not for this stencil: said, not mixed
    with pytest.raises(ModelError, match="no hybrid C_iter for 'heat2d'"):
        OWN.c_iter("heat2d", "hybrid")
    with pytest.raises(ModelError, match="L must be positive"):
        with_scheme_constants(BASE, {"hybrid": SchemeConstants(0.0, {"jacobi2d": 1e-8})})


def test_old_calibration_and_model_files_load(tmp_path):
    old = BASE.to_json()
    assert "schemes" not in old           # a calibration without them writes as before
    assert TilingCalibration.from_json(json.loads(json.dumps(old))) == BASE
    doc = OWN.to_json()
    assert set(doc["schemes"]) == {"hexagonal", "hybrid"}
    assert TilingCalibration.from_json(json.loads(json.dumps(doc))) == OWN
    family = get_family("tiling")
    model_doc = family.ready(device_model="h100", calibration=BASE).to_json()
    assert "schemes" not in model_doc["calibration"]     # the format of older files
    assert family.load(model_doc).calibration == BASE
    saved = family.ready(device_model="h100", calibration=OWN).to_json()
    again = family.load(json.loads(json.dumps(saved)))
    assert again.calibration.schemes["hybrid"].C_iter == {"jacobi2d": 7e-8}
    with pytest.raises(ModelError, match="malformed"):
        TilingCalibration.from_json({**doc, "schemes": {"hybrid": {"C_iter": {}}}})


def test_the_constants_reproduce_the_microbenchmark_launches():
    """Rows timed as the model prices them (known L, C_iter) give those back."""
    rows, truth = [], {"jacobi2d": 6e-8, "heat2d": 8e-8}
    L = 4e-10
    for stencil, C in truth.items():
        for t_T, tiles, threads in ((6, (4, 256), (2, 128)), (12, (3, 384), (2, 128))):
            band, twin = hex_pair(stencil, t_T, tiles, threads, (6144, 6144), 48)
            for bench, c in ((band, C), (twin, 1e-15)):
                row = MicroRow(bench.what.value, bench.variant, 0.0, dict(bench.facts), 132)
                rows.append(replace(row, time_s=_launch_time(
                    Scheme.HYBRID, row, H100, BASE, L, c, stencil, None)))
    found = scheme_constants(rows, H100, BASE)
    assert set(found) == {"hybrid"}
    assert found["hybrid"].L == pytest.approx(L, rel=1e-6)
    for stencil, C in truth.items():
        assert found["hybrid"].C_iter[stencil] == pytest.approx(C, rel=1e-6)
    assert found["hybrid"].provenance["pairs"] == 4
    assert np.isfinite(found["hybrid"].provenance["L_per_pair"]).all()
