"""Kernel Tuner cache files: the H100 measurements out and back, and read by the real
kernel_tuner package in simulation mode."""

import dataclasses
import json
import warnings

import pytest

from workbench.cli.main import main
from workbench.errors import TuningError
from workbench.measure.store import Status
from workbench.tuning.catalog import get_space
from workbench.tuning.evaluation import Cost
from workbench.tuning.kernel_tuner_io import export_cache, import_cache
from workbench.tuning.replay import load_space_evaluations
from workbench.tuning.space import Point

STORE = "sample_data/h100/tuning.sqlite"
DEVICE = "NVIDIA H100 80GB HBM3"


@pytest.fixture(scope="module")
def matmul():
    space = get_space("matmul")
    return space, load_space_evaluations(STORE, space)


@pytest.fixture(scope="module")
def exported(matmul, tmp_path_factory):
    space, evaluations = matmul
    return export_cache(space, evaluations, tmp_path_factory.mktemp("kt") / "matmul.json",
                        device_name=DEVICE)


def ranked(evaluations):
    return sorted((e for e in evaluations.values() if e.ok), key=lambda e: e.time_s)


def kt_simulate(space, path, **options):
    """Kernel Tuner's simulation of ``space`` from the cache file ``path``."""
    kernel_tuner = pytest.importorskip("kernel_tuner")

    # a function, not a lambda: Kernel Tuner rewrites a lambda from its source text
    def valid(p):
        return space.is_valid(Point(tuple(p.items())))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "no thread block dimensions"
        return kernel_tuner.tune_kernel(
            "matmul", "", list(space.problem.values()), [],
            {k: list(v) for k, v in space.tune_params.items()}, restrictions=valid,
            cache=str(path), simulation_mode=True, quiet=True, **options)


def test_round_trip_reproduces_every_point(matmul, exported):
    space, evaluations = matmul
    assert len(evaluations) == len(space.points()) == 506
    tune_params, back = import_cache(exported, space)
    assert tune_params == dict(space.tune_params)
    assert back.keys() == evaluations.keys()
    for label, e in evaluations.items():
        b = back[label]
        assert b.point == e.point and b.status is Status.OK
        assert b.time_s == pytest.approx(e.time_s, rel=1e-12, abs=0)
        assert b.raw_times_s == pytest.approx(e.raw_times_s, rel=1e-12, abs=0)
        assert set(b.costs) == set(e.costs) == set(Cost)
        for cost, seconds in e.costs.items():
            assert b.costs[cost] == pytest.approx(seconds, rel=1e-12, abs=1e-15), cost
        assert b.cost_s == pytest.approx(e.cost_s, rel=1e-12)
    # without a space the file's own types come back: strings stay strings
    params, plain = import_cache(exported)
    assert params["tile"] == ("global", "local") and params["tx"][0] == 8
    assert plain.keys() == evaluations.keys()


def test_the_file_is_kernel_tuners_format(matmul, exported):
    _, evaluations = matmul
    best = ranked(evaluations)[0]
    data = json.loads(exported.read_text())
    assert data["device_name"] == DEVICE and data["kernel_name"] == "matmul"
    assert data["problem_size"] == [2048] and data["objective"] == ["time"]
    assert data["tune_params_keys"] == ["tx", "ty", "wy", "wx", "tile"]
    entry = data["cache"]["32,16,8,4,local"]   # the values as str, in the keys' order
    assert best.point.label == "tx=32,ty=16,wy=8,wx=4,tile=local"
    assert entry["tile"] == "local" and entry["tx"] == 32
    assert entry["time"] == best.time_s * 1e3 and isinstance(entry["time"], float)
    assert entry["times"] == [t * 1e3 for t in best.raw_times_s]
    c = best.costs
    assert entry["benchmark_time"] == c[Cost.RUN] * 1e3
    assert entry["verification_time"] == c[Cost.VERIFY] * 1e3
    assert entry["compile_time"] == pytest.approx(
        (c[Cost.TRANSFORM] + c[Cost.CODEGEN] + c[Cost.BUILD]) * 1e3, rel=1e-12)
    assert entry["strategy_time"] == entry["framework_time"] == 0.0
    assert "__error__" not in entry
    # Kernel Tuner's own reader takes it as it is (and, not in simulation, would
    # reopen it for appending: the file ends as Kernel Tuner closes it)
    kt_util = pytest.importorskip("kernel_tuner.util")
    assert kt_util.read_cache(str(exported), open_cache=False) == data
    assert exported.read_text().rstrip().endswith("}\n}")


