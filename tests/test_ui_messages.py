"""Widget messages handled by two kernel threads at once.

JupyterLab 4.4 and later send comm messages to a kernel subshell (its
"commsOverSubshells" setting, one subshell per comm target by default), and ipykernel 7
routes a comm's next message to the thread that last sent on that comm: the main shell
thread or the subshell's.  In the real-browser test the group-size edit was handled in
the main thread while the sizes edit, typed a second later, was handled in the
subshell's thread, both inside the picker at once.  These tests hand messages to the
widgets' comms as the kernel does, from two threads, and hold the first thread where a
loaded machine can deschedule it.
"""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("ipywidgets")

from workbench.ui import KernelPicker, PropertiesPanel, Session  # noqa: E402
from workbench.ui import properties_panel  # noqa: E402
from workbench.ui.session import KernelSelection  # noqa: E402

#: how long the first thread waits for the second one to overtake it (s); with the
#: fix the second thread waits its turn, so each test pays this once
OVERTAKE_S = 0.5


def _update(widget, **state) -> None:
    """A frontend's ``update`` of ``widget``, handed to its comm as the kernel does."""
    widget.comm.handle_msg({"content": {"data": {"method": "update", "state": state,
                                                 "buffer_paths": []}},
                            "buffers": []})


def _in_thread(target, name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def _race_two_edits(picker, first_is_slow: threading.Event) -> None:
    """The group-size edit on the main shell, then, while it is held up (it set
    ``first_is_slow``), the sizes edit on a subshell; both run to their end."""
    first = _in_thread(lambda: _update(picker.group_size, value="16x16"), "main-shell")
    assert first_is_slow.wait(5)
    second = _in_thread(lambda: _update(picker.params, value="n=2048"), "subshell")
    first.join(10)
    second.join(10)


@pytest.fixture
def picker():
    session = Session()
    chosen = KernelPicker(session, kernel="finite_diff", group_size="32x16", devices=())
    assert session.selection.params_text == "n=1024"
    return chosen


def test_the_selection_follows_the_last_edit(picker, monkeypatch):
    """The group size's message is handled (main thread) while the sizes' message,
    sent after it, arrives (subshell thread); the first thread, descheduled between
    reading the boxes and publishing, must not publish the old sizes over the new."""
    session = picker.session
    in_publish, overtaken = threading.Event(), threading.Event()
    make = KernelSelection.make.__func__

    def slow_make(cls, *args, **kwargs):
        if threading.current_thread().name == "main-shell":
            in_publish.set()
            overtaken.wait(OVERTAKE_S)
        return make(cls, *args, **kwargs)

    monkeypatch.setattr(KernelSelection, "make", classmethod(slow_make))
    session.observe(lambda _: threading.current_thread().name == "subshell"
                    and overtaken.set(), names="selection")

    _race_two_edits(picker, in_publish)
    assert picker.errors.value == ""
    assert (picker.params.value, picker.group_size.value) == ("n=2048", "16x16")
    assert session.selection.params_text == "n=2048", "an older edit was published last"
    assert session.selection.group_size_text == "16x16"


def test_a_panel_shows_the_last_selection(picker, monkeypatch):
    """A panel's refresh for the group-size edit, slow under load, must not finish
    after the refresh for the sizes edit that followed it (the Explain tab read
    n=1024 while the sizes box read n=2048)."""
    session = picker.session
    panel = PropertiesPanel(session, show_picker=False)
    counting, overtaken = threading.Event(), threading.Event()
    count = properties_panel.kernel_properties

    def slow_count(*args, **kwargs):
        if threading.current_thread().name == "main-shell":
            counting.set()
            overtaken.wait(OVERTAKE_S)
        return count(*args, **kwargs)

    monkeypatch.setattr(properties_panel, "kernel_properties", slow_count)
    panel.heading.observe(lambda _: threading.current_thread().name == "subshell"
                          and overtaken.set(), names="value")

    _race_two_edits(picker, counting)
    assert panel.errors.value == ""
    assert session.selection.params_text == "n=2048"
    assert "n=2048" in panel.heading.value, panel.heading.value


def test_messages_wait_for_whoever_holds_the_session(picker):
    """A message that arrives while another thread works on the session (a
    background load publishing, a notebook cell calling the picker) is handled
    after it, whole."""
    session = picker.session
    with session.lock:
        sender = _in_thread(lambda: _update(picker.params, value="n=4096"), "subshell")
        sender.join(0.2)
        assert sender.is_alive()
        assert picker.params.value == "n=1024"    # not even the box changed yet
    sender.join(10)
    assert session.selection.params_text == "n=4096"
