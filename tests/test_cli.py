"""The CLI: real output for good input, one clear line (no traceback) for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args):
    proc = subprocess.run([sys.executable, "-m", "workbench", *args],
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("args, message", [
    (["properties", "no_such_kernel", "--param", "n=8"], "unknown kernel 'no_such_kernel'"),
    (["properties", "matmul_naive", "--variant", "bogus", "--param", "n=64"],
     "unknown variant"),
    (["properties", "matmul_naive", "--param", "q=64"], "unknown parameter"),
    (["properties", "matmul_naive"], "needs a value for parameter"),
    (["properties", "matmul_naive", "--param", "n=64", "--group-size", "16by16"],
     "malformed group size"),
    (["properties", "matmul_naive", "--param", "n=64", "--dtype", "float16"],
     "unknown dtype"),
    (["properties", "matmul_naive", "--param", "n=sixty"], "malformed parameter"),
    # a user kernel is in the type its arrays are declared with
    (["properties", f"{Path(__file__).resolve().parents[1]}/examples/kernels/"
      "my_kernels.py:saxpy", "--param", "n=64", "--dtype", "float64"],
     "kernel 'saxpy' computes in float32 only (the type its arrays are declared with), "
     "not float64"),
    (["predict", f"{Path(__file__).resolve().parents[1]}/examples/kernels/"
      "my_kernels.py:saxpy", "--param", "n=-64"],
     "kernel 'saxpy': the size n must be at least 1, got -64"),
    # a size of 0 was predicted as a bare launch ("limiter: launch floor")
    (["explain", f"{Path(__file__).resolve().parents[1]}/examples/kernels/"
      "my_kernels.py:saxpy", "--param", "n=0"],
     "kernel 'saxpy': the size n must be at least 1, got 0 (a size of 0 leaves the "
     "kernel no work to do)"),
    (["explain", "finite_diff", "--param", "n=0"],
     "kernel 'finite_diff': the size n must be at least 1, got 0"),
])
def test_bad_input_gives_one_clear_line(args, message, capsys):
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_bad_input_no_traceback_in_a_real_process():
    code, out, err = run_cli("properties", "matmul_tiled", "--param", "n=64")
    assert code == 2 and "needs a value for parameter" in err and "Traceback" not in err


def test_properties_json_is_a_name_to_number_map(capsys):
    assert main(["properties", "matmul_naive", "--param", "n=256", "--group-size", "16x16",
                 "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)
    assert values["f_op_float32_mul"] == 256**3
    assert values["f_thread_groups"] == (256 // 16) ** 2
    assert all(isinstance(v, int) for v in values.values())


def test_kernels_lists_the_catalog(capsys):
    assert main(["kernels"]) == 0
    out = capsys.readouterr().out
    for name in ("matmul_tiled", "matmul_naive", "vector_scale_add", "transpose",
                 "global_access", "filled_access", "arith", "empty", "finite_diff",
                 "skinny_matmul", "convolution", "nbody"):
        assert name in out


def test_kernels_and_properties_say_what_their_columns_mean(capsys):
    assert main(["kernels"]) == 0
    out = capsys.readouterr().out
    for word in ("measurement", "test", "unseen"):
        assert f"{word} = " in out          # every role the table shows is said
    assert main(["properties", "matmul_tiled", "--variant", "square", "--param",
                 "n=64,m=64,l=64", "--group-size", "16x16"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:3] == ["property", "meaning", "value"]
    minls = next(line for line in lines if line.startswith("f_mem_access_global_float32_minls"))
    assert "Min(Stride-1 Loads, Stride-1 Stores)" in minls


def test_a_users_own_kernel_from_a_file(tmp_path, capsys):
    src = tmp_path / "mykernels.py"
    src.write_text(
        "import numpy as np, loopy as lp\n"
        "knl = lp.make_kernel('{[i]: 0<=i<n}', 'y[i] = 3*x[i] + y[i]',\n"
        "    [lp.GlobalArg('x,y', np.float32, shape=('n',)), ...], lang_version=(2018, 2))\n"
        "axpy = lp.split_iname(knl, 'i', 128, outer_tag='g.0', inner_tag='l.0')\n")
    assert main(["properties", f"{src}:axpy", "--param", "n=1024", "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)
    assert values["f_op_float32_mul"] == 1024
    assert values["f_mem_access_global_float32_load_stride1"] == 2048
    assert values["f_mem_access_global_float32_store_stride1"] == 1024
    assert values["f_thread_groups"] == 8
    assert main(["properties", f"{src}:nope", "--param", "n=8"]) == 2
    assert "unknown variable" in capsys.readouterr().err


def test_more_user_mistakes_are_one_line(tmp_path, capsys):
    bad = tmp_path / "broken.py"
    bad.write_text("import numpy as np\nthis is not python\n")
    assert main(["properties", f"{bad}:knl", "--param", "n=8"]) == 2
    assert "error while loading" in capsys.readouterr().err
    assert main(["properties", "matmul_naive", "--param", "n=64", "--granularity",
                 "subgroup", "--subgroup-size", "-3"]) == 2
    assert "positive" in capsys.readouterr().err
    assert main(["fit", "--store", "nowhere.sqlite", "-o",
                 str(tmp_path / "no" / "dir" / "w.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["report", "--store", "x.sqlite", "--weights", str(tmp_path)]) == 2
    assert "cannot read model file" in capsys.readouterr().err
    assert main(["calibrate", "--set", "work-removed", "--kernels", "finite_diff",
                 "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "finite_diff_wr" in capsys.readouterr().err


def test_the_help_points_a_newcomer_to_a_first_command_and_the_glossary(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "workbench explain finite_diff --param n=4096" in out
    assert "docs/glossary.md" in out and (ROOT / "docs" / "glossary.md").is_file()


def test_devices_says_a_subgroup_size_the_driver_does_not_report(capsys, monkeypatch):
    """pocl reports no sub-group (warp) size: its row read a bare "?", and the JSON
    held the string "?" where a number goes."""
    from workbench.cli import measure_cmds
    from workbench.measure.devices import DeviceInfo

    def device(subgroup):
        return DeviceInfo(index=0, platform="P", name="cpu", vendor="V",
                          driver_version="1", device_type="CPU", compute_units=2,
                          global_mem_bytes=1 << 30, max_alloc_bytes=1 << 28,
                          local_mem_bytes=1 << 16, max_work_group_size=1024,
                          subgroup_size=subgroup)

    monkeypatch.setattr(measure_cmds, "list_devices", lambda: [device(None), device(32)])
    assert main(["devices"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert rows[0].split()[-1] == "reported" and rows[0].endswith("not reported")
    assert rows[1].split()[-1] == "32"
    assert main(["devices", "--format", "json"]) == 0
    assert [r["subgroup"] for r in json.loads(capsys.readouterr().out)] == [None, 32]