def test_kernel_tuner_simulation_finds_our_best(matmul, exported):
    space, evaluations = matmul
    best = ranked(evaluations)[0]
    before = exported.read_text()
    results, env = kt_simulate(space, exported, strategy="brute_force")
    assert exported.read_text() == before   # a simulation leaves the file alone
    assert len(results) == 506 and not any("__error__" in r for r in results)
    top = env["best_config"]
    assert {k: top[k] for k in space.tune_params} == best.point.as_dict()
    assert top["time"] == best.time_s * 1e3
    # every point answered with its own time
    assert {space.point({k: r[k] for k in space.tune_params}).label: r["time"]
            for r in results} == {k: e.time_s * 1e3 for k, e in evaluations.items()}
    # Kernel Tuner's simulated tuning time: compile + verification + benchmark, i.e.
    # every cost the workbench paid, verification included
    total = sum(sum(e.costs.values()) for e in evaluations.values()) * 1e3
    assert env["simulated_time"] == pytest.approx(total, rel=1e-9)


def test_kernel_tuner_random_sample_and_tune_cache(matmul, exported):
    kernel_tuner = pytest.importorskip("kernel_tuner")
    space, evaluations = matmul
    times = {k: e.time_s * 1e3 for k, e in evaluations.items()}
    results, env = kt_simulate(space, exported, strategy="random_sample",
                               strategy_options={"fraction": 0.2}, seed=3)
    assert 0 < len(results) < 506
    sampled = {space.point({k: r[k] for k in space.tune_params}).label: r["time"]
               for r in results}
    assert all(times[label] == t for label, t in sampled.items())
    assert env["best_config"]["time"] == min(sampled.values())
    # tune_cache needs nothing but the file (it restricts the space to its entries)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results, env = kernel_tuner.tune_cache(str(exported), quiet=True)
    assert len(results) == 506 and env["best_config"]["time"] == min(times.values())


def test_failures_are_failures_to_kernel_tuner_and_back(matmul, tmp_path):
    space, evaluations = matmul
    first, second, third = ranked(evaluations)[:3]
    changed = dict(evaluations)
    changed[first.point.label] = dataclasses.replace(
        first, status=Status.BUILD_FAILED, time_s=None, raw_times_s=())
    changed[second.point.label] = dataclasses.replace(
        second, status=Status.WRONG_RESULT, time_s=None)
    path = export_cache(space, changed, tmp_path / "failed.json", device_name=DEVICE)
    data = json.loads(path.read_text())
    entry = data["cache"][",".join(str(v) for _, v in first.point.items)]
    assert entry["__error__"] == entry["time"] == "CompilationFailedConfig"
    results, env = kt_simulate(space, path, strategy="brute_force")
    assert sum("__error__" in r for r in results) == 2
    top = env["best_config"]
    assert {k: top[k] for k in space.tune_params} == third.point.as_dict()
    assert top["time"] == third.time_s * 1e3
    _, back = import_cache(path, space)
    assert back[first.point.label].status is Status.BUILD_FAILED
    assert back[second.point.label].status is Status.WRONG_RESULT
    assert back[first.point.label].time_s is None and not back[first.point.label].ok
    assert back[second.point.label].raw_times_s == pytest.approx(second.raw_times_s)
    assert back[third.point.label].ok


# Written by kernel_tuner 1.5.0 itself (tune_kernel on pocl, cache=; trimmed to two
# entries), plus a failure as its store_cache writes one: "__error__", no "time".
KT_OWN = """{
"device_name": "pthread-haswell-AMD EPYC",
"kernel_name": "vector_add",
"problem_size": 4096,
"tune_params_keys": [
"block_size_x",
"alg"
],
"tune_params": {
"block_size_x": [
32,
128
],
"alg": [
"x",
"y"
]
},
"objective": [
"time"
],
"cache": {
"32,x": {"block_size_x": 32, "alg": "x", "time": 0.011782, "times": [0.011752, 0.01104, 0.023825, 0.007594, 0.007665, 0.01056, 0.010038], "compile_time": 105.83863100055169, "verification_time": 6.057339000108186, "benchmark_time": 0.9119900005316595, "timestamp": "2026-11-23 17:10:25.729103+00:00"},
"128,y": {"block_size_x": 128, "alg": "y", "time": 0.004435285714285714, "times": [0.006762, 0.004318, 0.004007, 0.004007999999999999, 0.003997, 0.004068, 0.003887], "compile_time": 368.24960699959775, "verification_time": 167.22847500022908, "benchmark_time": 0.5889240001124563, "timestamp": "2026-11-23 17:10:28.448574+00:00"},
"128,x": {"block_size_x": 128, "alg": "x", "__error__": "RuntimeFailedConfig", "compile_time": 300.0, "verification_time": 0, "benchmark_time": 0, "timestamp": "2026-11-23 17:10:29.0+00:00"}}
}"""


