"""The dashboard on a laptop's screen, in a real browser (``workbench lab`` served,
headless Chromium driven by Playwright, as tests/test_browser.py does; no calibration):

* with any tab open, the whole dashboard fits the notebook's view at 1366x768 and
  1280x800 (it was 838 and 870 px tall there: the page scrolled before the plots);
* the block study's heatmap cells carry labels a reader can read at both widths
  (``16x64x1`` in 2-4 px type before), none over another, the whole block on hover;
* JupyterLab does not ask "Would you like to get notified about official Jupyter
  news?" over the notebook (``workbench lab``'s own settings turn it off).

Screenshots go to build/test-artifacts/browser-laptop/.  Without chromium or
Playwright the test skips, except under CI (env ``CI``), where that is a failure.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser_parts import LAPTOPS, driver, require_browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "build" / "test-artifacts" / "browser-laptop"
#: the smallest type a cell's label may have (px)
LEGIBLE_PX = 10
NEWS = "official Jupyter news"


@pytest.fixture(scope="module")
def browser_parts():
    require_browser("laptop browser test")


#: the notebook's view: what JupyterLab's bars leave of the window
VIEW = "() => document.querySelector('.jp-NotebookPanel-notebook').getBoundingClientRect().height"

#: the shown heatmap's cell labels: their type, boxes and how many overlap
LABELS = """() => {
  const figure = [...document.querySelectorAll('.wb-heatmap')].find(e => e.offsetParent);
  const texts = [...figure.querySelectorAll('g.heatmap-label text')];
  const boxes = texts.map(t => t.getBoundingClientRect());
  const over = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1
        && b.top < a.bottom - 1) over.push(texts[i].textContent + '/' + texts[j].textContent);
  }
  return {count: texts.length, fonts: texts.map(t => parseFloat(getComputedStyle(t).fontSize)),
          overlaps: over.slice(0, 5), width: figure.getBoundingClientRect().width,
          room: figure.parentElement.getBoundingClientRect().width};
}"""


def test_the_dashboard_fits_a_laptops_screen_and_its_heatmap_reads(browser_parts):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    with driver.LabServer(log=ARTIFACTS / "jupyterlab.log") as server, \
            sync_playwright() as p:
        browser = driver.launch_browser(p, driver.find_chromium())
        try:
            for width, height in LAPTOPS:
                page = browser.new_page(viewport={"width": width, "height": height})
                dash = driver.DashboardPage(page, server, ARTIFACTS)
                with dash.failure_shot():
                    dash.open()
                    # the news question came as a notification once the page was up
                    page.wait_for_timeout(3000)
                    assert page.get_by_text(NEWS).count() == 0, "JupyterLab asks for news"
                    view = page.evaluate(VIEW)
                    heights = {}
                    for title in dash.tab_titles():
                        dash.open_tab(title)
                        page.wait_for_timeout(300)
                        heights[title] = dash.dashboard_height()
                    # the whole dashboard within the notebook's view, whichever tab
                    assert max(heights.values()) <= min(view, height), (width, view, heights)
                    dash.open_tab("Heatmaps")
                    assert dash.heatmap_source().startswith("block-size study")
                    assert dash.heatmap_cells() > 0
                    page.wait_for_timeout(500)
                    labels = page.evaluate(LABELS)
                    assert min(labels["fonts"]) >= LEGIBLE_PX, (width, labels["fonts"][:5])
                    assert labels["overlaps"] == [], (width, labels["overlaps"])
                    # the figure within the tab: no sideways scrolling to its last layer
                    assert labels["width"] <= labels["room"], (width, labels)
                    dash.el(".wb-dashboard").scroll_into_view_if_needed()
                    dash.shot(f"heatmaps-{width}x{height}")
                    # the cell's whole block on hover
                    cell = dash.el(".wb-heatmap >> visible=true").locator(".nsewdrag").first
                    box = cell.bounding_box()
                    page.mouse.move(box["x"] + 15, box["y"] + 12)
                    page.wait_for_timeout(500)
                    hover = page.evaluate("() => [...document.querySelectorAll("
                                          "'.hoverlayer text')].map(t => t.textContent)"
                                          ".join(' ')")
                    assert "predicted" in hover and re.search(r"\d+x\d+x\d+", hover), hover
                    if width == 1280:
                        _own_space_in_the_tuning_tab(dash)
                page.close()
        finally:
            browser.close()
    shots = sorted(p.name for p in ARTIFACTS.glob("*.png") if not p.name.startswith("01-"))
    assert shots == ["heatmaps-1280x800.png", "heatmaps-1366x768.png",
                     "tuning-own-space-1280x800.png"], shots


def _own_space_in_the_tuning_tab(dash) -> None:
    """A space of one's own typed in the Tuning tab: an offered example loads (the store
    is asked for next), a wrong variable is said as workbench tune says it."""
    page = dash.page
    dash.open_tab("Tuning")
    offered = page.evaluate("() => [...document.querySelectorAll("
                            "'.wb-tuning-own-space datalist option')].map(o => o.value)")
    rowsum = next(v for v in offered if v.endswith("/rowsum.py:space"))
    field = dash.el(".wb-tuning-own-space input")
    for typed, said in ((rowsum, "give the store that holds the measurements"),
                        (rowsum + "s", "Did you mean 'space'?")):
        field.fill(typed)
        field.press("Enter")
        page.locator(".wb-tuning-note", has_text=said).first.wait_for(timeout=30_000)
    assert dash.clipped_tab_titles(".wb-dashboard .widget-label, .wb-dashboard button") == []
    # its replay from the shipped store: the table, wider than the dashboard, scrolls
    # in its own box (it ran past the dashboard's right edge)
    field.fill(rowsum)
    field.press("Enter")
    store = next(v for v in page.evaluate(
        "() => [...document.querySelectorAll('.wb-tuning-store datalist option')]"
        ".map(o => o.value)") if v.endswith("user-spaces.sqlite.xz"))
    dash.el(".wb-tuning-store input").fill(store)
    dash.el(".wb-tuning-store input").press("Enter")
    page.locator(".wb-tuning-note", has_text="press run to replay").first.wait_for(
        timeout=30_000)
    dash.el(".wb-tuning-run").click()
    page.locator(".wb-tuning-progress-label", has_text="replayed in").first.wait_for(
        timeout=120_000)
    page.locator(".wb-tuning-table table").first.wait_for(timeout=30_000)
    box = page.evaluate("""() => { const t = document.querySelector('.wb-tuning-table');
        const d = document.querySelector('.wb-dashboard').getBoundingClientRect();
        return {right: t.getBoundingClientRect().right, edge: d.right,
                wider: t.scrollWidth > t.clientWidth + 1,
                overflow: getComputedStyle(t).overflowX}; }""")
    assert box["right"] <= box["edge"] + 1, box
    # what is wider than its box scrolls there, not over the dashboard's edge
    assert not box["wider"] or box["overflow"] in ("auto", "scroll"), box
    assert "rowsum.py:space: replayed in" in dash.el(".wb-tuning-progress-label").inner_text()
    # the progress line whole ("...: replayed in 1.8 s (kept: switching" was cut)
    assert dash.clipped_tab_titles(".wb-tuning-progress-label") == []
    dash.shot("tuning-own-space-1280x800")
