"""The dashboard in a real browser: JupyterLab served by ``workbench lab``, driven by
Playwright in headless Chromium (Debian's ``chromium``, never Playwright's download).

    python scripts/screenshot_dashboard.py --out docs/dashboard.png [--shots DIR]

It starts ``workbench lab`` on a free port with a token-less configuration in a
temporary folder, opens ``notebooks/dashboard.ipynb`` and runs it, chooses a kernel,
launches a quick calibration on the default OpenCL device (pocl's CPU device), waits
until the model is fitted, and saves screenshots of every step (``--shots``) and of
the finished dashboard: its first tab (``--out``, the README's picture) and its
heatmaps tab (``--heatmap-out``), at a laptop's width.

``tests/test_browser.py`` takes the same steps (:class:`LabServer`, :class:`DashboardPage`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "dashboard.ipynb"

#: How long the steps may take (ms). A quick calibration on pocl takes well under a
#: minute on 2 cores; the limits leave room for a slow CI machine.
STARTUP_MS = 180_000
CALIBRATION_MS = 300_000
#: the block-size study of the README's heatmap picture (its caption names it)
HEATMAP_STUDY = "block-size study: NVIDIA H100 80GB HBM3, star_stencil_3d-nofold"


def find_chromium() -> str | None:
    """Debian's chromium (``$WORKBENCH_CHROMIUM`` overrides), or None."""
    override = os.environ.get("WORKBENCH_CHROMIUM", "").strip()
    if override:
        return override if Path(override).exists() else None
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process_tree(process: subprocess.Popen, timeout_s: float = 15) -> None:
    """Stop ``process`` (started with ``start_new_session``), its process group and
    its descendants: SIGTERM to the group, SIGKILL to whatever of them still runs
    after ``timeout_s``; returns once they are all gone.

    The group keeps what is orphaned (``jupyter lab`` once ``workbench lab`` is gone);
    the descendants add the kernels, which Jupyter starts in sessions of their own and
    shuts down itself on a SIGTERM.
    """
    import psutil  # JupyterLab's ipykernel needs it: present wherever a server runs

    def members() -> dict[int, psutil.Process]:
        found = {}
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(process.pid)
            found = {p.pid: p for p in [root, *root.children(recursive=True)]}
        for p in psutil.process_iter():
            with contextlib.suppress(OSError):
                if os.getpgid(p.pid) == process.pid:
                    found.setdefault(p.pid, p)
        return found

    def running(p: psutil.Process) -> bool:
        if p.pid == process.pid:
            return process.poll() is None  # our child: poll() reaps it
        try:  # an orphan is a zombie until init reaps it, but no longer runs
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def wait_gone(procs, timeout: float) -> list[psutil.Process]:
        deadline = time.monotonic() + timeout
        while (alive := [p for p in procs if running(p)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        return alive

    family = list(members().values())
    # the group only: the server shuts its kernels down itself, cleanly
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    for p in wait_gone(family, timeout_s):
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    wait_gone(family, 5)


class LabServer:
    """``workbench lab`` on localhost, token-less, with its own Jupyter config,
    JupyterLab settings, workspace and runtime folders in a temporary folder; it serves
    a copy of the dashboard notebook (``folder``: serve that folder instead)."""

    def __init__(self, folder: Path | None = None, *, log: Path | None = None,
                 env: dict | None = None):
        self._tmp = tempfile.TemporaryDirectory(prefix="workbench-lab-")
        self.home = Path(self._tmp.name)
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log or self.home / "lab.log"
        self._extra_env = dict(env or {})
        self.process: subprocess.Popen | None = None

    def _configure(self) -> dict:
        config = self.home / "config"
        settings = self.home / "settings" / "@jupyterlab"
        for d in (config, settings / "docmanager-extension",
                  self.home / "runtime", self.home / "workspaces"):
            d.mkdir(parents=True, exist_ok=True)
        if self.folder is None:
            # a copy: JupyterLab writes to what it opens (outputs, checkpoints)
            self.folder = self.home / "notebooks"
            self.folder.mkdir()
            shutil.copy2(ROOT / "notebooks" / NOTEBOOK, self.folder / NOTEBOOK)
        server = {"IdentityProvider": {"token": ""},
                  "ServerApp": {"password": "", "disable_check_xsrf": True,
                                "open_browser": False, "allow_root": True},
                  "LabApp": {"news_url": None, "check_for_updates_class":
                             "jupyterlab.NeverCheckForUpdate"}}
        (config / "jupyter_server_config.json").write_text(json.dumps(server))
        # (no "news" or "update" notification settings here: `workbench lab` passes its
        # own, which tests/test_browser_laptop.py checks on the page)
        (settings / "docmanager-extension" / "plugin.jupyterlab-settings").write_text(
            json.dumps({"autosave": False}))
        env = dict(os.environ)
        env.update({"JUPYTER_CONFIG_DIR": str(config),
                    "JUPYTER_RUNTIME_DIR": str(self.home / "runtime"),
                    "JUPYTERLAB_SETTINGS_DIR": str(self.home / "settings"),
                    "JUPYTERLAB_WORKSPACES_DIR": str(self.home / "workspaces"),
                    "PYTHONUNBUFFERED": "1"})
        env.update(self._extra_env)
        return env

    def start(self, timeout_s: float = 90) -> LabServer:
        env = self._configure()
        cmd = [sys.executable, "-m", "workbench", "lab", "--no-browser",
               "--port", str(self.port), "--ip", "127.0.0.1", "--notebooks", str(self.folder)]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        # a process group of its own, which stop() signals as a whole
        self.process = subprocess.Popen(cmd, env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, cwd=self.home,
                                        start_new_session=True)
        try:
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"workbench lab exited ({self.process.returncode})"
                                       f"; see {self.log_path}:\n{self.log_tail()}")
                try:
                    with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as r:
                        if r.status == 200:
                            return self
                except OSError:
                    time.sleep(0.3)
            raise RuntimeError(f"JupyterLab did not answer within {timeout_s} s:\n"
                               f"{self.log_tail()}")
        except BaseException:  # `with` calls stop() only once start() has returned
            self.stop()
            raise

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text()[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop the server, its kernels and whatever else it started, and wait for them."""
        if self.process is not None:
            stop_process_tree(self.process)
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None
        self._tmp.cleanup()

    def __enter__(self) -> LabServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def launch_browser(playwright, chromium: str):
    # no sandbox: root (as in CI containers) needs that, and without the recommended
    # chromium-sandbox package nobody else gets one; the page is our own, on localhost
    return playwright.chromium.launch(executable_path=chromium, headless=True,
                                      args=["--no-sandbox", "--disable-gpu"])


try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the test skips (or fails under CI) with a reason
    PlaywrightTimeout = TimeoutError


class DashboardPage:
    """The steps of the dashboard, on a Playwright page; ``shots`` collects screenshots."""

    def __init__(self, page, server: LabServer, shots: Path | None = None):
        self.page = page
        self.server = server
        self.shots = shots
        self.saved: list[Path] = []
        self.first_heatmap = ""   # the heatmaps' source before new_heatmap() changed it
        # the page's own errors and warnings, for a failure's message
        self.console: list[str] = []
        self.redrawn: list[str] = []   # heatmaps drawn again for want of labels
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"[:300])
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"[:300]))
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)

    def shot(self, name: str, locator=None) -> Path | None:
        if self.shots is None:
            return None
        path = self.shots / f"{name}.png"
        (locator or self.page).screenshot(path=str(path))
        self.saved.append(path)
        return path

    @contextlib.contextmanager
    def failure_shot(self):
        """On an exception, keep a picture of the page as it was (``99-failure.png``)."""
        try:
            yield
        except BaseException:
            if self.shots is not None:
                try:
                    self.page.screenshot(path=str(self.shots / "99-failure.png"),
                                         full_page=True)
                except Exception:  # noqa: BLE001 - the original error matters more
                    pass
            raise

    def el(self, css: str):
        return self.page.locator(css).first

    def tab_titles(self) -> list[str]:
        return [t.strip() for t in
                self.page.locator(".wb-tabs .lm-TabBar-tab").all_inner_texts()]

    def clipped_tab_titles(self, css: str = ".wb-tabs .lm-TabBar-tabLabel") -> list[str]:
        """The tab titles (or shown ``css`` elements) narrower than their text (cut off)."""
        return self.page.evaluate("""css => [...document.querySelectorAll(css)].filter(l =>
            l.offsetParent !== null && l.scrollWidth > l.clientWidth + 1)
            .map(l => l.textContent.trim())""", css)

    def overflowing(self) -> list[str]:
        """Shown elements past the dashboard's right edge (cut off on a laptop), but
        the heatmaps, which scroll sideways on purpose."""
        return self.page.evaluate("""() => { const right = document.querySelector(
            '.wb-dashboard').getBoundingClientRect().right + 2;
            return [...document.querySelectorAll('.wb-dashboard *')].filter(e => e.offsetParent
              !== null && !e.closest('.wb-heatmap') && e.getBoundingClientRect().right > right)
              .slice(0, 5).map(e => `${e.tagName} ${e.className} ${e.textContent.slice(0, 40)}`) }""")

    def open_tab(self, title: str):
        """Click the dashboard's tab ``title``; returns its page once it shows."""
        tab = self.el(".wb-tabs").get_by_role("tab", name=title, exact=True)
        tab.click()
        self.page.wait_for_function("t => t.classList.contains('lm-mod-current')",
                                    arg=tab.element_handle(), timeout=10_000)
        shown = self.page.locator(".wb-tab-page >> visible=true").first
        shown.wait_for(timeout=10_000)
        return shown

    def dashboard_height(self) -> float:
        """The dashboard's height on the page as drawn (px)."""
        return self.el(".wb-dashboard").evaluate("e => e.getBoundingClientRect().height")

    def heatmap_cells(self, redraw: bool = True) -> int:
        """Labelled cells of the first layer of the heatmap shown (each names its
        block or work-group shape).

        Twice in CI (a busy 2-core machine) the shown heatmap had no labels for 30 and
        then 90 s, which no local run reproduced: without them, the figure is drawn
        once more (its source chosen away and back), and what the page held before is
        kept in :attr:`redrawn` for the test to report."""
        layer = self.page.locator(".wb-heatmap >> visible=true").first.locator(
            ".heatmaplayer").first
        labels = layer.locator("g.heatmap-label text")
        try:
            labels.first.wait_for(state="attached", timeout=45_000)
        except PlaywrightTimeout as err:
            state = (f"{self.heatmap_state()}; the page's last messages: "
                     f"{self.console[-8:]}")
            if not redraw:
                raise AssertionError(f"no labelled heatmap cells: {state}") from err
            self.redrawn.append(state)
            self._redraw_heatmap()
            return self.heatmap_cells(redraw=False)
        return labels.count()

    def _redraw_heatmap(self) -> None:
        select = self.el(".wb-heatmap-source select")
        shown = select.evaluate("s => s.selectedIndex")
        select.select_option(index=1 if shown == 0 else 0)
        self.page.wait_for_timeout(2_000)
        select.select_option(index=shown)

    def heatmap_state(self) -> dict:
        """What the page holds of the heatmaps and the notebook (a failure's context)."""
        return self.page.evaluate("""() => {
            const all = [...document.querySelectorAll('.wb-heatmap')];
            const prompt = document.querySelector('.jp-CodeCell .jp-InputPrompt');
            const panel = document.querySelector('.wb-heatmap-panel');
            return {figures: all.length,
                    shown: all.filter(e => e.offsetParent !== null).length,
                    layers: document.querySelectorAll('.wb-heatmap .heatmaplayer').length,
                    labels: document.querySelectorAll('.wb-heatmap g.heatmap-label').length,
                    dashboards: document.querySelectorAll('.wb-dashboard').length,
                    tab: [...document.querySelectorAll('.wb-tabs .lm-mod-current')]
                        .map(t => t.textContent.trim()).join('|'),
                    prompt: prompt ? prompt.textContent : null,
                    panel: panel ? panel.innerText.slice(0, 400) : null};
        }""")

    def heatmap_source(self, starts: str | None = None) -> str:
        """Show the heatmaps' first source whose label starts with ``starts``
        (``"measured store"``, ``"block-size study"``...); returns the label of the
        source shown (without ``starts``: changes nothing)."""
        select = self.el(".wb-heatmap-source select")
        labels = select.evaluate(
            "s => [...s.options].map(o => o.textContent.replace(/\\u00a0/g, ' '))")
        if starts is None:
            return labels[select.evaluate("s => s.selectedIndex")]
        index = next((i for i, t in enumerate(labels) if t.startswith(starts)), None)
        if index is None:
            raise ValueError(f"no heatmap source {starts!r}: {labels}")
        select.select_option(index=index)
        return labels[index]

    # -- the steps ----------------------------------------------------------------

    def open(self) -> None:
        """Open the dashboard notebook, run its cell, wait for the dashboard."""
        page = self.page
        page.goto(f"{self.server.url}/lab/tree/{NOTEBOOK}", timeout=STARTUP_MS)
        code = page.locator(".jp-Notebook .jp-CodeCell").first
        code.wait_for(state="visible", timeout=STARTUP_MS)
        # the kernel (this Python) is connected when the status bar says so
        page.locator(".jp-StatusBar-Widget", has_text="Idle").first.wait_for(
            timeout=STARTUP_MS)
        prompt = code.locator(".jp-InputPrompt")
        deadline = time.monotonic() + STARTUP_MS / 1000
        while True:   # a run sent while the kernel still connects can get lost: resend
            code.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Control+Enter")   # run in place, no new cell
            try:
                page.wait_for_function(
                    "e => /\\[(\\*|\\d+)\\]/.test(e.textContent)", arg=prompt.element_handle(),
                    timeout=15_000)
                break
            except PlaywrightTimeout:
                if time.monotonic() > deadline:
                    raise
        # A resent run that was not lost after all (a slow kernel) runs the cell twice,
        # and the second run replaces the first one's dashboard while the test uses it:
        # wait for the prompt's number, which shows once every queued run is done.
        page.wait_for_function("e => /\\[\\d+\\]/.test(e.textContent)",
                               arg=prompt.element_handle(), timeout=STARTUP_MS)
        self.el(".wb-dashboard").wait_for(state="visible", timeout=STARTUP_MS)
        self.el(".wb-properties-table table").wait_for(timeout=STARTUP_MS)
        self.shot("01-dashboard-opened")

    def choose_kernel(self, kernel: str, *, params: str | None = None,
                      group_size: str | None = None) -> str:
        """Pick ``kernel`` in the kernel dropdown (and sizes); returns the counts table's
        text once it shows the new kernel."""
        select = self.el(".wb-kernel-select select")
        options = select.evaluate("s => [...s.options].map(o => o.textContent.trim())")
        label = next((t for t in options if t.split()[0] == kernel), None)
        if label is None:
            raise ValueError(f"no kernel {kernel!r} in the dropdown: {options}")
        self.open_tab("Properties")
        select.select_option(label=label)
        heading_has = self.page.locator(".wb-properties-panel b", has_text=kernel)
        heading_has.first.wait_for(timeout=60_000)
        heading = self.page.locator(".wb-properties-panel .widget-html-content",
                                    has_text="counts per").first
        for css, value in ((".wb-group-size input", group_size), (".wb-params input", params)):
            if value is None:
                continue
            box = self.el(css)
            box.fill(value)
            box.press("Enter")
            self.page.wait_for_function("([e, v]) => e.textContent.includes(v)",
                                        arg=[heading.element_handle(), value],
                                        timeout=60_000)
        table = self.el(".wb-properties-table table")
        table.wait_for(timeout=60_000)
        self.shot("02-kernel-chosen")
        return table.inner_text()

    def mark_heatmaps(self) -> None:
        """Tag the heatmaps now on the page, to tell the new one from them later."""
        self.page.evaluate("""() => document.querySelectorAll('.wb-heatmap')
            .forEach(e => e.setAttribute('data-wb-before', '1'))""")

    def calibrate(self, kernels: str | None = None) -> str:
        """Click calibrate (over ``kernels``, comma-separated, else the whole catalog) and
        wait until the progress shows work being done; returns the progress text."""
        self.mark_heatmaps()
        self.open_tab("Calibration")
        if kernels:
            box = self.el(".wb-calibration-kernels input")
            box.fill(kernels)
            box.press("Enter")
        button = self.el(".wb-calibrate-button")
        button.wait_for(state="visible")
        button.scroll_into_view_if_needed()
        button.click()
        label = self.el(".wb-progress-label")
        self.page.wait_for_function(
            """() => { const e = document.querySelector('.wb-progress-label');
                       return e && /(^|\\D)[1-9]\\d*\\/\\d+/.test(e.textContent); }""",
            timeout=CALIBRATION_MS)
        self.el(".wb-progress").scroll_into_view_if_needed()
        self.shot("03-calibrating")
        return label.inner_text()

    def wait_finished(self) -> str:
        """Wait for ``finished`` in the progress label; returns the label's text."""
        self.page.wait_for_function(
            """() => { const e = document.querySelector('.wb-progress-label');
                       return e && /finished|stopped|cancelled/.test(e.textContent); }""",
            timeout=CALIBRATION_MS)
        self.el(".wb-progress").scroll_into_view_if_needed()
        self.shot("04-calibration-finished")
        return self.el(".wb-progress-label").inner_text()

    def progress_fraction(self) -> float:
        """The progress bar's fill, 0..1, as drawn."""
        return self.page.evaluate("""() => {
            const bar = document.querySelector('.wb-progress .progress-bar');
            const box = bar && bar.parentElement;
            return bar && box ? bar.getBoundingClientRect().width /
                                box.getBoundingClientRect().width : -1; }""")

    def weights_text(self) -> str:
        self.open_tab("Fitted weights")
        table = self.el(".wb-weights-table table")
        table.wait_for(timeout=60_000)
        table.scroll_into_view_if_needed()
        self.shot("05-weights", self.el(".wb-weights-table"))
        return table.inner_text()

    def new_heatmap(self):
        """The heatmap of the measured store, drawn after the calibration (plotly's svg
        inside ``wb-heatmap``): the heatmaps tab shows a block study until asked."""
        self.open_tab("Heatmaps")
        self.first_heatmap = self.heatmap_source()
        self.heatmap_source("measured store")
        fresh = self.page.locator(".wb-heatmap:not([data-wb-before]) .main-svg").first
        fresh.wait_for(state="visible", timeout=120_000)
        heatmap = self.page.locator(".wb-heatmap:not([data-wb-before])").first
        heatmap.scroll_into_view_if_needed()
        self.shot("06-heatmap", heatmap)
        return heatmap

    def explain_shown(self, expect: str | None = None) -> str:
        """Open the Explain tab and wait for its terms table and roofline chart (and for
        ``expect``, the chosen sizes, in its heading); returns the table's text.

        Where the heading does not show ``expect`` in 90 s, the failure says what it
        and the sizes box show instead."""
        self.open_tab("Explain")
        heading = self.page.locator(".wb-explain-heading", has_text=expect or "predicted")
        try:
            heading.first.wait_for(timeout=90_000)
        except PlaywrightTimeout:
            shown = self.page.locator(".wb-explain-heading").first.inner_text(timeout=5_000)
            errors = " | ".join(self.page.locator(".wb-error").all_inner_texts())
            box = self.el(".wb-params input")
            raise AssertionError(
                f"the Explain tab did not show {expect!r} in 90 s: its heading read "
                f"{shown!r}; the sizes box read {box.input_value()!r}; the error area: "
                f"{errors!r}") from None
        table = self.page.locator(".wb-explain-terms table >> visible=true").first
        table.wait_for(timeout=90_000)
        # the chart arrives after the heading: wait for its legend's predicted time (a
        # recomputation still under way on a busy machine can hide the heading a while)
        predicted = re.search(r"predicted ([0-9.e+-]+ ms)",
                              heading.first.inner_text(timeout=90_000))
        self.page.locator(".wb-explain-roofline .main-svg >> visible=true",
                          has_text=f"predicted {predicted.group(1)}"
                          if predicted else None).first.wait_for(timeout=60_000)
        return table.inner_text()

    def dashboard_picture(self, path: Path, tab: str | None = None,
                          width: int = 1440) -> Path:
        """The dashboard with ``tab`` open (default: the first), as one picture; the
        viewport is as tall as the dashboard, so nothing is cut."""
        board = self.el(".wb-dashboard")
        self.open_tab(tab or self.tab_titles()[0])
        self.page.set_viewport_size({"width": width, "height": 900})
        self.page.wait_for_timeout(500)   # the notebook reflows to the new width
        height = int(self.dashboard_height())
        self.page.set_viewport_size({"width": width, "height": max(900, height + 200)})
        board.scroll_into_view_if_needed()
        self.page.wait_for_timeout(1000)   # plotly redraws at the new size
        path.parent.mkdir(parents=True, exist_ok=True)
        board.screenshot(path=str(path))
        return small_png(path)


def small_png(path: Path) -> Path:
    """The picture in 256 colours: a widget page's flat colours and a colour scale keep
    their look at a third of the bytes (the tracked tree's 30 MB, issue #25)."""
    try:
        from PIL import Image
    except ImportError:     # the picture stays as the browser wrote it
        return path
    with Image.open(path) as picture:
        quantized = picture.convert("RGB").quantize(colors=256,
                                                    method=Image.Quantize.MEDIANCUT)
    quantized.save(path, optimize=True)
    return path


def run(out: Path | None, shots: Path | None, kernel: str, params: str | None,
        group_size: str | None, heatmap_out: Path | None = None,
        explain_out: Path | None = None, calibrate: bool = True) -> list[Path]:
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        raise SystemExit("no chromium: apt-get install --no-install-recommends chromium "
                         "(scripts/ensure_chromium.sh)")
    with LabServer(log=(shots / "jupyterlab.log") if shots else None) as server, \
            sync_playwright() as p:
        browser = launch_browser(p, chromium)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            dash = DashboardPage(page, server, shots)
            with dash.failure_shot():
                dash.open()
                dash.choose_kernel(kernel, params=params, group_size=group_size)
                if explain_out is not None:   # the shipped default model explains it
                    dash.explain_shown(f"{params}, group {group_size}")
                    dash.saved.append(dash.dashboard_picture(explain_out, "Explain",
                                                             width=1280))
                    page.set_viewport_size({"width": 1280, "height": 1000})
                if not calibrate:
                    return dash.saved
                dash.calibrate()
                label = dash.wait_finished()
                if "finished" not in label:
                    raise SystemExit(f"the calibration did not finish: {label}")
                dash.weights_text()
                dash.new_heatmap()
                if heatmap_out is not None:   # the shipped H100 block-size study
                    dash.open_tab("Heatmaps")
                    # by name: after a calibration the tab opens on the measured store
                    # (the picture showed pocl's heatmap under the block study's caption)
                    dash.heatmap_source(HEATMAP_STUDY)
                    # its layers two a row, 800 px wide: a laptop's width shows them
                    dash.saved.append(dash.dashboard_picture(heatmap_out, "Heatmaps",
                                                             width=1280))
                if out is not None:
                    dash.saved.append(dash.dashboard_picture(out))
        finally:
            browser.close()
    return dash.saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "dashboard.png",
                        help="the picture of the finished dashboard (its first tab)")
    parser.add_argument("--heatmap-out", type=Path,
                        default=ROOT / "docs" / "dashboard-heatmap.png",
                        help="the picture of its heatmaps tab, on a block-size study")
    parser.add_argument("--explain-out", type=Path,
                        default=ROOT / "docs" / "dashboard-explain.png",
                        help="the picture of its Explain tab (the chosen kernel, before "
                             "the calibration: the shipped default model), 1280 px wide")
    parser.add_argument("--explain-only", action="store_true",
                        help="only the Explain tab's picture (no calibration)")
    parser.add_argument("--shots", type=Path, default=None,
                        help="also keep a screenshot of every step in this folder")
    parser.add_argument("--kernel", default="finite_diff")
    parser.add_argument("--params", default="n=2048")
    parser.add_argument("--group-size", default="16x16")
    args = parser.parse_args()
    only = args.explain_only
    for path in run(None if only else args.out, args.shots, args.kernel, args.params,
                    args.group_size, None if only else args.heatmap_out,
                    args.explain_out, calibrate=not only):
        print(path)


if __name__ == "__main__":
    main()
