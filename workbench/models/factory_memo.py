"""The user's ``lp.make_kernel`` call, made once per distinct set of arguments while a
factory point is built for counting.

The probes of a ``kernel(point)`` factory space differ in integer knobs that the
factory applies as transformations (``lp.split_iname``, ``lp.add_prefetch``); the
kernel it starts from is ``lp.make_kernel`` on the same arguments at every probe
(section 29 of ``sample_data/h100/structure-ranking.md``: 11 % of a ranking's
processor time, most of it parsing).  :func:`memoized_make_kernel` replaces
``loopy.make_kernel`` while a point builds and returns, for arguments it has seen, a
fresh shallow copy of the kernel made the first time: the same immutable
instructions, arguments and ISL sets, in new containers, so that a factory changing
its kernel's lists in place changes nothing kept here.

The key is the arguments' pickle (``1`` and ``1.0``, or two different closures,
never share it); arguments that cannot be pickled, or an ISL object among them, are
passed to loopy unmemoized, as is a call without ``lang_version``, which loopy reads
from its caller's module, once that has been resolved as loopy would."""

from __future__ import annotations

import contextlib
import functools
import pickle
import sys
import threading
import weakref
from collections import OrderedDict

import loopy

#: distinct make_kernel calls kept per space; a factory space makes one or a few
MEMO_SIZE = 16

#: the memo of builds not tied to a space
_MEMO: OrderedDict[bytes, object] = OrderedDict()
#: each space's own, dropped with it (a process ranks many spaces in turn: kernels of
#: spaces done with, kept alive, cost the garbage collector more than they save)
_SPACE_MEMOS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: a ranking may count in a thread (the early start) while another builds a kernel
_LOCK = threading.Lock()
_ORIGINAL = loopy.make_kernel


def _caller_lang_version(frame_globals) -> object:
    from loopy.version import LANGUAGE_VERSION_SYMBOLS

    for symbol in LANGUAGE_VERSION_SYMBOLS:
        if symbol in frame_globals:
            return frame_globals[symbol]
    return None


def _key(args, kwargs) -> bytes | None:
    import islpy

    def plain(value) -> bool:
        if isinstance(value, (list, tuple)):
            return all(plain(v) for v in value)
        if isinstance(value, dict):
            return all(plain(v) for v in value.values())
        return not isinstance(value, (islpy.BasicSet, islpy.Set, islpy.Map,
                                      islpy.BasicMap, islpy.Context))

    if not plain(list(args)) or not plain(kwargs):
        return None
    try:
        return pickle.dumps((args, sorted(kwargs.items())), protocol=4)
    except Exception:  # noqa: BLE001 - anything unpicklable: not memoized
        return None


def fresh_copy(program):
    """``program`` (a one-kernel translation unit) with its kernel's mutable containers
    copied: what loopy transformations read and replace, never the memo's."""
    kernel = program.default_entrypoint
    copy = kernel.copy(
        domains=list(kernel.domains), instructions=list(kernel.instructions),
        args=list(kernel.args), temporary_variables=dict(kernel.temporary_variables),
        inames=dict(kernel.inames))
    return program.with_kernel(copy)


def _make_kernel(memo, *args, **kwargs):
    if kwargs.get("lang_version") is None:
        version = _caller_lang_version(sys._getframe(1).f_globals)
        if version is None:
            return _ORIGINAL(*args, **kwargs)   # loopy's warning and fallback version
        kwargs["lang_version"] = version
    key = _key(args, kwargs)
    if key is None:
        return _ORIGINAL(*args, **kwargs)
    with _LOCK:
        made = memo.get(key)
        if made is not None:
            memo.move_to_end(key)
    if made is None:
        made = _ORIGINAL(*args, **kwargs)
        with _LOCK:
            memo[key] = made
            while len(memo) > MEMO_SIZE:
                memo.popitem(last=False)
    return fresh_copy(made)


@contextlib.contextmanager
def memoized_make_kernel(space=None):
    """While inside, ``loopy.make_kernel`` (as ``lp.make_kernel``) is memoized, in
    ``space``'s own memo where one is given."""
    if loopy.make_kernel is not _ORIGINAL:     # nested, or patched by someone else
        yield
        return
    memo = _MEMO
    if space is not None:
        with _LOCK:
            try:
                memo = _SPACE_MEMOS.setdefault(space, OrderedDict())
            except TypeError:       # no weak reference to it: the process's memo
                pass
    # a partial adds no Python frame: loopy's and the memo's look at the caller's module
    loopy.make_kernel = functools.partial(_make_kernel, memo)
    try:
        yield
    finally:
        loopy.make_kernel = _ORIGINAL
