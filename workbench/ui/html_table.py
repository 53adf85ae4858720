"""Small HTML tables for the panels' ``widgets.HTML`` (styled inline: the notebook's
own table styles do not reach into widgets)."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

STYLE = ("<style>.wb-table{border-collapse:collapse;font-size:12px;margin:4px 0}"
         ".wb-table th{text-align:left;border-bottom:2px solid #999;padding:2px 8px}"
         ".wb-table td{border-bottom:1px solid #ddd;padding:2px 8px;vertical-align:top}"
         ".wb-table td.num{text-align:right;font-variant-numeric:tabular-nums;"
         "white-space:nowrap}"
         ".wb-table code{font-size:11px;white-space:nowrap}"
         ".wb-table code.wrap{white-space:pre-wrap;word-break:break-all}"
         "</style>")


def render_table(frame: pd.DataFrame, *, formats: Mapping[str, Callable] | None = None,
                 numeric: Sequence[str] = (), code: Sequence[str] = (),
                 wrap: Sequence[str] = (), empty: str = "nothing to show") -> str:
    """``frame`` as an escaped HTML table; ``formats`` maps a column to a formatter,
    ``code`` columns are set in monospace (``wrap``: broken anywhere, for formulas)."""
    if frame.empty:
        return f'<div class="wb-empty"><i>{html.escape(empty)}</i></div>'
    formats = dict(formats or {})
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, row):
            text = html.escape(formats[column](value) if column in formats else _plain(value))
            if column in code:
                text = f'<code class="wrap">{text}</code>' if column in wrap \
                    else f"<code>{text}</code>"
            css = ' class="num"' if column in numeric else ""
            cells.append(f"<td{css}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'{STYLE}<table class="wb-table"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _plain(value) -> str:
    if isinstance(value, float):
        return "" if value != value else f"{value:.4g}"
    return str(value)


def seconds(value: float) -> str:
    return "" if value != value else f"{value:.3e}"


def percent(value: float) -> str:
    return "" if value != value else f"{value:.1%}"


def low_or_high(value: float) -> str:
    """A signed relative error in words: ``-0.423`` -> ``"42.3% low"`` (predicted
    below measured), ``0.162`` -> ``"16.2% high"``: no minus sign to misread as a
    negative time."""
    if value != value:
        return ""
    if round(abs(value), 3) == 0:
        return "exact"
    return f"{abs(value):.1%} {'low' if value < 0 else 'high'}"


def milliseconds(value: float) -> str:
    return "" if value != value else f"{value:.4g}"
