"""User-written model expressions (2019 paper): language, features, fitting, files, CLI."""

import ast
import builtins
import json
import os
from pathlib import Path

import loopy as lp
import numpy as np
import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.errors import ModelError, UnknownNameError
from workbench.measure import MeasurementStore
from workbench.models import (
    ExpressionModel,
    ExpressionModelSpec,
    UnifiedLinearModel,
    build_dataset,
    load_model,
    parse_model,
    save_model,
    smooth_max,
)
from workbench.models.expressions import (
    dataset_feature_values,
    kernel_feature_values,
    parse_feature_ref,
)
from workbench.models.expressions.features import AccessFilter
from workbench.models.expressions import SMOOTH_MAX_SOFTNESS
from workbench.properties import kernel_properties
from workbench.reports import predictions, table1

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100" / "measurements.sqlite"
META = ["kernel", "variant", "dtype", "group_size", "params", "role", "time_s", "device"]


@pytest.fixture(scope="module")
def h100_workitem():
    with MeasurementStore.open(H100, create=False, readonly=True) as store:
        ms = store.measurements()
    return build_dataset(ms, granularity="workitem")


# {{{ language

def values(text, features=None, **params):
    m = parse_model(text)
    return m.evaluate({f: np.asarray(features[f], float) for f in m.features}, params)


def test_parse_valid_expressions_and_precedence():
    m = parse_model("f_cl_wall_time_nvidia_h100 = p_f32add * f_op_float32_add "
                    "+ p_ld * f_mem_access_tag:aLD + p_barrier * f_sync_barrier_local "
                    "* f_thread_groups + p_launch * f_sync_kernel_launch")
    assert m.output == "f_cl_wall_time_nvidia_h100"
    assert m.parameters == ("p_f32add", "p_ld", "p_barrier", "p_launch")
    assert m.features == ("f_op_float32_add", "f_mem_access_tag:aLD",
                          "f_sync_barrier_local", "f_thread_groups", "f_sync_kernel_launch")
    assert parse_model("p_a * f_thread_groups").output == "f_cl_wall_time"
    f = {"f_thread_groups": [2.0, 3.0]}
    assert values("-p_a**2 + 0*f_thread_groups", f, p_a=3) == pytest.approx([-9, -9])
    assert values("p_a - p_b - p_c + 0*f_thread_groups", f, p_a=10, p_b=3, p_c=2) \
        == pytest.approx([5, 5])
    assert values("p_a / p_b / f_thread_groups", f, p_a=12, p_b=2) == pytest.approx([3, 2])
    assert values("p_a ** 3 ** 2 * f_thread_groups", f, p_a=2) == pytest.approx([1024, 1536])
    assert values("2.5e-1 * (p_a + f_thread_groups) - -p_a", f, p_a=2) \
        == pytest.approx([3, 3.25])
    assert values("exp(log(p_a)) * sqrt(f_thread_groups) + min(p_a, p_a) * 0", f, p_a=5) \
        == pytest.approx(5 * np.sqrt([2, 3]))


@pytest.mark.parametrize("text, suggestion", [
    ("p_a * f_op_float32_madd", "f_op_float32_add"),
    ("p_a * f_thread_group", "f_thread_groups"),
    ("p_a * f_mem_access_global_float32_load_strde1",
     "f_mem_access_global_float32_load_stride1"),
])
def test_unknown_feature_names_suggest_close_ones(text, suggestion):
    with pytest.raises(UnknownNameError, match="Did you mean") as info:
        parse_model(text)
    assert isinstance(info.value, ModelError)
    assert repr(suggestion) in str(info.value)


def test_unknown_parameter_names_suggest_close_ones():
    with pytest.raises(UnknownNameError, match="'p_f32add'") as info:
        ExpressionModelSpec.create("p_f32add * f_op_float32_add",
                                   bounds={"p_f32ad": [0, None]})
    assert isinstance(info.value, ModelError)
    with pytest.raises(UnknownNameError, match="'p_launch'"):
        ExpressionModelSpec.create("p_launch * f_sync_kernel_launch",
                                   initial={"p_lanch": 1e-6})
    with pytest.raises(ModelError, match="not 'x'"):
        parse_model("p_a * x")


