"""The dashboard's explain panel, driven without a browser: the shipped H100 models
explain the chosen kernel; the roofline chart and the terms table follow the choices."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

from plotly.utils import PlotlyJSONEncoder  # noqa: E402

from workbench.kernels import resolve_kernel  # noqa: E402
from workbench.models import load_model  # noqa: E402
from workbench.ui import ErrorArea, ExplainPanel, Session  # noqa: E402
from workbench.ui.explain_panel import DEFAULT, ROOFLINE, SESSION  # noqa: E402
from workbench.ui.session import KernelSelection  # noqa: E402

H100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"


def select(session, kernel="finite_diff", dtype="float64", **params):
    session.selection = KernelSelection.make(resolve_kernel(kernel), dtype=dtype,
                                             params=params, group_size="16x16")


@pytest.fixture
def panel():
    session = Session()
    # the store is only read for the one configuration's measurement: no dataset load
    session.use_data(H100 / "measurements-fp64.sqlite.xz")
    select(session, n=4096)
    return ExplainPanel(session)


def test_the_default_model_explains_the_selection(panel):
    assert panel.model_choice.value.startswith(DEFAULT)
    e = panel.explanation
    assert e is not None and math.isclose(e.terms_sum_s, e.predicted_s, rel_tol=0.01)
    assert "predicted" in panel.heading.value and "limiter" in panel.heading.value
    # the store measured this configuration: beside the prediction, in words
    assert e.measured is not None and "measured" in panel.heading.value
    assert "sum of the terms" in panel.terms_table.value
    assert all(f"overlap {o.function}" in panel.summary.value for o in e.overlaps)
    # the default's subtracted smin: its terms marked in the table and said in words
    assert ", taken back (hidden)" in panel.terms_table.value
    assert "overlap smin, taken back: arithmetic (" in panel.summary.value
    names = [t.name for t in panel.figure.data]
    assert "DRAM 3,015 GB/s" in names and "float64 peak 33.5 TFLOP/s" in names
    assert any(n.startswith("predicted ") for n in names)
    assert any(n.startswith("measured ") for n in names)
    # the figure goes to the browser as strict JSON (no NaN)
    json.dumps(panel.figure.to_plotly_json(), cls=PlotlyJSONEncoder, allow_nan=False)

    # float32: arithmetic, charged and taken back, is a hair below zero; its share reads
    # 0%, not "-0%" (the browser test found it after a calibration)
    select(panel.session, dtype="float32", n=2048)
    arithmetic = sum(t.seconds for t in panel.explanation.terms
                     if t.category.value == "arithmetic")
    assert -0.005 < arithmetic / panel.explanation.predicted_s < 0
    assert "arithmetic 0%" in panel.summary.value and "-0%" not in panel.summary.value


def test_choices_move_the_explanation(panel):
    panel.model_choice.value = ROOFLINE
    assert panel.explanation.family == "roofline"
    assert panel.explanation.limiter in ("L1", "L2", "DRAM")
    select(panel.session, n=2048)
    assert panel.explanation.candidate.params_dict == {"n": 2048}
    # a new session model (a calibration's fit) is offered, and the explanation on
    # screen stays: the reader chose the roofline
    panel.session.model = load_model(H100 / "weights-linear-fp64.json")
    assert panel.model_choice.value == ROOFLINE
    assert panel.explanation.family == "roofline"
    live = [k for k in panel.model_choice.options if k.startswith(SESSION)]
    assert len(live) == 1 and "new in the model list" in panel.offer.value
    assert "unified-linear" in panel.offer.value
    # chosen, it explains, and the offer is gone
    panel.model_choice.value = live[0]
    assert panel.explanation.family == "unified-linear"
    assert panel.offer.value == ""


def test_a_calibration_keeps_the_explanation_and_offers_its_model(panel):
    """The newcomer's case: the H100's explanation open, a calibration of their laptop
    (pocl) finishes; the H100's stays, the laptop's is offered, and chosen it says in
    its chart that the laptop has no roofline (it drew a lone point on empty axes)."""
    shown = panel.heading.value
    assert "NVIDIA H100" in shown and panel.model_choice.value.startswith(DEFAULT)
    h100 = load_model(H100 / "weights-linear-fp64.json")
    laptop = replace(h100, device={**h100.device, "device": "pthread-laptop-cpu",
                                   "platform": "Portable Computing Language"})
    panel.session.model = laptop
    assert panel.heading.value == shown and panel.model_choice.value.startswith(DEFAULT)
    assert "pthread-laptop-cpu" in panel.offer.value
    panel.model_choice.value = next(k for k in panel.model_choice.options
                                    if k.startswith(SESSION))
    assert panel.explanation.device == "pthread-laptop-cpu"
    assert "pthread-laptop-cpu" in panel.heading.value and panel.offer.value == ""
    notes = [a.text for a in panel.figure.layout.annotations]
    assert len(notes) == 1 and notes[0].startswith("no roofline known for")
    # a reader following the session's model follows the next one (the H100's again)
    panel.session.model = h100
    assert panel.model_choice.value.startswith(SESSION)
    assert panel.explanation.device == "NVIDIA H100 80GB HBM3" and panel.offer.value == ""
    # a device with ceilings has no such note
    assert not any("no roofline" in (a.text or "") for a in panel.figure.layout.annotations)


def test_a_bad_selection_is_one_message():
    errors = ErrorArea()
    session = Session()
    select(session, kernel="finite_diff")          # no size given
    panel = ExplainPanel(session, errors=errors)
    assert panel.explanation is None
    assert errors.value.count("wb-error-message") == 1
