"""Where a panel's failures appear: one readable line each, never a traceback.

Widget callbacks run inside the notebook's kernel; an exception escaping one would
print a traceback into some unrelated cell's output (or vanish) and leave the panel
half updated.  Every callback therefore runs inside :meth:`ErrorArea.catching`.
"""

from __future__ import annotations

import contextlib
import html
import logging
import threading
import traceback
from collections.abc import Callable, Iterator

import ipywidgets as widgets

from workbench.errors import WorkbenchError

log = logging.getLogger("workbench.ui")

MAX_MESSAGE_CHARS = 600


def one_line(error: BaseException | str) -> str:
    """A user's mistake reads as its own message; anything else also names its type."""
    if isinstance(error, str):
        text = error
    else:
        text = str(error) or type(error).__name__
        if not isinstance(error, WorkbenchError):
            text = f"{type(error).__name__}: {text}"
    text = " ".join(text.split())  # one line, whatever the message's layout
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 3] + "..."


class ErrorArea(widgets.HTML):
    """The ``wb-error`` area: the latest failure of each source, until it succeeds.

    Several panels may share one area (the dashboard does); a source's success clears
    only its own message.  ``last_traceback`` keeps the full traceback of the latest
    unexpected (non-workbench) error for whoever debugs the panel.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_class("wb-error")
        self._messages: dict[str, str] = {}
        self._lock = threading.Lock()  # callbacks of a background calibration write too
        self.last_traceback = ""

    @property
    def messages(self) -> dict[str, str]:
        """Source -> message currently shown."""
        return dict(self._messages)

    @property
    def text(self) -> str:
        """Everything shown, as plain text (one line per source)."""
        return "\n".join(f"{s}: {m}" if s else m for s, m in self._messages.items())

    def show(self, error: BaseException | str, source: str = "") -> None:
        if isinstance(error, BaseException) and not isinstance(error, WorkbenchError):
            self.last_traceback = "".join(traceback.format_exception(error))
            log.debug("unexpected error in %s", source or "a panel", exc_info=error)
        with self._lock:
            self._messages[source] = one_line(error)
            self._render()

    def clear(self, source: str = "") -> None:
        with self._lock:
            if self._messages.pop(source, None) is not None:
                self._render()

    def clear_all(self) -> None:
        with self._lock:
            self._messages.clear()
            self._render()

    @contextlib.contextmanager
    def catching(self, source: str = "") -> Iterator[None]:
        """Run a callback's body: success clears ``source``'s message, failure shows it."""
        try:
            yield
        except Exception as err:  # noqa: BLE001 - nothing may escape into the kernel
            self.show(err, source)
        else:
            self.clear(source)

    def guard(self, source: str, callback: Callable) -> Callable:
        """``callback`` wrapped in :meth:`catching`, for ``observe`` and ``on_click``."""
        def guarded(*args, **kwargs):
            with self.catching(source):
                callback(*args, **kwargs)
        return guarded

    def _render(self) -> None:
        lines = [f'<div class="wb-error-message">&#9888; '
                 f'{html.escape((f"{s}: " if s else "") + m, quote=False)}</div>'
                 for s, m in self._messages.items()]
        self.value = (f'<div style="color:#b00020">{"".join(lines)}</div>'
                      if lines else "")