UNSAFE = [
    ("__import__('os').system('touch PWNED')", "string literals"),
    ("p_a.__class__", "attribute access"),
    ("a.b", "attribute access"),
    ("f_x[0]", "subscripts"),
    ("p_a * f_thread_groups[0]", "subscripts"),
    ("open('PWNED', 'w')", "string literals"),
    ("open(p_a)", "calling 'open' is not allowed"),
    ("__import__(p_a)", "calling '__import__' is not allowed"),
    ("lambda: p_a", "keyword 'lambda'"),
    ("p_a * f_thread_groups : 3", "':' is only allowed"),
    ("lambda p_a: p_a", "keyword 'lambda'"),
    ('"p_a"', "string literals"),
    ("p_a < f_thread_groups", "comparisons"),
    ("p_a == f_thread_groups", "comparisons"),
    ("p_a // f_thread_groups", "floor division"),
    ("p_a % f_thread_groups", "not allowed"),
    ("p_a * f_thread_groups; p_b", "only one expression"),
    ("[p_a for p_a in f_thread_groups]", "subscripts"),
    ("p_a(f_thread_groups)", "not a function"),
    ("f_thread_groups = p_a", "not a measured output"),
    ("p_a * f_cl_wall_time", "cannot be an input"),
    ("p_a * (f_thread_groups", "expected ')'"),
    ("p_a f_thread_groups", "expected an operator"),
    ("exp(p_a, p_a)", "takes 1 argument"),
    ("", "expected an expression"),
    ("2 * f_thread_groups", "no p_ parameters"),
    ("(p_a, f_thread_groups)", "tuples are not allowed"),
    ("-" * 5000 + "p_a", "nested too deeply"),
    ("p_a * " + "(" * 101 + "f_thread_groups" + ")" * 101, "nesting deeper"),
    ("p_a * f_thread_groups if p_a else p_a", "keyword 'if'"),
]


