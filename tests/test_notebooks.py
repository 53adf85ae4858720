"""Every notebook runs top to bottom, headless (nbclient), once.

A notebook's cell tagged ``parameters`` holds its defaults (``LIVE = False`` ...).  The
test inserts a cell after it, tagged ``injected-parameters``, as papermill does, that
switches the live part on and makes it small; the live runs share one store in a
temporary folder, so the quick campaign is measured once for all notebooks (once per
test worker).  The shipped part runs in that same execution, every assertion the
notebook makes about the shipped data included (the Lift notebook's recomputed kNN,
the overlap notebook's tables...), and the test then checks the outputs of both parts:
one execution serves the shipped and the live checks.  Without an OpenCL device the
notebook runs as shipped (``LIVE = False``) and only the shipped checks apply.  Each
notebook has a deadline; the kernel is the test's own Python (the project's venv).
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from workbench.errors import DeviceError
from workbench.measure import list_devices

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

# Every notebook with a parameters cell gets COMMON, and its own small values from SMALL.
COMMON = {"LIVE": True}
SMALL = {
    "tour.ipynb": {"BOOTSTRAP": 20, "SHOW_DASHBOARD": True},
    "table1_unified_model.ipynb": {"BOOTSTRAP": 20},
    "table2_cross_device_weights.ipynb": {"BOOTSTRAP": 20},
    # REFIT: tests/test_calibration.py refits the shipped overlap model already
    "overlap_and_selection_2019.ipynb": {"BOOTSTRAP": 20, "REFIT": False},
    "block_size_study.ipynb": {"LIVE_GRID": 32, "LIVE_TOTAL": 64, "LIVE_MAX_BLOCKS": 6},
    "dashboard.ipynb": None,   # no parameters: it only builds the dashboard
    "tuning_exploration.ipynb": {"TPE_SEEDS": 1, "MODELS": ("linear",), "LIVE_BUDGET": 4},
    # RECHECK (a few seconds) is left on: the shipped kNN is recomputed and compared
    "lift_exploration.ipynb": {"LIVE_SIZE": 128, "LIVE_BUDGET": 3},
    "timetiled_tile_sizes.ipynb": {"LIVE_SIZE": 64, "LIVE_STEPS": 8, "LIVE_POINTS": 2},
}
# What each notebook's shipped part prints last or near its end: the shipped part ran
# through (the dashboard notebook shows a widget instead).
SHIPPED_MARKS = {
    "tour.ipynb": ("symbolic counts == brute force", "by hand == library fit",
                   "  limiter: ", "  to go faster: "),
    "table1_unified_model.ipynb": ("cross-kernel geometric mean of the relative error on "
                                   "the H100",),
    "table2_cross_device_weights.ipynb": ("DRAM stream benchmark",),
    "overlap_and_selection_2019.ipynb": ("nbody family, in-situ model: picks",),
    "block_size_study.ipynb": ("limiter: recomputed",),
    "dashboard.ipynb": (),
    "tuning_exploration.ipynb": ("every strategy replayed in",),
    "lift_exploration.ipynb": ("recomputed in", "most informative features"),
    "timetiled_tile_sizes.ipynb": ("selection vs best baseline",),
}
# Seconds each notebook may take, all cells together.  The first live notebook of a
# worker (overlap_and_selection_2019, or the first one it is given) measures the shared
# quick campaign: 72 configurations, the test kernels at six work-group shapes, and
# their counts per shape.
DEADLINE_S = {"table1_unified_model.ipynb": 150, "overlap_and_selection_2019.ipynb": 210}
DEFAULT_DEADLINE_S = 120
# the ones that take a minute or more (marked slow: CI runs them all the same)
SLOW = {"overlap_and_selection_2019.ipynb", "tuning_exploration.ipynb"}


def _notebooks() -> list[str]:
    return sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))


def _have_opencl() -> bool:
    try:
        return bool(list_devices())
    except DeviceError:
        return False


def _parameters_cell(nb) -> int | None:
    hits = [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    assert len(hits) <= 1, "at most one cell may be tagged 'parameters'"
    return hits[0] if hits else None


def _assigned_names(source: str) -> set[str]:
    return {t.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def inject_parameters(nb, overrides: dict) -> None:
    """Insert a cell setting ``overrides`` after the parameters cell (papermill style).

    Every name must already be a parameter, so that a renamed parameter breaks the test
    instead of being silently ignored.
    """
    index = _parameters_cell(nb)
    assert index is not None, "the notebook has no cell tagged 'parameters'"
    unknown = set(overrides) - _assigned_names(nb.cells[index].source)
    assert not unknown, f"not parameters of the notebook: {sorted(unknown)}"
    source = "\n".join(f"{name} = {value!r}" for name, value in overrides.items())
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(index + 1, cell)


def _text_outputs(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def test_every_notebook_has_small_parameters_for_ci():
    assert set(_notebooks()) == set(SMALL) == set(SHIPPED_MARKS), \
        "add each notebook to SMALL (its CI parameters) and SHIPPED_MARKS in " \
        "tests/test_notebooks.py"


@pytest.mark.parametrize("name", _notebooks())
def test_notebook_is_committed_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, \
                f"{name}: clear the outputs before committing"
    if SMALL.get(name) is not None:
        params = nb.cells[_parameters_cell(nb)].source
        assert "LIVE = False" in params, f"{name}: the live part must be off by default"


@pytest.fixture(scope="module")
def live_store(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("notebooks") / "live.sqlite"


def _execute(nb, name: str, deadline_s: float) -> None:
    """Run every cell of ``nb`` in a kernel started in notebooks/, within the deadline."""
    client = NotebookClient(nb, kernel_name="python3", timeout=deadline_s,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    start = time.monotonic()
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            left = deadline_s - (time.monotonic() - start)
            if left <= 0:
                pytest.fail(f"{name} ran past its {deadline_s} s deadline at cell {index}")
            client.timeout = max(1, int(left))   # what is left of the notebook's deadline
            client.execute_cell(cell, index)


def _widget_shown(nb) -> bool:
    return any("application/vnd.jupyter.widget-view+json" in out.get("data", {})
               for cell in nb.cells for out in cell.get("outputs", []))


def _check_shipped_part(name: str, nb, text: str) -> None:
    """The shipped part ran through: its closing output is there (its assertions on the
    shipped data held, or the execution would have stopped at them)."""
    for mark in SHIPPED_MARKS[name]:
        assert mark in text, f"{name}: the shipped part did not print {mark!r}"
    if name in ("tour.ipynb", "dashboard.ipynb"):
        # the dashboard was built (not the 'needs workbench.ui' note)
        assert "needs workbench.ui" not in text
        assert _widget_shown(nb)


def _check_live_part(name: str, text: str) -> None:
    assert "LIVE is False" not in text, f"{name}: the live part did not run"
    assert "measurements on" in text, f"{name}: no live measurements were reported"


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in _notebooks()])
def test_notebook_runs_once(name, live_store):
    """One execution per notebook serves the checks of both parts: the shipped part
    (what a fresh clone runs, with the notebook's own assertions on the shipped data)
    and the live part on this machine's OpenCL device."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    small = SMALL[name]
    live = small is not None and _have_opencl()
    if live:
        inject_parameters(nb, {**COMMON, "LIVE_STORE": str(live_store), **small})
    _execute(nb, name, DEADLINE_S.get(name, DEFAULT_DEADLINE_S))
    text = _text_outputs(nb)
    _check_shipped_part(name, nb, text)
    if live:
        _check_live_part(name, text)
    elif small is not None:
        assert "LIVE is False" in text, "the live part should be off by default"
        pytest.skip("no OpenCL device (install pocl-opencl-icd): the shipped part ran "
                    "and passed; the live part needs one")


def _import_live():
    import importlib.util
    import sys
    spec = importlib.util.spec_from_file_location("notebooks_live", NOTEBOOKS / "live.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_live_runs_are_reused_only_when_they_cover_the_request(tmp_path):
    if not _have_opencl():
        pytest.skip("no OpenCL device (install pocl-opencl-icd): live runs need one")
    live = _import_live()
    assert live.repo_root(NOTEBOOKS) == ROOT and live.h100_dir(NOTEBOOKS).is_dir()
    store = tmp_path / "live.sqlite"
    first = live.quick_campaign(store, kernels=("empty",), name="t", progress=False)
    again = live.quick_campaign(store, kernels=("empty",), name="t", progress=False)
    assert not first.reused and again.reused
    assert again.campaign_id == first.campaign_id and first.measurements
    assert {m.key for m in again.measurements} == {m.key for m in first.measurements}
    fresh = live.quick_campaign(store, kernels=("empty",), name="t", reuse=False,
                                progress=False)
    assert not fresh.reused and fresh.campaign_id != first.campaign_id

    from workbench.kernels import get_kernel
    spec = get_kernel("empty")
    configs = [(spec, spec.request(None, "float32", (16, 16)), {"n": n}, {})
               for n in (64, 128)]
    one = live.measure_configurations(store, configs[:1], name="c", progress=False)
    both = live.measure_configurations(store, configs, name="c", progress=False)
    assert not one.reused and not both.reused   # the finished run lacks n=128
    assert live.measure_configurations(store, configs, name="c", progress=False).reused
    assert {m.key.params_dict["n"] for m in both.measurements} == {64, 128}
