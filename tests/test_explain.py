"""``workbench explain`` and :func:`workbench.models.explanation.explain`: a
prediction in seconds per term, on the shipped H100 and H200 models, the roofline, a
user's kernel file and a model fitted live on pocl."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from workbench.cli.main import main
from workbench.errors import ModelError
from workbench.kernels import resolve_kernel
from workbench.kernels.candidate import Candidate
from workbench.models import get_family, load_model, parse_model
from workbench.models.defaults import default_model
from workbench.models.explanation import CeilingKind, explain
from workbench.models.expressions.account import expression_account
from workbench.models.terms import Category

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
H200 = ROOT / "sample_data" / "h200"
MY_KERNELS = ROOT / "examples" / "kernels" / "my_kernels.py"


def candidate(kernel, dtype="float64", **params):
    return Candidate.of(resolve_kernel(kernel), params, dtype=dtype)


def adds_up(explanation):
    assert explanation.terms, "no terms"
    assert math.isclose(explanation.terms_sum_s, explanation.predicted_s, rel_tol=0.01), \
        (explanation.terms_sum_s, explanation.predicted_s)


MODELS = {
    "default": lambda: default_model().model,
    "overlap (sectors and local trees)": lambda: load_model(
        H100 / "weights-overlap-fp64-sectors-trees.json"),
    "linear": lambda: load_model(H100 / "weights-linear-fp64.json"),
    "roofline": lambda: get_family("roofline").ready(device_model="h100"),
}


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("kernel, params", [("finite_diff", {"n": 4096}),
                                            ("vector_scale_add", {"n": 2 ** 22})])
def test_terms_add_up_to_the_prediction(name, kernel, params):
    model = MODELS[name]()
    e = explain(model, candidate(kernel, **params))
    adds_up(e)
    assert e.family == model.family and e.device == "NVIDIA H100 80GB HBM3"
    assert e.limiter and e.limiter_says
    if name == "roofline":
        # the largest limiter is the prediction; every limiter is a side of the max
        (overlap,) = e.overlaps
        assert e.limiter == overlap.winning.label
        assert {s.label for s in overlap.sides} >= {"L1", "L2", "DRAM"}
        assert e.predicted_s == max(s.seconds for s in overlap.sides)
    if name == "linear":
        # a plain sum: every term is its weight times its count
        for t in e.terms:
            assert t.seconds == pytest.approx(t.weight * t.count)


def test_the_overlap_reports_the_winning_side_and_what_the_other_would_cost():
    e = explain(load_model(H100 / "weights-overlap-fp64-sectors-trees.json"),
                candidate("finite_diff", n=4096))
    (overlap,) = e.overlaps
    assert overlap.function == "smax" and len(overlap.sides) >= 2
    winner, loser = overlap.winning, overlap.runner_up
    assert winner.seconds > loser.seconds > 0
    assert overlap.margin_s == pytest.approx(winner.seconds - loser.seconds)
    # the winner's terms are terms of the prediction, the loser's are not
    names = {t.name for t in e.terms}
    assert {t.name for t in winner.terms} <= names
    assert not {t.name for t in loser.terms} & names
    assert 0 <= overlap.smoothing_s <= 0.036 * winner.seconds


def test_an_expression_account_is_exact_with_nested_overlaps_and_other_nodes():
    expression = parse_model(
        "p_a * f_op_float32_add + 2 * smax(p_b * f_op_float32_mul, "
        "smin(p_c * f_thread_groups, p_d * f_op_float32_div)) "
        "+ p_e * f_op_float32_add / f_thread_groups")
    parameters = {"p_a": 1e-12, "p_b": 2e-12, "p_c": 1e-8, "p_d": 3e-11, "p_e": 1e-6}
    features = {"f_op_float32_add": 4e6, "f_op_float32_mul": 1e6, "f_thread_groups": 512,
                "f_op_float32_div": 3e5}
    account = expression_account(expression, parameters, features)
    value = float(expression.evaluate({k: [v] for k, v in features.items()}, parameters)[0])
    assert account.total_s == pytest.approx(value, rel=1e-12)
    assert account.terms_sum_s == pytest.approx(value, rel=1e-12)
    # the smin side wins the smax: its own overlap is read too (inner first)
    assert [o.function for o in account.overlaps] == ["smin", "smax"]
    assert account.overlaps[1].winner == 1 and account.overlaps[0].winner == 0
    add = next(t for t in account.terms if t.name == "f_op_float32_add")
    assert add.weight == 1e-12 and add.count == 4e6 and add.category is Category.ARITHMETIC
    # a quotient of features is one term, named by its text
    assert any("/" in t.name for t in account.terms)


def test_a_weight_made_of_parameters_is_a_term_of_its_feature():
    # the default's function calls: (4.059e-11 - p_mul_f64 - p_spec_f64) * f_exp_calls
    # was one term named by its whole text in explain's table and sides
    expression = parse_model("p_a * f_op_float32_add + (3e-11 - p_a - p_b) * f_op_float32_div")
    parameters = {"p_a": 1e-12, "p_b": 2e-12}
    features = {"f_op_float32_add": 4e6, "f_op_float32_div": 3e5}
    account = expression_account(expression, parameters, features)
    div = next(t for t in account.terms if t.name == "f_op_float32_div")
    assert div.weight == pytest.approx(3e-11 - 1e-12 - 2e-12) and div.count == 3e5
    assert div.category is Category.ARITHMETIC and "p_a" in div.parameter
    assert account.terms_sum_s == pytest.approx(1e-12 * 4e6 + 2.7e-11 * 3e5, rel=1e-12)


def test_a_maximum_against_a_side_of_nothing_tells_no_overlap():
    # the default's smax(sum, substitution chain) on a kernel without a chain: the sum
    # is the whole prediction, and no "wins against nothing" is told
    expression = parse_model("smax(p_a * f_op_float32_add, p_b * f_op_float32_mul)")
    parameters = {"p_a": 1e-12, "p_b": 2e-12}
    alone = expression_account(expression, parameters,
                               {"f_op_float32_add": 4e6, "f_op_float32_mul": 0})
    assert alone.overlaps == ()
    assert [t.name for t in alone.terms if t.category is Category.ARITHMETIC] == \
        ["f_op_float32_add"]
    both = expression_account(expression, parameters,
                              {"f_op_float32_add": 4e6, "f_op_float32_mul": 1e6})
    (overlap,) = both.overlaps
    assert overlap.winning.seconds == pytest.approx(4e-6)


def test_the_json_carries_the_prediction_of_workbench_predict(capsys):
    args = ["finite_diff", "--param", "n=4096", "--dtype", "float64", "--format", "json"]
    assert main(["predict", *args]) == 0
    predicted = json.loads(capsys.readouterr().out)["predicted_s"]
    assert main(["explain", *args, "--store",
                 str(H100 / "measurements-fp64.sqlite.xz")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["predicted_s"] == predicted
    assert out["limiter"] and out["family"] == "expression"
    # the model as fields (the shipped default here), its human line beside them
    assert out["model"]["default"] is True and out["model"]["family"] == "expression"
    assert out["model"]["weights"] == f"{out['model']['device']}/{out['model']['name']}.json"
    assert out["model_line"].startswith(f"model: expression, {out['model']['weights']} ")
    assert all({"name", "seconds"} <= set(t) for t in out["terms"])
    assert math.isclose(sum(t["seconds"] for t in out["terms"]), predicted, rel_tol=0.01)
    assert all(o["winner"] for o in out["overlaps"]) and out["floor"]["bound"] == "launch"
    names = {c["name"] for c in out["roofline"]["ceilings"]}
    assert {"DRAM (measured)", "DRAM peak", "float64 peak"} <= names
    assert out["roofline"]["flops"] > 0 and out["roofline"]["intensity_flop_per_byte"] > 0
    # the shipped H100 store measured this configuration: beside the prediction
    assert out["measured_s"] > 0
    assert out["measured"]["relative_error"] == pytest.approx(
        (predicted - out["measured_s"]) / out["measured_s"])


def test_the_table_and_the_roofline_chart(capsys, tmp_path):
    chart = tmp_path / "roofline.html"
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64",
                 "--weights", str(H100 / "weights-linear-fp64.json"),
                 "--plot", str(chart)]) == 0
    out = capsys.readouterr().out
    assert "sum of the terms" in out and "limiter:" in out and "physical floor" in out
    assert "plotly" in chart.read_text()[:20000].lower()


def test_a_user_kernel_file_is_explained(capsys):
    assert main(["explain", f"{MY_KERNELS}:saxpy", "--param", "n=1048576",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kernel"] == "saxpy"
    assert main(["explain", f"{MY_KERNELS}:saxpy", "--param", "n=1048576", "--model",
                 "roofline", "--device-model", "h100", "--format", "json"]) == 0
    ready = json.loads(capsys.readouterr().out)
    assert ready["model"] == {"family": "roofline", "name": "roofline", "weights": None,
                              "default": False, "device_model": "h100"}
    assert ready["model_line"] == "model: roofline, ready from h100"
    assert math.isclose(sum(t["seconds"] for t in out["terms"]), out["predicted_s"],
                        rel_tol=0.01)


def test_h200_weights_are_explained_with_the_h200_bandwidths():
    e = explain(load_model(H200 / "weights-linear-fp64.json"), candidate("finite_diff",
                                                                         n=4096))
    adds_up(e)
    assert e.device == "NVIDIA H200"
    bandwidths = {c.name for c in e.ceilings.of_kind(CeilingKind.BANDWIDTH)}
    assert "DRAM (measured)" in bandwidths
    # no device description of the H200: no flop peak and no floors, said so
    assert not e.ceilings.of_kind(CeilingKind.COMPUTE) and e.floor is None
    assert any("peak flop rate" in n for n in e.ceilings.notes)


def test_a_family_without_an_account_says_so():
    with pytest.raises(ModelError, match="cannot explain"):
        explain(SimpleNamespace(family="ir-knn"), candidate("finite_diff", n=4096))


@pytest.fixture(scope="module")
def pocl_weights(queue, tmp_path_factory):   # ``queue`` skips without pocl
    folder = tmp_path_factory.mktemp("pocl")
    store, weights = folder / "pocl.sqlite", folder / "weights.json"
    assert main(["calibrate", "--quick", "--runs", "3", "--kernels", "arith",
                 "--store", str(store), "--no-progress"]) == 0
    assert main(["fit", "--store", str(store), "--bootstrap", "0", "-o",
                 str(weights)]) == 0
    return store, weights


def test_a_model_fitted_live_on_pocl_is_explained(pocl_weights, capsys, tmp_path):
    store, weights = pocl_weights
    capsys.readouterr()
    chart = tmp_path / "roofline.html"
    assert main(["explain", "finite_diff", "--param", "n=256", "--group-size", "16x16",
                 "--weights", str(weights), "--store", str(store), "--format", "json",
                 "--plot", str(chart)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["device"] == json.loads(weights.read_text())["device"]["device"]
    assert math.isclose(sum(t["seconds"] for t in out["terms"]), out["predicted_s"],
                        rel_tol=0.01)
    assert out["floor"] is None and out["roofline"]["notes"]
    assert chart.is_file()


def test_a_one_work_item_launch_is_explained_with_its_floor_and_warning(capsys):
    from workbench.kernels import spec_from_loopy
    from workbench.kernels.generators.latency import sequential_axpy
    from workbench.models.parallelism import CaveatKind

    one_item = Candidate.of(spec_from_loopy(sequential_axpy("float32"), name="axpy1"),
                            {"n": 1 << 16})
    e = explain(load_model(H100 / "weights-overlap-fp64.json"), one_item)
    assert e.limiter == "serial work floor"
    assert [c.kind for c in e.caveats] == [CaveatKind.LOW_PARALLELISM]
    assert math.isclose(e.terms_sum_s, e.predicted_s, rel_tol=0.01)
    assert e.to_json()["caveats"][0]["message"].startswith("uses 1 of 16,896 lanes")


def test_every_feature_of_a_shipped_expression_model_says_what_it_pays_for():
    """A term of the shipped models' features is never put down to "other" (the
    limiter would then name nothing)."""
    import re

    from workbench.models.terms import category_of

    unnamed = {}
    import lzma

    # older candidates ship as X.json.xz (issue #25)
    folder = ROOT / "models"
    for path in sorted([*folder.glob("*.json"), *folder.glob("*.json.xz")]):
        doc = json.loads(lzma.decompress(path.read_bytes()) if path.suffix == ".xz"
                         else path.read_text())
        if doc.get("family") != "expression":
            continue
        for name in re.findall(r"\bf_[a-z0-9_]+", doc["model"]):
            if name == doc.get("output") or category_of(name) is not Category.OTHER:
                continue
            unnamed.setdefault(name, path.name)
    # what pays for no single unit: the occupancy model's residency and chain, the
    # in-situ model's measured work-removed time and its balance over compute units
    no_single_unit = {"f_warp_chain_bytes", "f_wr_wall_time", "f_cu_balance"}
    assert set(unnamed) - no_single_unit == set(), unnamed


def test_the_table_drops_a_losing_side_of_nothing_and_says_why_dram_sets_no_floor(
        capsys):
    # the demo's finite_diff: the default's smax has a chain side that costs nothing
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    assert "overlap smax" in out and "losing side, global memory" in out
    assert "losing side, nothing" not in out and "would have cost 0 ms" not in out
    # chains38's subtracted smin (arithmetic hidden under global accesses): sides named,
    # in words that say what is taken back (test_explain_words has the details)
    assert "overlap smin, taken back: arithmetic (" in out
    # 3 x 4 MiB of arrays fit in the H100's L2: no DRAM floor, said so, not "at most 0 ms"
    assert main(["explain", "matmul_naive", "--param", "n=1024"]) == 0
    out = capsys.readouterr().out
    assert "DRAM traffic sets no floor: the arrays together fit in the L2 cache" in out
    assert "at most 0 ms" not in out


def test_predict_shows_a_feature_in_seconds_as_a_time_not_a_count(capsys):
    assert main(["predict", f"{MY_KERNELS}:saxpy", "--param", "n=16777216"]) == 0
    (row,) = [line.split() for line in capsys.readouterr().out.splitlines()
              if line.startswith("f_dram_stencil_stream_s ")]     # chains38's stream bound
    assert row[1:3] == ["input", "time"] and row[-1] == "s" and float(row[3]) > 0


def test_predict_says_a_prediction_lifted_to_the_floor_in_plain_words(capsys):
    assert main(["predict", f"{MY_KERNELS}:row_sums", "--param", "n=4096,m=4096",
                 "--model", "roofline", "--device-model", "h100"]) == 0
    out = capsys.readouterr().out
    assert "the model's own time is under the physical floor (" in out
    assert "the prediction is the floor" in out and "broke" not in out
