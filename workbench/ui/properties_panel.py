"""Property counts of the chosen kernel at the chosen sizes, with the symbolic form
(one exact expression per property, valid for every size) on demand."""

from __future__ import annotations

import html

import ipywidgets as widgets
import pandas as pd

from workbench.properties import Granularity, feature_label, kernel_properties
from workbench.ui.errors_view import ErrorArea
from workbench.ui.html_table import render_table
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.picker import KernelPicker
from workbench.ui.session import KernelSelection, Session

#: Longer symbolic counts (barvinok's piecewise quasi-polynomials can run to
#: thousands of characters) are cut in the table; ``properties.symbolic`` has them whole.
MAX_SYMBOLIC_CHARS = 1500


class PropertiesPanel(widgets.VBox):
    """The counts table (``wb-properties-table``) of the session's kernel selection.

    On its own (no ``session``) it shows a picker of its own, set up from the keyword
    arguments; in the dashboard the shared picker drives it.
    """

    def __init__(self, session: Session | None = None, *, kernel: str | None = None,
                 variant: str | None = None, params: str | None = None,
                 group_size: str | None = None, granularity: str = "workitem",
                 subgroup_size: int = 32, show_picker: bool | None = None,
                 errors: ErrorArea | None = None):
        own_session = session is None
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self.properties = None          # KernelProperties of the selection
        self.counts: dict[str, int] = {}

        self.granularity = widgets.ToggleButtons(
            options=[g.value for g in Granularity], value=Granularity(granularity).value,
            style={"button_width": "90px"}, tooltips=["counts per work item",
                                                      "counts per sub-group"])
        self.granularity.add_class("wb-granularity")
        self.subgroup_size = widgets.BoundedIntText(value=subgroup_size, min=1, max=1024,
                                                    description="sub-group",
                                                    layout=widgets.Layout(width="160px"))
        self.subgroup_size.add_class("wb-subgroup-size")
        self.show_symbolic = widgets.Checkbox(value=False, description="symbolic form",
                                              indent=False)
        self.show_symbolic.add_class("wb-show-symbolic")
        self.heading = widgets.HTML()
        self.table = widgets.HTML()
        self.table.add_class("wb-properties-table")

        children = []
        if show_picker or (show_picker is None and own_session):
            self.picker = KernelPicker(self.session, kernel=kernel, variant=variant,
                                       params=params, group_size=group_size,
                                       errors=self.errors)
            children.append(self.picker)
        else:
            self.picker = None
        children += [widgets.HBox([widgets.Label("count per"), self.granularity,
                                   self.subgroup_size, self.show_symbolic]),
                     self.heading, self.table]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-properties-panel")

        refresh = self.errors.guard("properties", lambda *_: self.refresh())
        self.session.observe(refresh, names="selection")
        for w in (self.granularity, self.subgroup_size, self.show_symbolic):
            w.observe(refresh, names="value")
        refresh()
        handle_in_turn(self, self.session.lock)

    def refresh(self) -> None:
        """Recount for the current selection (raises on bad input; callbacks catch)."""
        with self.session.lock:  # a newer selection is drawn after this one, not before
            self._refresh()

    def _refresh(self) -> None:
        selection = self.session.selection
        subgroup = self.granularity.value == Granularity.SUBGROUP.value
        self.subgroup_size.layout.display = None if subgroup else "none"
        if selection is None:
            self._clear("choose a kernel")
            return
        try:
            self.properties = kernel_properties(
                selection.spec, variant=selection.variant, dtype=selection.dtype,
                group_size=selection.group_size, granularity=self.granularity.value,
                subgroup_size=self.subgroup_size.value if subgroup else None)
            self.counts = self.properties.evaluate_named(selection.params_dict)
        except Exception:
            self._clear("no counts: see the message")
            raise
        # the table first and the heading last: a reader (or a browser test) that sees
        # the new heading sees the new counts with it
        self.table.value = self._render()
        self.heading.value = _heading(selection, self.properties)

    def _render(self) -> str:
        rows = []
        for feature in self.properties.features:
            row = {"property": feature_label(feature), "name": feature.name,
                   "count": f"{self.counts[feature.name]:,}"}
            if self.show_symbolic.value:
                text = self.properties.symbolic(feature)
                if len(text) > MAX_SYMBOLIC_CHARS:
                    text = (text[:MAX_SYMBOLIC_CHARS]
                            + f" ... ({len(text) - MAX_SYMBOLIC_CHARS} more characters)")
                row["symbolic"] = text
            rows.append(row)
        return render_table(pd.DataFrame(rows), numeric=("count",),
                            code=("name", "symbolic"), wrap=("symbolic",),
                            empty="no properties")

    def _clear(self, why: str) -> None:
        self.properties, self.counts = None, {}
        self.heading.value = ""
        self.table.value = f"<i>{html.escape(why)}</i>"


def _heading(selection: KernelSelection, props) -> str:
    return (f"<b>{html.escape(selection.name)}</b> variant {html.escape(selection.variant)},"
            f" {selection.dtype}, group {html.escape(selection.group_size_text)}, "
            f"{html.escape(selection.params_text) or 'no parameters'}; counts per "
            f"{props.granularity.value}")