@pytest.mark.parametrize("text, message", UNSAFE)
def test_unsafe_or_malformed_input_is_refused_and_never_executed(text, message, tmp_path,
                                                                 monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("the model parser must never run Python code")

    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as patch:
        for name in ("eval", "exec", "compile"):
            patch.setattr(builtins, name, forbidden)
        patch.setattr(os, "system", forbidden)
        with pytest.raises(ModelError) as info:
            parse_model(text)
    assert message in str(info.value)
    assert not (tmp_path / "PWNED").exists()


def test_library_modules_never_call_eval_or_exec():
    # The whole package; ``runpy.run_path`` in kernels/user.py is the one deliberate
    # exception: it runs a kernel file the user names, as ``python FILE`` would.
    for path in sorted((ROOT / "workbench").rglob("*.py")):
        tree = ast.parse(path.read_text())
        calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
        names = {f.id for f in calls if isinstance(f, ast.Name)}
        methods = {f.attr for f in calls if isinstance(f, ast.Attribute)}
        assert not names & {"eval", "exec", "compile", "__import__"}, path
        runners = {"run_path", "run_module", "system", "popen"}
        if path.name != "user.py":
            assert not methods & runners, path


def test_smooth_max_is_close_to_max_and_differentiable():
    a = np.logspace(-3, 3, 401)
    b = np.ones_like(a)
    s = smooth_max(a, b)
    exact = np.maximum(a, b)
    assert np.all(s >= exact)
    ratio = np.minimum(a, b) / exact
    assert np.all((s - exact)[ratio <= 0.5] <= 2e-3 * exact[ratio <= 0.5])
    assert np.all((s - exact)[ratio <= 0.01] <= 1e-3 * exact[ratio <= 0.01])
    assert smooth_max(1.0, 1.0) == pytest.approx(1 + SMOOTH_MAX_SOFTNESS / np.sqrt(2))
    assert smooth_max(5e-9, 1e-9) == pytest.approx(1e-3 * smooth_max(5e-6, 1e-6))
    # derivatives: forward mode against central differences, smooth across a = b
    m = parse_model("smax(p_a * f_thread_groups, p_b)")
    feats = {"f_thread_groups": np.linspace(0.5, 1.5, 11)}
    x = np.array([1.0, 1.0])
    _, jac = m.evaluate_with_jacobian(feats, x)
    h = 1e-6
    for i in range(2):
        dx = np.zeros(2)
        dx[i] = h
        num = (m.evaluate_with_jacobian(feats, x + dx)[0]
               - m.evaluate_with_jacobian(feats, x - dx)[0]) / (2 * h)
        assert jac[:, i] == pytest.approx(num, rel=1e-6, abs=1e-9)
    assert np.all(np.diff(jac[:, 0]) > 0)  # gradient moves smoothly to the larger branch
    v, j0 = parse_model("smax(p_a, p_b) + smin(p_a, p_b)").evaluate_with_jacobian({}, [0, 0])
    assert v[0] == 0 and np.all(np.isfinite(j0))


def test_jacobian_matches_finite_differences():
    m = parse_model("p_a * f_thread_groups ** p_b / (1 + exp(-p_c * f_sync_kernel_launch))"
                    " + sqrt(p_d) * log(f_thread_groups) - max(p_a, p_d) ** 2")
    feats = {"f_thread_groups": np.array([2.0, 5.0, 30.0]),
             "f_sync_kernel_launch": np.array([0.3, 1.0, 2.0])}
    x = np.array([0.7, 1.3, 0.4, 2.2])
    _, jac = m.evaluate_with_jacobian(feats, x)
    for i in range(4):
        dx = np.zeros(4)
        dx[i] = 1e-6
        num = (m.evaluate_with_jacobian(feats, x + dx)[0]
               - m.evaluate_with_jacobian(feats, x - dx)[0]) / 2e-6
        assert jac[:, i] == pytest.approx(num, rel=1e-6)

# }}}


# {{{ fitting

def synthetic(true: dict, expr: str, n: int = 120, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    feats = {"f_op_float32_add": 10 ** rng.uniform(5, 9, n),
             "f_mem_access_global_float32_load_stride1": 10 ** rng.uniform(4, 8, n),
             "f_thread_groups": 10 ** rng.uniform(1, 4, n),
             "f_sync_kernel_launch": np.ones(n)}
    frame = pd.DataFrame(feats)
    frame["role"] = np.where(np.arange(n) < n - 10, "measurement", "test")
    frame["kernel"] = "synthetic"
    frame["device"] = "Synthetic GPU"
    frame["time_s"] = parse_model(expr).evaluate(feats, true)
    return frame


OVERLAP = ("p_launch * f_sync_kernel_launch + p_groups * f_thread_groups + "
           "smax(p_add * f_op_float32_add, p_ld * f_mem_access_global_float32_load_stride1)")
TRUE = {"p_launch": 4e-6, "p_groups": 3e-9, "p_add": 2e-12, "p_ld": 5e-11}


def test_fit_recovers_linear_and_overlap_models():
    linear = OVERLAP.replace("smax(", "(").replace(", p_ld", " + p_ld")
    for expr in (linear, OVERLAP):
        data = synthetic(TRUE, expr)
        bounds = {p: [0, None] for p in TRUE}
        model = ExpressionModel().fit(data, model=expr, bounds=bounds)
        for name, value in TRUE.items():
            assert model.parameters[name] == pytest.approx(value, rel=1e-6), (expr, name)
        assert model.fit_stats["geomean_rel_error"] < 1e-8
        assert model.fit_stats["converged"]
        lo, hi = model.confidence_intervals["p_add"]
        assert lo <= model.parameters["p_add"] <= hi
        pred = model.predict(data[data["role"] == "test"])
        assert pred == pytest.approx(data["time_s"][data["role"] == "test"], rel=1e-8)
    # the overlap data are not linear: the additive model cannot fit them
    additive = ExpressionModel().fit(synthetic(TRUE, OVERLAP), model=linear)
    assert additive.fit_stats["geomean_rel_error"] > 1e-3


def test_a_parameter_no_row_exercises_neither_moves_nor_spoils_the_others():
    # a held-out kernel may take with it the only rows of one access kind (the catalog's
    # uniform loads live in matmul_naive alone): that parameter stays at its start and
    # the others are still recovered
    expr = OVERLAP.replace(
        "p_ld * f_mem_access_global_float32_load_stride1",
        "p_ld * f_mem_access_global_float32_load_stride1 + "
        "p_ldu * f_mem_access_global_float32_load_stride0")
    data = synthetic(TRUE, OVERLAP).assign(f_mem_access_global_float32_load_stride0=0.0)
    bounds = {p: [0, None] for p in [*TRUE, "p_ldu"]}
    model = ExpressionModel().fit(data, model=expr, bounds=bounds)
    assert model.unexercised == ("p_ldu",)
    assert model.parameters["p_ldu"] == 0.0
    for name, value in TRUE.items():
        assert model.parameters[name] == pytest.approx(value, rel=1e-6), name
    assert model.fit_stats["geomean_rel_error"] < 1e-8


def test_fit_with_initial_values_bounds_and_output_name():
    expr = "f_cl_wall_time_synthetic = p_a * f_op_float32_add ** p_b + p_c"
    data = synthetic({"p_a": 3e-11, "p_b": 0.8, "p_c": 1e-6}, expr)
    model = ExpressionModel().fit(data, model=expr,
                                  initial={"p_a": 1e-10, "p_b": 1.0, "p_c": 1e-5})
    assert model.parameters["p_b"] == pytest.approx(0.8, rel=1e-6)
    assert model.parameters["p_a"] == pytest.approx(3e-11, rel=1e-5)
    capped = ExpressionModel().fit(data, model=expr, bounds={"p_b": [0.5, 0.7]},
                                   initial={"p_a": 1e-10, "p_b": 0.6, "p_c": 1e-5})
    assert capped.parameters["p_b"] <= 0.7 + 1e-12
    assert "p_b" in capped.fit_stats["active_bounds"]
    with pytest.raises(ModelError, match="another device"):
        ExpressionModel().fit(data, model="f_cl_wall_time_nvidia = p_c")
    with pytest.raises(ModelError, match="not finite at the initial"):
        ExpressionModel().fit(data, model="p_c * log(p_a) + p_b * f_thread_groups")


def test_linear_special_case_reproduces_unified_linear_model(h100_workitem):
    data = h100_workitem
    linear = UnifiedLinearModel().fit(data, bootstrap=0, non_negative=False)   # free, as expr
    names = list(linear.weights)
    expr = " + ".join(f"p_{i} * {name}" for i, name in enumerate(names))
    model = ExpressionModel().fit(data, model=expr, granularity="workitem")
    got = np.array([model.parameters[f"p_{i}"] for i in range(len(names))])
    want = np.array([linear.weights[n] for n in names])
    np.testing.assert_allclose(got, want, rtol=1e-4)
    assert model.fit_stats["geomean_rel_error"] == pytest.approx(
        linear.fit_stats["training_geomean_rel_error"], rel=1e-6)
    assert table1(model, data).cross_kernel == pytest.approx(
        table1(linear, data).cross_kernel, rel=1e-6)
    # predicting from the metadata alone computes the same features as the dataset has
    meta = data[META]
    np.testing.assert_allclose(model.predict(meta), model.predict(data), rtol=1e-12)

# }}}


# {{{ constrained and tagged memory features

def tagged_kernel():
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        "out[i] = a$aLD[i] + 2*b$bLD[3*i] + a[i] + c[i, 1]",
        [lp.GlobalArg("a,out", np.float32, shape=("n",)),
         lp.GlobalArg("b", np.float32, shape=("3*n",)),
         lp.GlobalArg("c", np.float32, shape=("n", "m")),   # lid(0) stride m
         lp.ValueArg("n, m", np.int32)],
        assumptions="n >= 1", lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")


def test_tags_strides_and_afr_on_a_small_kernel():
    n = 1000
    names = {
        "f_mem_access_tag:aLD": n,
        "f_mem_access_tag:bLD": n,
        "f_mem_access_tag:bLD_global_float32_load": n,
        "f_mem_access_tag:bLD_global_float32_store": 0,
        "f_mem_access_global_float32_load_lstrides:{0:1}": 2 * n,        # a twice
        "f_mem_access_global_float32_load_lstrides:{0:>1}": 2 * n,       # b (3), c (m)
        "f_mem_access_global_float32_load_lstrides:{0:3}": n,            # b
        "f_mem_access_global_float32_load_lstrides:{0:>4}": n,           # c: symbolic m
        "f_mem_access_global_float32_load_lstrides:{0:<=4}": 3 * n,
        "f_mem_access_global_float32_load_gstrides:{0:64}": 2 * n,
        "f_mem_access_global_float32_load_lstrides:{}_gstrides:{}": 4 * n,
        "f_mem_access_global_float32_store": n,
        "f_mem_access_global_float32_load_afr:>1": 2 * n,                # a: 2n / n
        "f_mem_access_global_float32_load_afr:1": 2 * n,                 # b, c
        "f_mem_access_global_float32_load_lstrides:{0:1}_afr:<=1": 0,
        "f_mem_access_global_afr:1": 3 * n,                              # b, c, out
        "f_mem_access_local": 0,
    }
    props, got = kernel_feature_values(tagged_kernel(), names, {"n": n, "m": 5},
                                       granularity="workitem")
    assert got == {k: float(v) for k, v in names.items()}
    assert props.granularity.value == "workitem"


def test_constraint_parsing():
    ref = parse_feature_ref("f_mem_access_global_float32_load_lstrides:{0:1,1:>=16}"
                            "_gstrides:{}_afr:<=1.5")
    assert isinstance(ref, AccessFilter) and ref.mtype == "global"
    assert [(a, c.text) for a, c in ref.lstrides] == [(0, "1"), (1, ">=16")]
    assert ref.gstrides == () and ref.afr.text == "<=1.5"
    assert parse_feature_ref("f_mem_access_tag:my_tag_global").tag == "my_tag"
    for bad in ("f_mem_access_global_float32_load_lstrides:{0:1,0:2}",
                "f_mem_access_global_float32_load_lstrides:{x:1}",
                "f_mem_access_global_float32_load_afr:big",
                "f_mem_access_global_float32_lod_afr:1"):
        with pytest.raises(ModelError):
            parse_model(f"p_a * {bad}")


def test_afr_selects_the_halo_reread_input_of_finite_diff():
    props = kernel_properties("finite_diff", group_size="16x16")
    reread = "f_mem_access_global_float32_load_lstrides:{0:1}_gstrides:{}_afr:>1"
    once = "f_mem_access_global_float32_load_lstrides:{0:1}_gstrides:{}_afr:1"
    store = "f_mem_access_global_float32_store_afr:1"
    for n in (64, 100):
        # per axis: every full 16-wide tile fetches 16 + 2 halo cells, a partial one
        # (n % 16) + 2; the fetch is the square of that
        per_axis = (n // 16) * 18 + (n % 16 + 2 if n % 16 else 0)
        _, got = kernel_feature_values("finite_diff", [reread, once, store], {"n": n},
                                       group_size="16x16", granularity="workitem")
        assert got[reread] == per_axis ** 2          # each group's tile plus halo
        assert got[reread] > (n + 2) ** 2            # more accesses than elements
        assert got[once] == 0
        assert got[store] == n * n
    # sub-group granularity: non-uniform global loads still count per work item
    _, sub = kernel_feature_values("finite_diff", [reread], {"n": 64}, group_size="16x16",
                                   granularity="subgroup", subgroup_size=32)
    assert sub[reread] == 16 * 18 * 18
    assert props.footprint("u").used is not None

# }}}


# {{{ files and CLI

def test_model_file_round_trip_and_refusals(tmp_path):
    data = synthetic(TRUE, OVERLAP)
    model = ExpressionModel().fit(data, model=OVERLAP, bounds={"p_add": [0, None]},
                                  device={"device": "Synthetic GPU"})
    path = tmp_path / "m.json"
    save_model(model, path)
    doc = json.loads(path.read_text())
    assert doc["family"] == "expression" and doc["model"] == OVERLAP
    assert doc["bounds"] == {"p_add": [0.0, None]} and doc["granularity"] == "subgroup"
    assert doc["subgroup_size"] == 32 and "library_versions" in doc["provenance"]
    again = load_model(path)
    assert dict(again.parameters) == dict(model.parameters)
    np.testing.assert_allclose(again.predict(data), model.predict(data), rtol=0)
    assert list(again.report_data()["parameters"]["property"]) == list(TRUE)

    for change, error, message in [
        ({"parameters": None}, ModelError, "no fitted parameters"),
        ({"parameters": {**doc["parameters"], "p_ad": 1.0}}, UnknownNameError, "'p_add'"),
        ({"model": "__import__('os').system('touch PWNED')"}, ModelError, "string literals"),
        ({"schema_version": 99}, ModelError, "upgrade"),
        ({"bounds": {"p_add": [1, 0]}}, ModelError, "empty"),
    ]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**doc, **change}))
        with pytest.raises(error, match=message):
            load_model(bad)


