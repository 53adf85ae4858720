"""Data files shipped xz-compressed: named ``X`` everywhere, ``X.xz`` on disk.

The tracked tree stays under its 30 MB cap (issue #25) by shipping large text files
(build-info records, calibrations, older model candidates, benchmark reports) as
``X.xz``, while commands, notebooks and documents go on naming ``X``.  Every reader
of such a file resolves the name here.  Measurement stores have their own
decompressed cache (:mod:`workbench.measure.store.compressed`).
"""

from __future__ import annotations

import lzma
import os
from pathlib import Path

__all__ = ["read_shipped_text", "shipped_path"]


def shipped_path(path: str | os.PathLike[str]) -> Path:
    """``path``, or its xz copy ``path.xz`` where only that exists."""
    path = Path(path)
    packed = path.with_name(path.name + ".xz")
    return packed if not path.exists() and packed.exists() else path


def read_shipped_text(path: str | os.PathLike[str]) -> str:
    """The text of the file named ``path`` (:func:`shipped_path`), read through xz where
    its name ends in ``.xz``.  Raises ``OSError`` (``FileNotFoundError`` for none),
    ``lzma.LZMAError`` or ``EOFError`` (not xz data, or cut short) and
    ``UnicodeDecodeError``."""
    source = shipped_path(path)
    if source.suffix == ".xz":
        with lzma.open(source, "rt", encoding="utf-8") as handle:
            return handle.read()
    return source.read_text(encoding="utf-8")