def test_a_file_kernel_tuner_wrote_reads_back(tmp_path):
    path = tmp_path / "own.json"
    path.write_text(KT_OWN)
    tune_params, back = import_cache(path)
    assert tune_params == {"block_size_x": (32, 128), "alg": ("x", "y")}
    assert set(back) == {"block_size_x=32,alg=x", "block_size_x=128,alg=y",
                         "block_size_x=128,alg=x"}
    best = back["block_size_x=128,alg=y"]
    assert best.ok and best.time_s == pytest.approx(0.004435285714285714e-3, rel=1e-12)
    assert best.costs[Cost.BUILD] == pytest.approx(0.36824960699959775, rel=1e-12)
    assert best.costs[Cost.RUN] == pytest.approx(0.5889240001124563e-3, rel=1e-12)
    assert Cost.TRANSFORM not in best.costs and len(best.raw_times_s) == 7
    failed = back["block_size_x=128,alg=x"]
    assert failed.status is Status.LAUNCH_FAILED and failed.time_s is None
    # a session cut short (no closing brackets, a trailing comma) reads as Kernel
    # Tuner reads it
    path.write_text(KT_OWN.rstrip()[:-3] + ",")
    assert import_cache(path)[1].keys() == back.keys()
    # the 1.3 form of a failure: the error's name as the time
    path.write_text(KT_OWN.replace('"__error__": "RuntimeFailedConfig"',
                                   '"time": "CompilationFailedConfig"'))
    assert import_cache(path)[1]["block_size_x=128,alg=x"].status is Status.BUILD_FAILED


ONE = '{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, '


@pytest.mark.parametrize("text, message", [
    ("not json at all", "not JSON"),
    ('{"device_name": "x", "cache": {}}', "needs tune_params_keys"),
    ('{"tune_params_keys": ["a"], "tune_params": {"b": [1]}, "cache": {}}', "disagree"),
    (ONE + '"cache": {"1": {"b": 1}}}', "does not hold every tunable parameter"),
    (ONE + '"cache": {"2": {"a": 1}}}', "does not match its parameter values"),
    (ONE + '"cache": {"1": {"a": 1, "time": "fast"}}}', "not a time in ms"),
    (ONE + '"cache": {"1": {"a": 1}}}', "neither a time nor an error"),
])
def test_a_malformed_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(TuningError, match=message) as info:
        import_cache(path)
    assert "\n" not in str(info.value)


def test_a_mismatched_space_is_refused(exported, tmp_path):
    with pytest.raises(TuningError, match="tunes tx, ty, wy, wx, tile, space 'stencil"):
        import_cache(exported, get_space("stencil2d"))
    with pytest.raises(TuningError, match="measured at {'n': 2048}"):
        import_cache(exported, get_space("matmul", n=1024))
    data = json.loads(exported.read_text())
    data["tune_params"]["tile"] = ["global", "shared"]
    path = tmp_path / "other_values.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError, match="'tile' takes"):
        import_cache(path, get_space("matmul"))
    # a measured point the space's restrictions leave out
    narrower = get_space("matmul")
    narrower = dataclasses.replace(narrower, restrictions=(*narrower.restrictions,
                                                           "tx <= 128"))
    with pytest.raises(TuningError, match="entry '256,.*breaks a restriction"):
        import_cache(exported, narrower)


def test_cli_export_then_import(tmp_path, capsys, matmul):
    _, evaluations = matmul
    best = ranked(evaluations)[0]
    out = tmp_path / "cli.json"
    assert main(["tune-export", "matmul", "--store", STORE, "-o", str(out)]) == 0
    assert f"506 points of matmul on {DEVICE}" in capsys.readouterr().out
    assert json.loads(out.read_text())["device_name"] == DEVICE
    assert main(["tune-import", str(out), "--space", "matmul", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["evaluations"] == 506 and report["failed"] == 0
    assert report["best"]["label"] == best.point.label
    assert report["best"]["time_s"] == pytest.approx(best.time_s, rel=1e-12)
    assert main(["tune-import", str(out), "--space", "matmul"]) == 0
    assert f"best: {best.point.label}" in capsys.readouterr().out
    assert main(["tune-import", str(out), "--space", "stencil2d"]) == 2
    err = capsys.readouterr().err
    assert "space 'stencil2d'" in err and "Traceback" not in err
