"""One contract and one registry for every model family; the shared access model."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.errors import ModelError
from workbench.kernels import get_kernel
from workbench.kernels.candidate import Candidate
from workbench.kernels.families import finite_diff_family
from workbench.models import MODEL_FAMILIES, get_family, load_model, save_model
from workbench.models.contract import PAPERS_PAGE, FittedModel, ModelFamily, Need
from workbench.models.roofline import predict_block
from workbench.models.roofline.family import RooflineModel
from workbench.models.roofline.from_loopy import accesses_from_loopy
from workbench.properties import kernel_properties

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
STENCIL = dict(nx=128, ny=128, nz=64)


def test_every_family_follows_the_contract_and_names_its_paper():
    assert {"unified-linear", "expression", "roofline"} <= set(MODEL_FAMILIES)
    headings = re.findall(r"^## (\S+)$", (ROOT / PAPERS_PAGE).read_text(), re.MULTILINE)
    for family in MODEL_FAMILIES.values():
        assert isinstance(family, ModelFamily)
        assert family.describe() and family.needs
        importlib.import_module(family.home)   # the paper's folder exists
        assert family.paper.key in headings, family.paper   # cited in docs/papers.md
        assert family.paper.link.startswith("https://"), family.paper


def test_models_command_lists_families_with_papers_and_needs(capsys):
    assert main(["models", "--format", "json"]) == 0
    rows = {r["family"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["unified-linear"]["paper"]["citation"].startswith("Stevens")
    assert rows["roofline"]["paper"]["citation"].startswith("Ernst")
    assert rows["roofline"]["paper"]["reference"] == "docs/papers.md#ernst-data-volumes"
    assert all("shared" not in json.dumps(r["paper"]) for r in rows.values())
    assert rows["roofline"]["needs"] == ["addresses", "device description"]
    assert rows["roofline"]["predicts_from_kernel_alone"]
    assert "calibration" in rows["unified-linear"]["needs"]
    assert not rows["unified-linear"]["predicts_from_kernel_alone"]
    assert rows["expression"]["home"] == "workbench.models.expressions"


def test_predict_through_the_registry_with_the_roofline(capsys):
    args = ["predict", "star_stencil_3d", "--param", "nx=128,ny=128,nz=64", "--dtype",
            "float64", "--group-size", "32x4x8", "--model", "roofline", "--device-model",
            "h100", "--format", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    spec = get_kernel("star_stencil_3d")
    direct = predict_block(spec.build(spec.request(None, "float64", (32, 4, 8))), STENCIL,
                           (32, 4, 8), RooflineModel().ready(device_model="h100").device_model)
    assert out["family"] == "roofline"
    assert out["predicted_s"] == pytest.approx(direct.time, rel=1e-12)
    assert out["limiter"] == direct.limiter.value


@pytest.mark.parametrize("args, message", [
    (["--model", "unified-linear"], "needs a calibration"),
    (["--model", "expression"], "needs a calibration"),
    (["--model", "roofline"], "needs a device description"),
    (["--weights", str(H100 / "weights-insitu.json")], "work-removed twin"),
])
def test_predict_says_in_one_line_what_a_model_needs(args, message, capsys):
    assert main(["predict", "finite_diff", "--param", "n=1024", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_count_models_rank_candidates_by_their_predictions():
    model = load_model(H100 / "weights-linear.json")
    assert isinstance(model, FittedModel)
    candidates = finite_diff_family(2048).candidates
    ranking = model.rank(candidates)
    predicted = model.predict_candidates(candidates).seconds
    assert list(ranking.predicted_s) == list(predicted)
    assert [c.label for c in ranking.ranked] == \
        [candidates[i].label for i in np.argsort(predicted, kind="stable")]
    assert ranking.seconds > 0 and ranking.frame()["rank"].tolist() == \
        list(range(1, len(candidates) + 1))
    overlap = load_model(H100 / "weights-overlap.json")
    assert overlap.rank(candidates).best in candidates


def test_roofline_ranks_blocks_and_records_what_it_cannot_read(tmp_path):
    model = get_family("roofline").ready(device_model="h100")
    good = [Candidate.of("star_stencil_3d", STENCIL, dtype="float64", group_size=g)
            for g in ((32, 4, 8), (64, 4, 4))]
    ranking = model.rank(good)
    assert np.all(np.isfinite(ranking.predicted_s)) and ranking.best in good
    # round trip through the model file keeps predictions
    save_model(model, tmp_path / "roofline.json")
    again = load_model(tmp_path / "roofline.json")
    np.testing.assert_allclose(again.predict_candidates(good).seconds, ranking.predicted_s,
                               rtol=1e-12)
    frame = pd.DataFrame({"kernel": ["star_stencil_3d"], "variant": ["nofold"],
                          "dtype": ["float64"], "group_size": ["32x4x8"],
                          "params": ["nx=128,ny=128,nz=64"]})
    assert model.predict(frame)[0] == pytest.approx(ranking.predicted_s[0])
    with pytest.raises(ModelError, match="unknown roofline option"):
        get_family("roofline").ready(device_model="h100", bogus=1)


def test_roofline_fit_recovers_miss_functions_from_volumes():
    family = RooflineModel()
    model = family.ready(device_model="h100")
    shapes = [(32, 4, 8), (64, 4, 4), (128, 2, 4), (16, 8, 8), (256, 1, 4), (8, 8, 16)]
    rows = []
    for g in shapes:
        inputs = model.prediction(Candidate.of("star_stencil_3d", STENCIL, dtype="float64",
                                               group_size=g)).inputs
        # "measured" volumes made by the shipped miss functions themselves
        rows.append({"kernel": "star_stencil_3d", "variant": "nofold", "dtype": "float64",
                     "group_size": "x".join(map(str, g)), "params": "nx=128,ny=128,nz=64",
                     "l2_load_bytes": inputs.l2_l1.load_sectors_bytes * inputs.blocks,
                     "dram_read_bytes": inputs.dram.load_bytes})
    fitted = family.fit(pd.DataFrame(rows), device_model="h100")
    assert fitted.fit_stats["n_configurations"] == len(shapes)
    assert set(fitted.device_model.miss_functions) == {"l1_capacity", "l2_reuse"}
    np.testing.assert_allclose(fitted.predict(pd.DataFrame(rows)),
                               model.predict(pd.DataFrame(rows)), rtol=0.05)


def test_fit_refuses_the_roofline_family_with_what_to_do(tmp_path, capsys):
    assert main(["fit", "--store", str(H100 / "measurements.sqlite"), "--family",
                 "roofline", "-o", str(tmp_path / "r.json")]) == 2
    assert "device description" in capsys.readouterr().err


def test_one_access_model_feeds_footprints_and_volumes():
    spec = get_kernel("finite_diff")
    props = kernel_properties(spec, group_size=(16, 16))
    model = props.access_model
    assert set(model.arrays) == {"u", "out"}
    assert model.arrays["u"].itemsize == 4 and model.arrays["u"].fastest_axis == 1
    assert props.footprint("u").used is not None   # symbolic footprint from the model
    from_model, launch = accesses_from_loopy(model, {"n": 64})
    from_program, launch2 = accesses_from_loopy(spec.build(spec.request(group_size="16x16")),
                                                {"n": 64})
    assert from_model == from_program and launch == launch2
    assert {a.array for a in from_model} == {"u", "out"}
    assert Need.ADDRESSES.from_kernel_alone and not Need.CALIBRATION.from_kernel_alone


def test_predict_without_a_model_uses_the_shipped_default_and_says_which(capsys):
    pointer = json.loads((H100 / "default-model.json").read_text())
    args = ["predict", "finite_diff", "--param", "n=1024", "--format", "json"]
    assert main(args) == 0
    chosen = json.loads(capsys.readouterr().out)
    # structured: the family, the file and that it is the default; the line beside it
    assert chosen["model"] == {"family": "expression",
                               "name": pointer["weights"].removesuffix(".json"),
                               "weights": f"h100/{pointer['weights']}", "default": True,
                               "device": "h100"}
    assert chosen["model_line"].startswith(f"model: expression, h100/{pointer['weights']} "
                                           "(the shipped h100 default")
    # the expression is there on request
    assert chosen["expression"].startswith("f_cl_wall_time") or "p_" in chosen["expression"]
    assert main(args + ["--weights", str(H100 / pointer["weights"])]) == 0
    named = json.loads(capsys.readouterr().out)
    assert named["model"] == {"family": "expression",
                              "name": pointer["weights"].removesuffix(".json"),
                              "weights": str(H100 / pointer["weights"]), "default": False}
    assert named["model_line"] == f"model: expression, {H100 / pointer['weights']}"
    assert chosen["predicted_s"] == named["predicted_s"] > 0
    # the table's title line is short: the expression only with --show-expression
    assert main(args[:-2]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()[:2]) < 300
    assert main(args[:-2] + ["--show-expression"]) == 0
    assert "expression: " in capsys.readouterr().out


def test_no_shipped_default_is_a_clear_error(tmp_path):
    from workbench.models.defaults import default_model

    with pytest.raises(ModelError, match="no shipped default model"):
        default_model(tmp_path)
