"""The roofline's data volumes as features of the expression models (issue 34, item 2)."""

import json
from pathlib import Path

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

ROOT = Path(__file__).resolve().parents[1]
DEVICE = "NVIDIA H100 80GB HBM3"
STENCIL = Candidate("star_stencil_3d", None, (32, 4, 8),
                    tuple(sorted({"nx": 128, "ny": 128, "nz": 64}.items())), "float64")


def test_the_features_are_the_roofline_volumes_of_a_3d_stencil():
    from workbench.models.roofline.family import RooflineModel
    from workbench.models.volume_features import volume_values

    inputs = RooflineModel().ready(device_model="h100").prediction(STENCIL).inputs
    values = volume_values([STENCIL], DEVICE)
    assert values["f_dram_bytes"][0] == pytest.approx(inputs.dram.total_bytes, rel=1e-12)
    assert values["f_l2_bytes"][0] == pytest.approx(
        inputs.l2_l1.sectors_bytes * inputs.blocks, rel=1e-12)
    # the neighbours' loads hit in the caches: what reaches DRAM is about one read of
    # the input and one write of the output, far below the 7 loads + 1 store a point
    points = 128 * 128 * 64
    assert 2 * 8 * points * 0.9 < values["f_dram_bytes"][0] < 4 * 8 * points


def test_the_volumes_model_file_parses_and_predicts():
    from workbench.models.expressions.model import FittedExpressionModel
    from workbench.models.expressions.spec import ExpressionModelSpec

    spec = ExpressionModelSpec.from_document(
        json.loads((ROOT / "models" / "overlap-fp64-volumes.json").read_text()))
    assert "f_dram_bytes" in spec.features and "p_dram" in spec.parameters
    default = json.loads((ROOT / "sample_data" / "h100" /
                          "weights-overlap-fp64.json").read_text())["parameters"]

    def predicted(p_dram):
        model = FittedExpressionModel(spec, {**default, "p_dram": p_dram}, {}, (), {},
                                      {"device": DEVICE})
        return model.predict_candidates([STENCIL]).seconds[0]

    base, priced = predicted(0.0), predicted(1e-9)
    assert np.isfinite(base) and base > 0
    # one nanosecond a DRAM byte dominates the global side: about the bytes' price
    dram = 2 * 8 * 128 * 128 * 64
    assert dram * 1e-9 * 0.9 < priced < dram * 1e-9 * 3