def test_cli_fit_report_predict(tmp_path, capsys, h100_workitem):
    out = tmp_path / "expr.json"
    expr = ("p_launch * f_sync_kernel_launch + p_groups * f_thread_groups + "
            "smax(p_add * f_op_float32_add + p_mul * f_op_float32_mul, "
            "p_ld * f_mem_access_global_float32_load_lstrides:{0:1} "
            "+ p_st * f_mem_access_global_float32_store)")
    assert main(["fit", "--store", str(H100), "--model", expr, "--granularity", "workitem",
                 "-o", str(out), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["parameters"]) == {"p_launch", "p_groups", "p_add", "p_mul", "p_ld",
                                         "p_st"}
    assert 0 < result["geomean_rel_error"] < 1
    assert load_model(out).granularity == "workitem"

    assert main(["report", "--weights", str(out), "--store", str(H100)]) == 0
    text = capsys.readouterr().out
    assert "Cross-kernel geometric mean" in text and "p_launch" in text
    assert main(["report", "--weights", str(out), "--store", str(H100),
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cross_kernel_geomean_rel_error"] > 0
    assert main(["report", "--weights", str(out), "--store", str(H100), "--format", "md"]) == 0
    assert "Table 2: fitted parameters" in capsys.readouterr().out

    assert main(["predict", "matmul_tiled", "--param", "n=512,m=512,l=512",
                 "--group-size", "16x16", "--weights", str(out), "--format", "json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    row = pd.DataFrame([{"kernel": "matmul_tiled", "variant": "square",
                         "dtype": "float32", "group_size": "16x16",
                         "params": "l=512,m=512,n=512"}])
    assert pred["predicted_s"] == pytest.approx(load_model(out).predict(row)[0], rel=1e-12)
    assert pred["features"]["f_thread_groups"] == (512 // 16) ** 2

    # a model file with bounds and initial values is accepted by --model too
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({
        "schema": "workbench.model", "schema_version": 1, "family": "expression",
        "model": "f_cl_wall_time_nvidia_h100 = p_launch * f_sync_kernel_launch "
                 "+ p_groups * f_thread_groups + p_ld * f_mem_access_global_float32_load",
        "granularity": "workitem", "bounds": {"p_ld": [0, None]},
        "initial": {"p_launch": 5e-6}}))
    assert main(["fit", "--store", str(H100), "--model", str(spec), "-o", str(out),
                 "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["parameters"]["p_ld"] >= 0
    assert result["output_feature"] == "f_cl_wall_time_nvidia_h100"

    assert main(["fit", "--store", str(H100), "--model", "open('x')", "-o",
                 str(out)]) == 2
    err = capsys.readouterr().err
    assert "string literals are not allowed" in err and "Traceback" not in err


def test_predictions_table_with_metadata_only_rows(h100_workitem):
    data = h100_workitem
    model = ExpressionModel().fit(
        data, model="p_launch * f_sync_kernel_launch + p_groups * f_thread_groups "
                    "+ p_ld * f_mem_access_global_float32_load_lstrides:{0:1}_afr:1",
        granularity="workitem")
    full = predictions(model, data)
    meta = predictions(model, data[META])
    np.testing.assert_allclose(full["predicted_s"], meta["predicted_s"], rtol=1e-12)
    features = dataset_feature_values(data[META].iloc[:5], ["f_thread_groups"],
                                      granularity="workitem", subgroup_size=None)
    np.testing.assert_array_equal(features["f_thread_groups"],
                                  data["f_thread_groups"].iloc[:5])

# }}}


def test_a_model_file_shipped_as_json_xz_reads_under_either_name(tmp_path):
    """Older candidates in models/ ship as X.json.xz (issue #25): the spec reads the .xz
    name, and the cited X.json where only X.json.xz exists; a cut-short .xz is a clear
    error, and a name with neither file still says it does not exist."""
    import lzma

    document = {"schema": "workbench.model", "schema_version": 1, "family": "expression",
                "model": OVERLAP}
    plain = tmp_path / "cand.json"
    plain.write_text(json.dumps(document))
    want = ExpressionModel().spec(plain)
    packed = tmp_path / "cand.json.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    plain.unlink()
    assert ExpressionModel().spec(str(packed)).to_document() == want.to_document()
    assert ExpressionModel().spec(str(plain)).to_document() == want.to_document()
    packed.write_bytes(packed.read_bytes()[:20])
    with pytest.raises(ModelError, match="is not a model file"):
        ExpressionModel().spec(str(plain))
    with pytest.raises(ModelError, match="does not exist"):
        ExpressionModel().spec(str(tmp_path / "other.json"))
