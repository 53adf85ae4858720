"""A user's own kernels and space, end to end, through the one prediction entry."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from workbench.cli.main import main
from workbench.errors import GroupSizeError
from workbench.kernels import resolve_kernel, spec_from_loopy
from workbench.kernels.candidate import Candidate
from workbench.kernels.user import load_user_object
from workbench.models import get_family, load_model
from workbench.models.prediction import TermKind, predict

EXAMPLES = Path("examples/kernels")
KERNELS = EXAMPLES / "my_kernels.py"
H100 = Path("sample_data/h100")


def _default_weights() -> str:
    return json.loads((H100 / "default-model.json").read_text())["weights"]


def _models():
    """Every registered family that predicts a single kernel, fitted or ready."""
    return {
        "linear fp32": load_model(H100 / "weights-linear.json"),
        "linear fp64": load_model(H100 / "weights-linear-fp64.json"),
        "overlap": load_model(H100 / "weights-overlap.json"),
        "overlap-fp64": load_model(H100 / "weights-overlap-fp64.json"),
        "the shipped default": load_model(H100 / _default_weights()),
        "roofline": get_family("roofline").ready(device_model="h100"),
        "ir-knn": get_family("ir-knn").ready(),
    }


def _user_candidates():
    sizes = load_user_object(f"{KERNELS}:SIZES", "sizes")
    return {name: Candidate.of(resolve_kernel(f"{KERNELS}:{name}"), params)
            for name, params in sizes.items()}


def test_every_family_predicts_every_user_kernel():
    candidates = _user_candidates()
    assert len(candidates) >= 5
    assert {c.dtype for c in candidates.values()} == {"float32", "float64"}
    for label, model in _models().items():
        result = predict(model, list(candidates.values()))
        assert np.all(np.isfinite(result.seconds)) and np.all(result.seconds > 0), \
            (label, dict(zip(candidates, result.seconds)), result.errors)
        assert all(b is not None and b.terms for b in result.breakdowns), label
        assert result.unit == ("relative" if label == "ir-knn" else "s")


def test_a_file_kernel_named_like_a_catalog_kernel_is_the_files():
    mine = _user_candidates()["matmul"]
    assert mine.dtype == "float64"       # the file's kernel, not the catalog's float32
    model = load_model(H100 / "weights-overlap-fp64.json")
    features = dict(predict(model, [mine]).breakdowns[0].details)["features"]
    # the file's matmul multiplies in float64 only; the catalog's would count float32
    per = model.subgroup_size if model.granularity == "subgroup" else 1
    assert features["f_op_float64_mul"] == 1024 ** 3 / per
    assert features["f_op_float32_mul"] == 0
    # the linear breakdown adds up to its prediction
    linear = load_model(H100 / "weights-linear-fp64.json")
    result = predict(linear, [mine])
    terms = result.breakdowns[0].terms
    assert all(t.kind is TermKind.SECONDS for t in terms)
    assert sum(t.value for t in terms) == pytest.approx(result.seconds[0], rel=1e-9)


def test_a_notebook_variable_is_predicted_like_a_file_kernel():
    import loopy as lp

    knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2*x[i]",
                         [lp.GlobalArg("x, y", np.float64, shape="n"), ...],
                         lang_version=(2018, 2), name="twice")
    knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
    c = Candidate.of(spec_from_loopy(knl), {"n": 1 << 20})
    for model in _models().values():
        assert np.isfinite(predict(model, [c]).seconds[0])


def test_predict_cli_on_a_user_kernel_names_model_and_file(capsys):
    assert main(["predict", f"{KERNELS}:laplace5", "--param", "n=2048"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("model: expression, ") and _default_weights() in out[0]
    assert "laplace5" in out[1] and "predicted" in out[1] and len(out[1]) < 200
    assert main(["predict", f"{KERNELS}:laplace5", "--param", "n=2048", "--format",
                 "json", "--weights", str(H100 / "weights-linear-fp64.json")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["source"].endswith("my_kernels.py:laplace5") and doc["predicted_s"] > 0
    assert {t["kind"] for t in doc["terms"]} == {"seconds"}


@pytest.mark.parametrize("body, words", [
    ("raise RuntimeError('broken on purpose')\n", "broken on purpose"),
    ("k = 3\n", "not a loopy kernel"),
])
def test_bad_user_files_are_one_line_errors_and_write_nothing(tmp_path, capsys, body,
                                                              words):
    path = tmp_path / "bad.py"
    path.write_text(body)
    store = tmp_path / "never.sqlite"
    assert main(["measure", f"{path}:k", "--param", "n=64", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.count("\n") == 1
    assert str(path) in err or "bad.py" in err
    assert not store.exists()


def test_a_misspelt_kernel_variable_is_matched_against_the_files_kernels_only(capsys):
    # the file's imports and helpers (np, lp, LANG, SIZES) are no kernel to suggest
    assert main(["predict", f"{KERNELS}:saxpi", "--param", "n=64"]) == 2
    err = capsys.readouterr().err
    assert "Did you mean 'saxpy'" in err and "Traceback" not in err
    known = err.split("Known: ")[1].strip().split(", ")
    assert "saxpy" in known and not {"np", "lp", "LANG", "SIZES"} & set(known)


def test_a_file_without_its_variable_names_the_kernels_it_defines(capsys):
    # a newcomer's first try: the file alone; the answer names its kernels, not np or lp
    assert main(["predict", str(KERNELS)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "is named FILE.py:VARIABLE" in err and f"(e.g. {KERNELS}:" in err
    defined = err.split("it defines ")[1].split(" (e.g.")[0].split(", ")
    assert "saxpy" in defined and not {"np", "lp", "LANG"} & set(defined)
    assert main(["predict", "no_such_file.py"]) == 2
    assert capsys.readouterr().err == "workbench: error: no such file: no_such_file.py\n"


def test_a_group_size_the_device_cannot_launch_is_refused_with_its_limit(capsys):
    for extra in ([], ["--weights", str(H100 / "weights-linear.json")],
                  ["--model", "roofline", "--device-model", "h100"]):
        assert main(["predict", "finite_diff", "--param", "n=4096", "--group-size",
                     "99999x99999", *extra]) == 2
        err = capsys.readouterr().err
        assert "exceeds the 1024" in err and "H100" in err
    model = load_model(H100 / "weights-linear.json")
    with pytest.raises(GroupSizeError, match="axis 2"):
        predict(model, [Candidate("star_stencil_3d", "nofold", (1, 1, 128),
                                  (("nx", 64), ("ny", 64), ("nz", 64)))])


@pytest.fixture(scope="module")
def measured_user_space(tmp_path_factory):
    from workbench.measure import list_devices

    try:
        if not list_devices():
            pytest.skip("no OpenCL device")
    except Exception:  # noqa: BLE001
        pytest.skip("no OpenCL device")
    store = tmp_path_factory.mktemp("space") / "space.sqlite"
    assert main(["tune", f"{EXAMPLES}/my_space.py:space", "--strategy", "exhaustive",
                 "--store", str(store), "--no-progress", "--format", "json"]) == 0
    return store


@pytest.mark.parametrize("strategy", [
    ["random"], ["tpe"], ["model"],
    ["model", "--weights", str(H100 / "weights-linear.json")],
    ["model", "--weights", str(H100 / "weights-overlap.json")],
    ["model", "--model", "roofline", "--device-model", "h100"],
    ["model", "--model", "ir-knn"], ["knn"], ["xgb"],
])
def test_a_user_space_is_ranked_by_every_strategy_in_replay(measured_user_space, capsys,
                                                            strategy):
    capsys.readouterr()
    assert main(["tune", f"{EXAMPLES}/my_space.py:space", "--replay",
                 str(measured_user_space), "--strategy", *strategy, "--budget-evals", "4",
                 "--no-progress", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["evaluations"] == 4 and doc["failed"] == 0
    if strategy[0] != "random" and strategy[0] != "tpe":
        assert doc["choosing_s"] > 0     # the ranking's cost is counted


def test_no_prediction_is_below_the_physical_floor():
    from workbench.models.floors import Bound, model_floors

    candidates = _user_candidates()
    # the float32 linear weights know no float64 work: they predict the float64 matmul
    # far below what its flops take at the H100's peak
    linear = load_model(H100 / "weights-linear.json")
    result = predict(linear, [candidates["matmul"]])
    floor = result.floors[0]
    assert floor.bound is Bound.FLOPS
    assert floor.seconds == pytest.approx(2 * 1024 ** 3 / 33454.1e9, rel=1e-6)
    assert result.raw_seconds[0] < floor.seconds == result.seconds[0]
    assert result.broken[0].startswith("flops")
    unfloored = predict(linear, [candidates["matmul"]], floors=False)
    assert unfloored.seconds[0] == result.raw_seconds[0] and unfloored.raw_seconds is None
    # a large copy's DRAM floor: its footprint beyond the L2, at the peak bandwidth
    big = Candidate.of(resolve_kernel(f"{KERNELS}:saxpy"), {"n": 1 << 26})
    device = model_floors(linear)
    for model in _models().values():
        result = predict(model, [big])
        if result.unit != "s":
            assert result.raw_seconds is None      # relative times have no floor
            continue
        assert result.seconds[0] >= result.floors[0].seconds
        dram = (2 * 4 * (1 << 26) - device.l2_bytes) / device.dram_peak_Bps
        counted = dict(result.floors[0].parts).get(Bound.DRAM)
        assert counted is None or counted == pytest.approx(dram, rel=1e-9)
        assert counted is not None or result.seconds[0] > dram
    # a device without floors (pocl, a user's calibration) predicts unchanged
    assert model_floors(load_model(H100 / "weights-linear.json").__class__(
        weights={"f_sync_kernel_launch": 1e-6}, confidence_intervals={}, unexercised=[],
        fit_stats={}, device={"device": "some CPU"})) is None


ARGMAX = '''
import numpy as np
import loopy as lp

knl = lp.make_kernel(
    "{[i, j]: 0 <= i < m and 0 <= j < 128}",
    "mx[i], ix[i] = argmax(j, a[i, j], j)",
    [lp.GlobalArg("a", np.float32, shape=("m", 128)),
     lp.GlobalArg("mx", np.float32, shape=("m",)),
     lp.GlobalArg("ix", np.int32, shape=("m",)), lp.ValueArg("m", np.int32)],
    name="row_argmax", lang_version=(2018, 2))
knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
'''


def test_a_user_argmax_is_sized_counted_and_predicted(tmp_path):
    # loopy 2025 cannot size a two-result reduction before realizing it, and its
    # operation counter cannot name the argmax helper: both raised before
    path = tmp_path / "argmax.py"
    path.write_text(ARGMAX)
    spec = resolve_kernel(f"{path}:knl")
    assert spec.fixed_group_size == (256,)
    m = 1 << 20
    result = predict(load_model(H100 / "weights-linear-fp64-sectors-chains2.json"),
                     [Candidate(spec, "default", (256,), (("m", m),), "float32")])
    assert np.isfinite(result.seconds[0]) and result.seconds[0] > 0
    features = dict(result.breakdowns[0].details)["features"]
    # one comparison a step, per warp; putting the pair together is no arithmetic
    assert features["f_op_float32_add"] == m * 128 / 32
    assert features["f_op_float32_special"] == 0


INDIRECT = '''
import numpy as np
import loopy as lp

def _knl(insn, name):
    knl = lp.make_kernel("{[i]: 0<=i<n}", insn,
        [lp.GlobalArg("k", np.int32, shape=("n",)), lp.GlobalArg("a", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        name=name, lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")

gather = _knl("out[i] = a[k[i]]", "gather")
scatter = _knl("out[k[i]] = a[i]", "scatter")
through_temporary = _knl(["<> c = k[i]", "out[i] = a[c]"], "through_temporary")
offset = _knl("out[i] = a[k[i]] - a[k[i] + 1]", "offset")
'''


@pytest.mark.parametrize("name", ["gather", "scatter"])
def test_a_data_dependent_index_is_counted_as_a_scattered_access(tmp_path, name):
    # loopy 2025 raised on a[k[i]] (it cannot record a stride it found not affine);
    # the index array k is loaded, in an assignee's index as well
    path = tmp_path / "indirect.py"
    path.write_text(INDIRECT)
    spec = resolve_kernel(f"{path}:{name}")
    n = 1 << 20
    result = predict(load_model(H100 / "weights-linear-fp64-sectors-chains2.json"),
                     [Candidate(spec, "default", (256,), (("n", n),), "float32")])
    assert np.isfinite(result.seconds[0])
    features = dict(result.breakdowns[0].details)["features"]
    scattered = "load" if name == "gather" else "store"
    dense = "store" if name == "gather" else "load"
    # the indirect side: a sector per lane; k and the direct side: 8 lanes a sector
    assert features[f"f_mem_access_global_float32_{scattered}_sectors"] == n
    assert features[f"f_mem_access_global_float32_{dense}_sectors"] == n / 8
    assert features["f_mem_access_global_int32_load_sectors"] == n / 8
    assert features["f_mem_access_global_int32_store_sectors"] == 0


@pytest.mark.parametrize("name", ["gather", "scatter", "through_temporary"])
def test_an_index_array_gets_valid_random_indices(tmp_path, name):
    # zeros would time a gather as one element read by every lane
    path = tmp_path / "indirect.py"
    path.write_text(INDIRECT)
    spec = resolve_kernel(f"{path}:{name}")
    inputs = spec.make_inputs({"n": 5000}, None, np.random.default_rng(1))
    k = inputs["k"]
    assert k.dtype == np.int32 and k.min() >= 0 and k.max() < 5000
    assert len(np.unique(k)) > 2500


def test_an_index_array_used_any_other_way_stays_zeros(tmp_path):
    # a[k[i] + 1] would read past the end with k up to n - 1: zeros are in bounds
    path = tmp_path / "indirect.py"
    path.write_text(INDIRECT)
    inputs = resolve_kernel(f"{path}:offset").make_inputs({"n": 5000}, None,
                                                          np.random.default_rng(1))
    assert not inputs["k"].any()


def test_a_gather_from_local_memory_is_counted():
    # loopy 2025's local counter raised on lut[k[i]] as its global one did on a[k[i]]
    import loopy as lp

    from workbench.properties.counting import NOT_AFFINE, access_counts
    from workbench.properties.features import Granularity

    knl = lp.make_kernel(
        "{[i]: 0<=i<n}",
        ["lut[i % 256] = a[i] {id=w}", "... lbarrier {id=b, dep=w}",
         "out[i] = lut[k[i]] {dep=b}"],
        [lp.GlobalArg("k", np.int32, shape=("n",)), lp.GlobalArg("a", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32),
         lp.TemporaryVariable("lut", np.float32, shape=(256,),
                              address_space=lp.AddressSpace.LOCAL)],
        name="lut_gather", lang_version=(2018, 2))
    knl = lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")
    counts = access_counts(knl, Granularity.WORKITEM, 32)
    gathers = [a for a in counts if a.mtype == "local" and a.direction == "load"]
    assert [str(a.lid_strides[0]) for a in gathers] == [NOT_AFFINE]
    assert any(a.variable == "k" and a.direction == "load" for a in counts)


def test_a_kernel_without_parallel_inames_gets_a_hint_to_split_one(tmp_path, capsys):
    src = tmp_path / "student.py"
    src.write_text(
        "import numpy as np, loopy as lp\n"
        "knl = lp.make_kernel('{[i]: 0<=i<n}', 'y[i] = 2*x[i]',\n"
        "    [lp.GlobalArg('x,y', np.float32, shape=('n',)), ...], lang_version=(2018, 2))\n"
        "tagged = lp.split_iname(knl, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n")
    for command in ("predict", "explain"):
        assert main([command, f"{src}:knl", "--param", "n=4096"]) == 0
        assert "hint: the kernel tags no iname g.* or l.*, so it runs as ONE work item" \
            in capsys.readouterr().out
        assert main([command, f"{src}:tagged", "--param", "n=4096"]) == 0
        assert "hint:" not in capsys.readouterr().out


def test_an_affine_if_is_counted_exactly_and_a_data_dependent_one_is_named(tmp_path,
                                                                           capsys):
    src = tmp_path / "guarded.py"
    src.write_text(
        "import numpy as np, loopy as lp\n"
        "args = [lp.GlobalArg('x,y', np.float32, shape=('n',)), ...]\n"
        "knl = lp.make_kernel('{[i]: 0<=i<n}', 'if i < 10\\n  y[i] = 2*x[i]\\nend',\n"
        "    args, lang_version=(2018, 2))\n"
        "knl = lp.split_iname(knl, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n"
        "signed = lp.make_kernel('{[i]: 0<=i<n}',\n"
        "    'if x[i] > 0\\n  y[i] = 2*x[i] {id=scale}\\nend', args, lang_version=(2018, 2))\n"
        "signed = lp.split_iname(signed, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n")
    assert main(["properties", f"{src}:knl", "--param", "n=1024", "--format",
                 "json"]) == 0
    # the 10 work items the condition lets through, not all 1024
    assert json.loads(capsys.readouterr().out)["f_op_float32_mul"] == 10
    assert main(["properties", f"{src}:signed", "--param", "n=1024", "--format",
                 "json"]) == 0
    # a condition on the data cannot be counted: every work item, an upper bound
    assert json.loads(capsys.readouterr().out)["f_op_float32_mul"] == 1024
    for command in ("properties", "predict", "explain"):
        assert main([command, f"{src}:knl", "--param", "n=1024"]) == 0
        assert "note:" not in capsys.readouterr().out
        assert main([command, f"{src}:signed", "--param", "n=1024"]) == 0
        out = capsys.readouterr().out
        assert "note: 1 instruction(s) run under a condition the counts cannot follow: " \
            "scale (if x[" in out and "reads x, not only loop indices" in out
        assert "upper bounds" in out
    assert main(["properties", f"{KERNELS}:saxpy", "--param", "n=1024"]) == 0
    assert "note:" not in capsys.readouterr().out


def test_a_size_only_an_if_reads_is_a_parameter_of_a_users_kernel(tmp_path, capsys):
    # the counts follow ``if i < m``, so m is a parameter the command line takes
    src = tmp_path / "upto.py"
    src.write_text(
        "import numpy as np, loopy as lp\n"
        "knl = lp.make_kernel('{[i]: 0<=i<n}', 'if i < m\\n  y[i] = 2*x[i]\\nend',\n"
        "    [lp.GlobalArg('x,y', np.float32, shape=('n',)), lp.ValueArg('m', np.int32),\n"
        "     ...], lang_version=(2018, 2))\n"
        "knl = lp.split_iname(knl, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n")
    assert main(["properties", f"{src}:knl", "--param", "n=1024", "--param", "m=10",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["f_op_float32_mul"] == 10


def test_a_loop_bound_left_out_of_the_arguments_is_named_with_the_fix(tmp_path, capsys):
    # a newcomer's argument list without ``...``: n bounds the loop but is no argument
    src = tmp_path / "undeclared.py"
    src.write_text(
        "import numpy as np, loopy as lp\n"
        "knl = lp.make_kernel('{[i]: 0<=i<n}', 'y[i] = 2*x[i]',\n"
        "    [lp.GlobalArg('x,y', np.float32, shape=('n',))], lang_version=(2018, 2))\n"
        "knl = lp.split_iname(knl, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n")
    for extra in (["--param", "n=1024"], []):
        assert main(["predict", f"{src}:knl", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "uses n in its loop bounds" in err and "lp.ValueArg('n', np.int32)" in err


def test_a_space_file_alone_or_misspelt_offers_its_spaces_not_its_imports(tmp_path, capsys):
    src = tmp_path / "spaces.py"
    src.write_text(
        "import numpy as np\n"
        "from workbench.tuning import TuningSpace\n"
        "def space(n=64):\n"
        "    raise AssertionError('only named, never made')\n")
    assert main(["tune", str(src), "--budget-evals", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.split("it defines ")[1].split(" (e.g.")[0] == "space"
    assert main(["tune", f"{src}:spcae", "--budget-evals", "1"]) == 2
    err = capsys.readouterr().err
    assert "Did you mean 'space'" in err and err.split("Known: ")[1].strip() == "space"


def test_another_group_size_for_a_user_kernel_says_where_its_own_comes_from(capsys):
    assert main(["predict", f"{KERNELS}:saxpy", "--param", "n=4096",
                 "--group-size", "128"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "work-group size 256 built in (its l.* inames); got 128" in err
    # in its own words, not as the model's failure with the exception's class name
    # ("the expression model cannot predict saxpy: GroupSizeError: kernel ...")
    assert err.startswith("workbench: error: kernel 'saxpy' has its work-group size"), err
    assert main(["explain", f"{KERNELS}:saxpy", "--param", "n=4096",
                 "--group-size", "128"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: kernel 'saxpy' has its work-group size"), err
    # its own size, asked for by name, is fine
    assert main(["predict", f"{KERNELS}:saxpy", "--param", "n=4096",
                 "--group-size", "256"]) == 0
