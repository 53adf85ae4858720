"""Widget messages handled one at a time, whichever kernel thread receives them.

JupyterLab 4.4 and later send comm messages to kernel subshells (the
"commsOverSubshells" setting, one subshell per comm target by default), and ipykernel 7
routes a comm's next message to the thread that last sent on that comm.  Two messages
of one panel can then be handled at once, one in the main shell thread and one in a
subshell thread: the sizes box's edit arrived while the group size's edit was still
being published, and the older edit's selection was published, and drawn, last.

A panel therefore hands each of its widgets' messages to the widget under the session's
lock: the new value, the callbacks it fires and the panels they refresh form one step,
and a message that arrives meanwhile waits for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import ipywidgets as widgets


def handle_in_turn(root: widgets.Widget, lock: threading.RLock) -> None:
    """Handle the messages of ``root`` and of every widget inside it under ``lock``
    (again for a widget already handled so: nothing changes)."""
    for widget in _tree(root):
        if widget.comm is None or getattr(widget, "_in_turn_lock", None) is lock:
            continue
        widget._in_turn_lock = lock
        widget.comm.on_msg(_holding(lock, widget._handle_msg))


def _holding(lock: threading.RLock, handle: Callable[[dict], None]) -> Callable[[dict], None]:
    def handle_in_turn(msg: dict) -> None:
        with lock:
            handle(msg)
    return handle_in_turn


def _tree(root: widgets.Widget) -> Iterator[widgets.Widget]:
    yield root
    for child in getattr(root, "children", ()) or ():
        if isinstance(child, widgets.Widget):
            yield from _tree(child)
