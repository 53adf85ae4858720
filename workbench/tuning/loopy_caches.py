"""Loopy's disk caches made empty and private for a block, the user's left untouched.

A timed ranking must start as cold as a live run's first ranking, yet a replay ranks
a space more than once in one process (whole, then streamed), and the user's own
loopy work fills the same caches.  Loopy keeps its disk caches (scheduling, typing,
code generation, invokers, and the ``memoize_on_disk`` transformations such as
``preprocess_program``) in pytools' ``PersistentDict``\\ s: one SQLite file per cache
in the user's cache folder (``$XDG_CACHE_HOME/pytools``, ``~/.cache/pytools``),
shared by every loopy process of the user.  Emptying them would delete the user's
entries for all of those processes; instead, for the duration of
:func:`private_loopy_caches`, each cache's connection and file are exchanged for a
fresh one in a temporary folder (the cache object stays the one loopy's code holds),
and the user's are put back after: the user's files are neither read nor written
inside the block, and keep exactly the entries they had.

Why private caches rather than loopy's caching turned off (``LOOPY_NO_CACHE``,
``loopy.CacheMode(False)``): a cold live run looks each kernel up (hashing its
key), misses, computes, and then pickles and stores the result, which later steps
of the same run may find.  Empty private caches charge exactly that; caching off
charges neither the key hashing nor the storing, nor lets one step find another's
result, so it would not time what a live run pays.

Processes forked inside the block (the counting processes) inherit the exchanged
connections, so they read and write the private files as a live run's workers share
the user's; a process forked before the block keeps the user's files, so fork the
counting processes inside it.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile

__all__ = ["loopy_disk_caches", "private_loopy_caches"]

#: what a cache is exchanged by: its SQLite connection and the file it names
_STATE = ("conn", "filename", "container_dir")


def loopy_disk_caches() -> list:
    """Every disk cache of loopy in this process (loopy imported first: importing it
    makes them all): those its modules hold and those ``memoize_on_disk`` keeps in
    ``loopy.tools.caches``."""
    import loopy  # noqa: F401 - its import creates the caches
    from pytools.persistent_dict import PersistentDict, WriteOncePersistentDict

    kinds = (PersistentDict, WriteOncePersistentDict)
    found: dict[int, object] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "loopy" or name.startswith("loopy.")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, kinds):
                found[id(value)] = value
    for value in getattr(sys.modules.get("loopy.tools"), "caches", ()):
        if isinstance(value, kinds):
            found[id(value)] = value
    return list(found.values())


def _private_twin(cache, folder: str):
    """A cache of ``cache``'s kind, name and key builder, in ``folder``, with its
    journal and sync settings."""
    with cache.mutex:
        journal = cache.conn.execute("PRAGMA journal_mode").fetchone()[0]
        synchronous = cache.conn.execute("PRAGMA synchronous").fetchone()[0]
    return type(cache)(cache.identifier, key_builder=cache.key_builder,
                       container_dir=folder, enable_wal=str(journal).lower() == "wal",
                       safe_sync=synchronous != 0)


def _exchange(cache, twin) -> None:
    with cache.mutex:
        for attr in _STATE:
            mine, theirs = getattr(cache, attr), getattr(twin, attr)
            setattr(cache, attr, theirs)
            setattr(twin, attr, mine)
        # a write-once cache also remembers recent lookups in memory
        clear = getattr(cache, "clear_in_mem_cache", None)
        if clear is not None:
            clear()


@contextlib.contextmanager
def private_loopy_caches():
    """A block in which every loopy disk cache is empty and private (a fresh file in
    a temporary folder, removed after); the user's caches come back untouched."""
    with tempfile.TemporaryDirectory(prefix="workbench-loopy-caches-") as folder:
        exchanged = []
        try:
            for cache in loopy_disk_caches():
                if cache.conn is None:
                    continue
                twin = _private_twin(cache, folder)
                _exchange(cache, twin)
                exchanged.append((cache, twin))
            yield folder
        finally:
            for cache, twin in reversed(exchanged):
                _exchange(cache, twin)
                # the twin now holds the private connection: close it before its
                # folder goes
                with twin.mutex:
                    twin.conn.close()
                    twin.conn = None
