"""Non-negative linear fits and leave-one-kernel-out validation (issue 15).

Named to run right after test_calibration.py: its refits of the shipped H100 store leave
that store's properties in the process's cache, which the CLI test here then reuses
instead of extracting them again (about 14 s of CPU on its own).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import nnls

from workbench.cli.main import main
from workbench.errors import ModelError, ParameterError, UnknownNameError
from workbench.models import (
    ExpressionModel,
    UnifiedLinearModel,
    geometric_mean,
    load_model,
    relative_errors,
    save_model,
)
from workbench.models.validation import (
    AnchoredExpressionFit,
    ExpressionFit,
    GroupSelection,
    LinearFit,
    held_expression,
    leave_one_kernel_out,
)
from workbench.reports import table1

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"

# Barriers come with local stores in every measurement row, as in the H100 catalog;
# the times charge the pair less than its parts, so the free fit prices barriers < 0.
ADD, LST, BAR, GROUPS, LAUNCH = ("f_op_float32_add", "f_mem_access_local_float32_store",
                                 "f_sync_barrier_local", "f_thread_groups",
                                 "f_sync_kernel_launch")
TRUE = {ADD: 2e-12, LST: 5e-12, BAR: -2e-11, GROUPS: 3e-9, LAUNCH: 4e-6}


def correlated(seed=3, noise=0.02):
    rng = np.random.default_rng(seed)
    rows = []
    for role, kernel, n in [("measurement", "arith", 30), ("measurement", "tiles", 30),
                            ("test", "stencil", 8), ("test", "reduce", 8)]:
        for i in range(n):
            stores = rng.uniform(1e6, 1e8) if kernel != "arith" else 0.0
            f = {ADD: rng.uniform(1e6, 1e9), LST: stores,
                 BAR: stores / rng.uniform(8, 12) * (1.5 if kernel == "stencil" else 1),
                 GROUPS: rng.uniform(10, 1e4), LAUNCH: 1.0}
            t = sum(TRUE[k] * v for k, v in f.items()) * (1 + noise * rng.standard_normal())
            rows.append({"kernel": kernel, "variant": "v", "dtype": "float32",
                         "group_size": "16x16" if i % 2 else "32x16",
                         "params": f"n={100 + i}", "role": role, "time_s": t,
                         "device": "synthetic", **f})
    return pd.DataFrame(rows)


def _relative_residuals(model, data):
    train = data[data["role"] == "measurement"]
    return model.predict(train) / train["time_s"].to_numpy() - 1.0


def test_non_negative_fit_bounds_the_weight_the_free_fit_makes_negative(tmp_path):
    data = correlated()
    free = UnifiedLinearModel().fit(data, bootstrap=0, non_negative="plain")
    bound = UnifiedLinearModel().fit(data, bootstrap=20, non_negative=True)
    assert free.weights[BAR] < 0 and not free.non_negative
    assert all(w >= 0 for w in bound.weights.values())
    assert bound.weights[BAR] == 0.0 and bound.fit_stats["weights_at_zero"] == [BAR]
    # the same optimum as scipy's NNLS on the unscaled relative problem
    train = data[data["role"] == "measurement"]
    a = train[list(bound.weights)].to_numpy() / train["time_s"].to_numpy()[:, None]
    reference, _ = nnls(a, np.ones(len(train)), maxiter=10_000)
    assert np.allclose(list(bound.weights.values()), reference, rtol=1e-6, atol=1e-30)
    # the bound costs training error: the objective, and here the geomean too
    assert np.sum(_relative_residuals(bound, data) ** 2) > \
        np.sum(_relative_residuals(free, data) ** 2)
    assert bound.fit_stats["training_geomean_rel_error"] > \
        free.fit_stats["training_geomean_rel_error"]
    for name, (lo, hi) in bound.confidence_intervals.items():
        assert 0 <= lo <= bound.weights[name] <= hi, name
    # the option is saved; a file from before it existed loads as a free fit
    path = tmp_path / "nn.json"
    save_model(bound, path)
    assert load_model(path).non_negative and json.loads(path.read_text())["non_negative"]
    doc = json.loads(path.read_text())
    del doc["non_negative"]
    path.write_text(json.dumps(doc))
    assert not load_model(path).non_negative


def _manual_loko_error(data, kernel, groups, fit):
    train = data[data["kernel"] != kernel].assign(role="measurement")
    rows = data[data["kernel"] == kernel]
    if groups == "256":
        rows = rows[rows["group_size"] == "16x16"]
    model = fit(train)
    return geometric_mean(relative_errors(model.predict(rows), rows["time_s"].to_numpy()))


@pytest.mark.parametrize("groups", ["256", "all"])
def test_loko_equals_a_manual_refit_and_in_sample_equals_table1(groups):
    data = correlated()
    for non_negative in (False, True):
        report = leave_one_kernel_out(data, LinearFit(non_negative), groups=groups)
        assert list(report.kernels) == ["reduce", "stencil"]
        for kernel, record in report.kernels.items():
            manual = _manual_loko_error(data, kernel, groups, lambda d: UnifiedLinearModel()
                                        .fit(d, bootstrap=0, non_negative=non_negative))
            assert record.loko_geomean_rel_error == pytest.approx(manual, rel=1e-12)
            # the other test kernel trains too
            assert record.n_training == len(data) - (data["kernel"] == kernel).sum()
            assert record.n_points == (8 if groups == "all" else 4)
        baseline = UnifiedLinearModel().fit(data, bootstrap=0, non_negative=non_negative)
        t1 = table1(baseline, data, group_workitems=256 if groups == "256" else None)
        for kernel, err in t1.per_kernel.items():
            assert report[kernel].in_sample_geomean_rel_error == pytest.approx(err, rel=1e-12)
        assert report.cross_kernel_in_sample == pytest.approx(t1.cross_kernel, rel=1e-12)
        assert report.groups is GroupSelection(groups)


def test_loko_of_an_expression_model_matches_its_manual_refit_and_the_linear_one():
    data = correlated()
    text = " + ".join(f"p_{i}*{name}" for i, name in enumerate(TRUE))
    spec = ExpressionModel().spec(text, bounds={f"p_{i}": [0, None] for i in range(len(TRUE))})
    report = leave_one_kernel_out(data, ExpressionFit(spec, name="sum"), held_out=["stencil"])
    assert list(report.kernels) == ["stencil"] and report.model == "sum"
    manual = _manual_loko_error(data, "stencil", "256",
                                lambda d: ExpressionModel().fit(d, model=spec))
    assert report["stencil"].loko_geomean_rel_error == pytest.approx(manual, rel=1e-12)
    # a bounded pure sum is the non-negative linear model
    linear = leave_one_kernel_out(data, LinearFit(non_negative=True), held_out=["stencil"])
    assert report["stencil"].loko_geomean_rel_error == pytest.approx(
        linear["stencil"].loko_geomean_rel_error, rel=1e-5)


def test_an_anchored_fit_holds_the_anchors_weights_from_the_same_rows():
    # round 23 of #34: chains47 holds chains38's launch weights, fitted fold by fold
    data = correlated()
    names = list(TRUE)
    bounds = {f"p_{i}": [0, None] for i in range(len(TRUE))}
    anchor = ExpressionModel().spec(" + ".join(f"p_{i}*{n}" for i, n in enumerate(names)),
                                    bounds=bounds)
    # the model overlaps the additions with the local stores (as chains46 its calls with
    # the accesses): its launch and group weights fitted freely differ from the anchor's
    text = (" + ".join(f"p_{i}*{n}" for i, n in enumerate(names))
            + f" - smin(p_0*{ADD}, p_1*{LST})")
    spec = ExpressionModel().spec(text, bounds=bounds)
    held = ("p_3", "p_4")
    fit = AnchoredExpressionFit(spec, anchor, held, name="anchored")
    train = data[data["kernel"] != "stencil"].assign(role="measurement")
    want = ExpressionModel().fit(train, model=anchor).parameters
    got = fit.fit(train)
    assert set(got.parameters) == {"p_0", "p_1", "p_2"}
    assert f"({want['p_3']!r})*{GROUPS}" in got.expression
    assert f"({want['p_4']!r})*{LAUNCH}" in got.expression
    free = ExpressionModel().fit(train, model=spec).parameters
    assert abs(free["p_4"] / want["p_4"] - 1) > 1e-6
    # the fold's held weights come from the anchor without the held-out kernel
    report = leave_one_kernel_out(data, fit, held_out=["stencil"])
    manual = _manual_loko_error(data, "stencil", "256", fit.fit)
    assert report["stencil"].loko_geomean_rel_error == pytest.approx(manual, rel=1e-12)
    everything = ExpressionModel().fit(data.assign(role="measurement"), model=anchor).parameters
    leaky = _manual_loko_error(data, "stencil", "256", lambda d: ExpressionModel().fit(
        d, model=held_expression(spec, {h: everything[h] for h in held})))
    assert abs(leaky / manual - 1) > 1e-9
    # every weight held: the anchor's fit carries the model's expression, unrefitted
    carried = AnchoredExpressionFit(spec, anchor, spec.model.parameters).fit(train)
    assert carried.expression == spec.model.text
    assert dict(carried.parameters) == pytest.approx(dict(want), rel=1e-12)
    assert not np.allclose(carried.predict(train), ExpressionModel().fit(
        train, model=anchor).predict(train), rtol=1e-6)
    # a held name is matched whole: p_1 leaves p_10 alone
    wide = ExpressionModel().spec("p_1*f_op_float32_add + p_10*f_thread_groups")
    assert held_expression(wide, {"p_1": 2.0}).model.parameters == ("p_10",)
    with pytest.raises(UnknownNameError):
        AnchoredExpressionFit(spec, anchor, ("p_9",))


def test_loko_refusals():
    data = correlated()
    with pytest.raises(UnknownNameError, match="stencl.*stencil"):
        leave_one_kernel_out(data, LinearFit(), held_out=["stencl"])
    with pytest.raises(ParameterError, match="group selection"):
        leave_one_kernel_out(data, LinearFit(), groups="512")
    with pytest.raises(ModelError, match="no kernel to hold out"):
        leave_one_kernel_out(data[data["role"] == "measurement"], LinearFit())
    with pytest.raises(UnknownNameError, match="held-out kernel"):
        leave_one_kernel_out(data, LinearFit())["arith"]
    assert main(["validate", "--model", "models/overlap.json", "--non-negative"]) == 2


@pytest.mark.skipif(not (H100 / "table1.json").exists(), reason="no shipped H100 data")
def test_cli_validate_and_non_negative_fit_on_the_shipped_store(tmp_path, capsys):
    store = str(H100 / "measurements.sqlite")
    assert main(["validate", "--store", store, "--fit", "plain", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the in-sample column of the plain fit is the shipped Table 1
    shipped = json.loads((H100 / "table1.json").read_text())
    assert report["cross_kernel_in_sample_geomean_rel_error"] == pytest.approx(
        shipped["cross_kernel_geomean_rel_error"], rel=1e-6)
    for kernel, err in shipped["per_kernel_geomean_rel_error"].items():
        record = report["kernels"][kernel]
        assert record["in_sample_geomean_rel_error"] == pytest.approx(err, rel=1e-6)
        assert record["n_points"] == 4 and record["n_training"] == 438 - 12
        assert 0 < record["loko_geomean_rel_error"] < 1
    assert main(["validate", "--store", store, "--non-negative", "--groups", "all",
                 "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "unified-linear (non-negative)" in md and "all group sizes" in md
    assert md.count("\n| ") == 6 and "| cross-kernel | 48 |" in md
    out = tmp_path / "nn.json"
    assert main(["fit", "--store", store, "--non-negative", "--bootstrap", "0",
                 "-o", str(out)]) == 0
    model = load_model(out)
    assert model.non_negative and min(model.weights.values()) >= 0
    assert model.weights["f_sync_barrier_local"] == 0.0   # -1.2e-12 s in the free fit
    # the bound is the default; --fit plain is the paper's free fit
    default, plain = tmp_path / "default.json", tmp_path / "plain.json"
    assert main(["fit", "--store", store, "--bootstrap", "0", "-o", str(default)]) == 0
    assert load_model(default).weights == model.weights
    assert main(["fit", "--store", store, "--fit", "plain", "--bootstrap", "0",
                 "-o", str(plain)]) == 0
    assert not load_model(plain).non_negative
    assert load_model(plain).weights["f_sync_barrier_local"] < 0
    assert main(["fit", "--store", store, "--fit", "plain", "--non-negative",
                 "-o", str(plain)]) == 2


@pytest.mark.skipif(not (H100 / "table1.json").exists(), reason="no shipped H100 data")
def test_report_compare_fits_shows_table1_both_ways(capsys):
    store = str(H100 / "measurements.sqlite")
    assert main(["report", "--store", store, "--compare-fits", "--format", "json"]) == 0
    both = json.loads(capsys.readouterr().out)
    shipped = json.loads((H100 / "table1.json").read_text())
    plain, bound = both["plain"], both["non-negative"]
    assert plain["test"]["cross_kernel_geomean_rel_error"] == pytest.approx(
        shipped["cross_kernel_geomean_rel_error"], rel=1e-6)
    assert min(plain["weights"].values()) < 0 <= min(bound["weights"].values())
    assert bound["test"]["cross_kernel_geomean_rel_error"] != pytest.approx(
        plain["test"]["cross_kernel_geomean_rel_error"])
    assert main(["report", "--store", store, "--compare-fits"]) == 0
    text = capsys.readouterr().out
    assert "plain" in text and "non-negative" in text and "weights below zero" in text
    assert main(["report", "--store", store]) == 2      # neither --weights nor the option
