"""``workbench lab``: JupyterLab on the notebooks (the tour, the paper reproductions)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from workbench.errors import WorkbenchError

INSTALL_HINT = ("pip install 'gpu-perf-workbench[ui]' (or 'make setup' in a checkout)")

#: JupyterLab settings the workbench's lab starts with, as application overrides (the
#: defaults under the user's own settings, which still win): no pop-up asking "Would
#: you like to get notified about official Jupyter news?" over the notebook a newcomer
#: has just opened (newuser19), and no check for a JupyterLab newer than the pinned one
LAB_OVERRIDES = {"@jupyterlab/apputils-extension:notification":
                 {"fetchNews": "false", "checkForUpdates": False}}
#: the jupyter lab option that names the folder of application settings
APP_SETTINGS_OPTION = "--LabApp.app_settings_dir"


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lab", help="open JupyterLab on the notebooks")
    p.add_argument("--port", type=int, default=None,
                   help="port to serve on (default: JupyterLab's, 8888 or the next free)")
    p.add_argument("--ip", default=None,
                   help="address to listen on (default: JupyterLab's, localhost)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--notebooks", metavar="FOLDER", default=None,
                   help="folder to serve (default: the checkout's notebooks/)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the command that would run, and exit (its settings "
                        "folder is written, and kept, so that the command runs as printed)")
    p.add_argument("jupyter_args", nargs="*", metavar="-- JUPYTER_ARG",
                   help="after '--', arguments for jupyter lab itself (e.g. --allow-root)")
    p.set_defaults(func=cmd_lab)


def notebooks_folder(explicit: str | None = None) -> Path:
    """The folder JupyterLab serves: ``--notebooks``, else the checkout's ``notebooks/``."""
    if explicit is not None:
        folder = Path(explicit).expanduser().resolve()
        if not folder.is_dir():
            raise WorkbenchError(f"--notebooks {explicit!r} is not a folder")
        return folder
    checkout = Path(__file__).resolve().parents[2] / "notebooks"
    for folder in (checkout, Path.cwd() / "notebooks"):
        if folder.is_dir():
            return folder
    raise WorkbenchError("no notebooks/ folder found next to the package or here; "
                         "pass --notebooks FOLDER")


def lab_command(folder: Path, *, port: int | None = None, ip: str | None = None,
                no_browser: bool = False, extra: list[str] = ()) -> list[str]:
    """The ``python -m jupyter lab ...`` command line for this interpreter."""
    if port is not None and not 0 < port < 65536:
        raise WorkbenchError(f"--port must be between 1 and 65535, got {port}")
    cmd = [sys.executable, "-m", "jupyter", "lab", f"--ServerApp.root_dir={folder}"]
    if port is not None:
        cmd.append(f"--port={port}")
    if ip is not None:
        cmd.append(f"--ip={ip}")
    if no_browser:
        cmd.append("--no-browser")
    return cmd + list(extra)


def default_app_settings_dir() -> Path | None:
    """JupyterLab's own application settings folder (``<app dir>/settings``), None
    without JupyterLab."""
    if not jupyterlab_installed():
        return None
    from jupyterlab.commands import get_app_dir

    return Path(get_app_dir()) / "settings"


def write_lab_settings(folder: Path, app_settings: Path | None = None) -> Path:
    """The workbench's application settings folder, written under ``folder``: JupyterLab's
    own (``app_settings``: its overrides, page config) with :data:`LAB_OVERRIDES` added
    where they set nothing.  Nothing is written to the user's settings or home."""
    settings = folder / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    overrides: dict = {}
    if app_settings is not None:
        for name in ("page_config.json", "page_config.json5", "overrides.d"):
            source = app_settings / name
            if source.is_dir():
                shutil.copytree(source, settings / name, dirs_exist_ok=True)
            elif source.is_file():
                shutil.copy2(source, settings / name)
        # (overrides.json5 is left out: json5 is JupyterLab's, and rare)
        if (own := app_settings / "overrides.json").is_file():
            overrides = json.loads(own.read_text() or "{}")
        # JupyterLab reads its build's extension metadata beside the settings folder
        static = app_settings.parent / "static"
        if static.is_dir() and not (folder / "static").exists():
            (folder / "static").symlink_to(static, target_is_directory=True)
    for plugin, values in LAB_OVERRIDES.items():
        overrides[plugin] = {**values, **overrides.get(plugin, {})}
    (settings / "overrides.json").write_text(json.dumps(overrides, indent=2))
    return settings


def _names_app_settings(extra: list[str]) -> bool:
    """Whether the user's own jupyter lab arguments choose the application folders."""
    return any(a.startswith((APP_SETTINGS_OPTION, "--app-dir", "--LabApp.app_dir"))
               for a in extra)


def jupyterlab_installed() -> bool:
    return importlib.util.find_spec("jupyterlab") is not None


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def cmd_lab(args) -> int:
    folder = notebooks_folder(args.notebooks)
    extra = list(args.jupyter_args)
    # JupyterLab refuses root with a line lost among its start-up logs; a container or
    # a fresh VM is often root, and `make lab` gives no place for the flag
    allow_root = running_as_root() and "--allow-root" not in extra
    if not args.dry_run and not jupyterlab_installed():
        raise WorkbenchError(f"JupyterLab is not installed; {INSTALL_HINT}")
    # the arguments checked (lab_command raises) before the settings folder is made
    lab_command(folder, port=args.port, ip=args.ip)
    own = None
    if not _names_app_settings(extra):
        own = Path(tempfile.mkdtemp(prefix="workbench-lab-settings-"))
        settings = write_lab_settings(own, default_app_settings_dir())
        extra = [f"{APP_SETTINGS_OPTION}={settings}", *extra]
    cmd = lab_command(folder, port=args.port, ip=args.ip, no_browser=args.no_browser,
                      extra=extra + ["--allow-root"] * allow_root)
    if args.dry_run:
        print(shlex.join(cmd))
        return 0
    if allow_root:
        print("workbench lab: running as root, so --allow-root is passed to jupyter lab",
              file=sys.stderr)
    try:
        return run_jupyter(cmd)
    finally:
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)


#: Signals that stop ``workbench lab`` and are passed on to JupyterLab.
FORWARDED = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                  if hasattr(signal, name))


def run_jupyter(cmd: list[str], stop_timeout_s: float = 30) -> int:
    """Run ``cmd`` until it exits and return its exit status.

    Python dies of a SIGTERM or SIGHUP at once, which would leave JupyterLab and its
    kernels running, orphaned; they are passed on instead, and we wait for the server
    to shut its kernels down. On Ctrl-C (KeyboardInterrupt) the server gets a SIGTERM,
    a clean shutdown, where ``subprocess.call`` would SIGKILL it.
    """
    with subprocess.Popen(cmd) as proc:
        previous = {}
        if threading.current_thread() is threading.main_thread():  # signal's own rule
            for sig in FORWARDED:
                previous[sig] = signal.signal(sig, lambda signum, _: proc.send_signal(signum))
        try:
            return proc.wait()
        except BaseException:
            proc.terminate()
            try:
                proc.wait(stop_timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
