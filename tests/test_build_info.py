"""Build information per configuration: ptxas's report parsed from NVIDIA's verbose
build log (a recorded H100 log and a synthetic one), the versioned file, and
``workbench build-info`` on pocl (whose log has no report: the file is still written)."""

import json

import pytest

from workbench.errors import WorkbenchError
from workbench.hardware.build_info import (
    BuildInfoFile,
    BuildKey,
    BuildRecord,
    KernelBuildInfo,
    load_build_info,
    parse_build_log,
    registers_of,
)


def test_a_recorded_h100_log():
    from workbench.measure.samples import sample_data_root
    from workbench.measure.store import MeasurementStore

    root = sample_data_root()
    path = None if root is None else root / "h100" / "user-spaces.sqlite"
    if path is None or not path.is_file():
        pytest.skip("no shipped H100 user-spaces store")
    with MeasurementStore.open(path, create=False, readonly=True) as store:
        logs = [m.extra["build_log"] for m in store.measurements(kernel="tune.user_matmul_tiled")
                if m.extra.get("build_log")][:40]
    assert logs
    infos = [parse_build_log(log) for log in logs]
    assert all(len(i) == 1 for i in infos)
    found = [next(iter(i.values())) for i in infos]
    assert all(8 <= f.registers <= 255 and not f.spills for f in found)
    # the tiled variants stage tiles in shared memory and synchronize; the others do not
    assert {f.shared_bytes > 0 for f in found} == {f.barriers > 0 for f in found}


def test_a_synthetic_log_with_two_kernels():
    log = ("ptxas info    : 0 bytes gmem\n"
           "ptxas info    : Compiling entry function 'a' for 'sm_90a'\n"
           "ptxas info    : Function properties for a\n"
           "ptxas         .     48 bytes stack frame, 16 bytes spill stores, "
           "12 bytes spill loads\n"
           "ptxas info    : Used 255 registers, used 1 barriers, 2432 bytes smem, "
           "400 bytes cmem[0]\n"
           "ptxas info    : Compiling entry function 'b' for 'sm_90a'\n"
           "ptxas info    : Used 22 registers\n")
    found = parse_build_log(log)
    assert found["a"] == KernelBuildInfo("a", 255, 16, 12, 2432, 48, 1)
    assert found["b"] == KernelBuildInfo("b", 22)
    assert found["a"].spills and not found["b"].spills
    assert registers_of(log) is None and registers_of(log, "b") == 22
    assert parse_build_log("") == {} and parse_build_log("pocl: nothing") == {}


def test_the_tiling_model_keeps_its_names():
    from workbench.models.tiling import KernelRegisters, parse_registers

    assert KernelRegisters is KernelBuildInfo and parse_registers is parse_build_log


def test_the_file_round_trips_and_refuses_others(tmp_path):
    key = BuildKey("matmul", "tiled", "float64", (16, 16))
    records = {key: BuildRecord("built", KernelBuildInfo("matmul", 40, shared_bytes=4096),
                                0.5),
               BuildKey("x", "v", "float32", (256,)): BuildRecord("failed", None, 0.1,
                                                                  "boom")}
    written = BuildInfoFile({"platform": "P", "device": "D", "driver": "1"},
                            ("-cl-nv-verbose",), records, {"created": "now"})
    back = load_build_info(written.save(tmp_path / "b.json"))
    assert back.records == written.records and back.build_options == ("-cl-nv-verbose",)
    assert back.with_registers == 1
    assert BuildKey.parse(key.text) == key

    class Config:   # what a stored ConfigKey offers
        kernel, variant, dtype, group_size = "matmul", "tiled", "float64", (16, 16)
    assert back.info(Config()).registers == 40
    assert back.info(BuildKey("matmul", "tiled", "float32", (16, 16))) is None

    (tmp_path / "other.json").write_text(json.dumps({"schema": "workbench.model"}))
    with pytest.raises(WorkbenchError, match="not a build-info file"):
        load_build_info(tmp_path / "other.json")
    with pytest.raises(WorkbenchError, match="malformed"):
        BuildKey.parse("a|b")


def test_a_file_compressed_with_xz_reads_the_same(tmp_path):
    """sample_data ships older sets' build info as X.json.xz (issue #25): the loader takes
    the .xz name and gives the same records; a cut-short .xz is a clear error."""
    import lzma

    key = BuildKey("matmul", "tiled", "float64", (16, 16))
    written = BuildInfoFile({"platform": "P", "device": "D", "driver": "1"},
                            ("-cl-nv-verbose",),
                            {key: BuildRecord("built", KernelBuildInfo("matmul", 40), 0.5)},
                            {"created": "now"})
    plain = written.save(tmp_path / "b.json")
    packed = tmp_path / "b.json.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    back = load_build_info(packed)
    assert back.records == load_build_info(plain).records
    assert back.info(key).registers == 40
    # the plain name reads the .xz where only that exists (sample_data/h100/build-info.json)
    plain.unlink()
    assert load_build_info(tmp_path / "b.json").records == back.records
    packed.write_bytes(packed.read_bytes()[:20])
    with pytest.raises(WorkbenchError, match="cannot read build info"):
        load_build_info(packed)


def test_build_info_command_on_pocl(queue, tmp_path, capsys):
    from workbench.cli.main import main

    out = tmp_path / "bi.json"
    assert main(["build-info", "--set", "unseen2", "--kernels", "column_cumsum",
                 "--dtypes", "float64", "--no-progress", "--out", str(out)]) == 0
    data = load_build_info(out)
    assert data.device["platform"] == "Portable Computing Language"
    assert data.records and all(r.status == "built" and r.info is None
                                for r in data.records.values())
    assert {k.kernel for k in data.records} == {"column_cumsum"}
    assert "loopy" in data.provenance["library_versions"]
    assert "0 with registers, 0 failed" in capsys.readouterr().out
    assert main(["build-info", "--set", "nope", "--out", str(out)]) == 2
