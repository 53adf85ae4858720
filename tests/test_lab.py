"""``workbench lab``: argument handling, and its stopping, without starting a server.

(tests/test_browser.py starts a real one through the same command.)
"""

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from workbench.cli import lab_cmds
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def own_temp(tmp_path, monkeypatch):
    """The settings folders workbench lab writes (a dry run keeps its own) go to the
    test's folder, not the machine's /tmp."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


@pytest.fixture
def calls(monkeypatch):
    """Record the commands ``workbench lab`` would run, instead of running them."""
    seen = []

    def fake_call(cmd, *args, **kwargs):
        seen.append(list(cmd))
        return 0

    monkeypatch.setattr(lab_cmds, "run_jupyter", fake_call)
    return seen


def test_dry_run_prints_the_command(capsys, calls):
    assert main(["lab", "--dry-run", "--port", "8899", "--ip", "127.0.0.1",
                 "--no-browser"]) == 0
    cmd = shlex.split(capsys.readouterr().out)
    assert cmd[:4] == [sys.executable, "-m", "jupyter", "lab"]
    assert f"--ServerApp.root_dir={ROOT / 'notebooks'}" in cmd
    assert {"--port=8899", "--ip=127.0.0.1", "--no-browser"} <= set(cmd)
    assert calls == []   # a dry run starts nothing


def test_lab_runs_jupyterlab_on_the_notebooks(calls):
    assert main(["lab", "--no-browser"]) == 0
    (cmd,) = calls
    assert cmd[:4] == [sys.executable, "-m", "jupyter", "lab"]
    assert f"--ServerApp.root_dir={ROOT / 'notebooks'}" in cmd
    assert "--no-browser" in cmd
    assert not any(c.startswith(("--port", "--ip")) for c in cmd)  # JupyterLab's defaults


def test_arguments_after_a_double_dash_go_to_jupyterlab(calls):
    assert main(["lab", "--port", "8899", "--", "--allow-root",
                 "--ServerApp.base_url=/wb/"]) == 0
    assert calls[0][-2:] == ["--allow-root", "--ServerApp.base_url=/wb/"]
    assert "--port=8899" in calls[0]


def test_jupyterlab_exit_status_is_passed_on(monkeypatch):
    monkeypatch.setattr(lab_cmds, "run_jupyter", lambda cmd: 3)
    assert main(["lab", "--no-browser"]) == 3


def test_another_notebooks_folder(tmp_path, calls):
    assert main(["lab", "--notebooks", str(tmp_path)]) == 0
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in calls[0]


def test_missing_jupyterlab_is_one_clear_line(monkeypatch, capsys, calls):
    monkeypatch.setattr(lab_cmds, "jupyterlab_installed", lambda: False)
    assert main(["lab"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("workbench: error: JupyterLab is not installed")
    assert "[ui]" in err and "\n" not in err and "Traceback" not in err
    assert calls == []


@pytest.mark.parametrize("args, message", [
    (["--port", "0"], "--port must be between 1 and 65535"),
    (["--port", "70000"], "--port must be between 1 and 65535"),
    (["--notebooks", "/nonexistent/folder"], "is not a folder"),
])
def test_bad_arguments_are_one_line(args, message, capsys, calls, own_temp):
    assert main(["lab", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert calls == []
    assert list(own_temp.iterdir()) == []     # no settings folder made, or left


def test_jupyterlab_is_detected_in_this_environment():
    # the test environment installs the 'ui' extra (scripts/setup_env.sh)
    assert lab_cmds.jupyterlab_installed()


def test_dry_run_in_a_real_process():
    out = subprocess.run([sys.executable, "-m", "workbench", "lab", "--dry-run"],
                         capture_output=True, text=True, check=True).stdout
    assert " -m jupyter lab --ServerApp.root_dir=" in out


# A stand-in for JupyterLab: it says its pid, then sleeps until a SIGTERM ends it (7).
FAKE_SERVER = ("import os, signal, sys, time; "
               "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7)); "
               "print(os.getpid(), flush=True); time.sleep(60)")
WRAPPER = ("import sys; from workbench.cli.lab_cmds import run_jupyter; "
           f"sys.exit(run_jupyter([sys.executable, '-c', {FAKE_SERVER!r}]))")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stopping_workbench_lab_stops_the_server_too(sig):
    # before, a SIGTERM killed `workbench lab` alone and left JupyterLab running
    wrapper = subprocess.Popen([sys.executable, "-c", WRAPPER], stdout=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        server = int(wrapper.stdout.readline())
        wrapper.send_signal(sig)
        code = wrapper.wait(20)
        if sig == signal.SIGTERM:
            assert code == 7   # the server's own exit status, passed on
        with pytest.raises(ProcessLookupError):   # gone, and reaped by the wrapper
            os.kill(server, 0)
    finally:
        # the server is in the wrapper's process group, even once the wrapper is dead
        with contextlib.suppress(ProcessLookupError):
            os.killpg(wrapper.pid, signal.SIGKILL)
        wrapper.wait(5)
        wrapper.stdout.close()


@pytest.mark.parametrize("root", [True, False])
def test_as_root_jupyterlab_is_allowed_to_run(monkeypatch, calls, capsys, root):
    # JupyterLab exits at once as root without --allow-root, its reason among its logs
    monkeypatch.setattr(lab_cmds, "running_as_root", lambda: root)
    assert main(["lab", "--no-browser"]) == 0
    assert ("--allow-root" in calls[0]) is root
    assert ("--allow-root is passed" in capsys.readouterr().err) is root
    assert main(["lab", "--", "--allow-root"]) == 0
    assert calls[1].count("--allow-root") == 1


def _app_settings(cmd: list[str]) -> Path:
    (option,) = [c for c in cmd if c.startswith(lab_cmds.APP_SETTINGS_OPTION + "=")]
    return Path(option.split("=", 1)[1])


def test_lab_turns_off_the_news_popup_in_its_own_settings(monkeypatch, tmp_path):
    # JupyterLab asked "Would you like to get notified about official Jupyter news?"
    # over the notebook a newcomer had just opened (newuser19's finding)
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    seen = []

    def fake_call(cmd, *args, **kwargs):   # the settings exist while JupyterLab runs
        folder = _app_settings(cmd)
        seen.append((folder, json.loads((folder / "overrides.json").read_text())))
        return 0

    monkeypatch.setattr(lab_cmds, "run_jupyter", fake_call)
    assert main(["lab", "--no-browser"]) == 0
    ((folder, overrides),) = seen
    notification = overrides["@jupyterlab/apputils-extension:notification"]
    assert notification["fetchNews"] == "false"    # the popup shows while it is "none"
    assert notification["checkForUpdates"] is False
    assert not folder.exists()          # a folder of its own, removed when the lab ends
    assert not home.exists()            # nothing written to the user's home


def test_lab_keeps_jupyterlabs_own_application_settings(tmp_path):
    app = tmp_path / "app" / "settings"
    (app / "overrides.d").mkdir(parents=True)
    (app / "overrides.json").write_text(json.dumps({
        "@jupyterlab/apputils-extension:notification": {"fetchNews": "true"},
        "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}))
    (app / "overrides.d" / "site.json").write_text("{}")
    (app / "page_config.json").write_text(json.dumps({"disabledExtensions": ["x"]}))
    settings = lab_cmds.write_lab_settings(tmp_path / "own", app)
    overrides = json.loads((settings / "overrides.json").read_text())
    # what the site set stays, its news choice included; ours fill in the rest
    assert overrides["@jupyterlab/apputils-extension:notification"] == {
        "fetchNews": "true", "checkForUpdates": False}
    assert overrides["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert (settings / "page_config.json").is_file()
    assert (settings / "overrides.d" / "site.json").is_file()


def test_lab_leaves_a_chosen_application_folder_alone(calls):
    assert main(["lab", "--", "--LabApp.app_settings_dir=/somewhere"]) == 0
    assert [c for c in calls[0] if c.startswith(lab_cmds.APP_SETTINGS_OPTION)] == [
        "--LabApp.app_settings_dir=/somewhere"]


def test_the_override_reaches_jupyterlab():
    """JupyterLab itself reads the folder the command passes (its settings API's
    overrides), not only our file."""
    from jupyterlab_server.settings_utils import _get_overrides

    out = subprocess.run([sys.executable, "-m", "workbench", "lab", "--dry-run"],
                         capture_output=True, text=True, check=True).stdout
    folder = _app_settings(shlex.split(out))
    try:
        overrides, error = _get_overrides(str(folder))
        assert not error
        assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    finally:
        import shutil
        shutil.rmtree(folder.parent)
