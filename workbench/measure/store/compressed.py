"""Stores shipped xz-compressed, read through a decompressed cache.

The shipped measurement stores are large (tens of MB of SQLite) but compress about
thirteenfold, so ``sample_data/`` holds them as ``X.sqlite.xz``. SQLite cannot read a
compressed file, so a read-only open decompresses it once into the user's cache
(``$XDG_CACHE_HOME/workbench/stores/<sha256 of the .xz>.sqlite``) and opens that
copy. The name is the compressed file's digest, so a changed ``.xz`` never reads a
stale copy, and an unchanged one is decompressed only once. The copy is written to
a temporary file in the same folder and renamed into place, so a reader (or a
second process decompressing the same file at the same time) never sees half a copy.

A compressed store is never written: what is recorded into the cache copy would be
lost silently. Writers get :func:`unpack` (``workbench store-unpack``) for a copy of
their own.

Callers name a store by either name: :func:`resolve_store_path` maps
``X.sqlite`` to ``X.sqlite.xz`` when only the compressed file exists, so the
paths written everywhere as ``sample_data/h100/X.sqlite`` keep working.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
import tempfile
from pathlib import Path

from workbench.errors import StoreError

__all__ = [
    "COMPRESSED_SUFFIX", "cache_dir", "cached_copy", "is_compressed", "readable_file",
    "resolve_store_path", "unpack", "writable_copy_hint",
]

#: Suffix of a compressed store (``X.sqlite.xz``).
COMPRESSED_SUFFIX = ".xz"

_CHUNK = 1 << 20


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an xz-compressed store (by its suffix)."""
    return Path(path).suffix == COMPRESSED_SUFFIX


def resolve_store_path(path: str | os.PathLike[str]) -> Path | None:
    """The file that holds the store named ``path``, or None when there is none.

    ``path`` itself when it is a file; else ``path`` + ``.xz`` when that is (a
    store shipped compressed, named by its uncompressed name). Use this, not
    ``Path.is_file``, to ask whether a shipped store is there.
    """
    path = Path(path).expanduser()
    if path.is_file():
        return path
    compressed = path.with_name(path.name + COMPRESSED_SUFFIX)
    if not is_compressed(path) and compressed.is_file():
        return compressed
    return None


def writable_copy_hint(compressed: Path) -> str:
    """How to get a store one can write, said in one sentence."""
    plain = compressed.with_suffix("")
    return (f"unpack a writable copy with `workbench store-unpack {compressed} -o {plain.name}` "
            f"(or `xz -dk {compressed}`), or write to another store")


def cache_dir() -> Path:
    """Where decompressed stores are kept: ``$XDG_CACHE_HOME/workbench/stores``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    # The XDG spec says relative values are invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "workbench" / "stores"


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


def _decompress(source: Path, target: Path) -> None:
    """Decompress ``source`` into ``target`` atomically: a temporary file in
    ``target``'s folder, renamed over it once complete."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                     suffix=".part")
    try:
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a shared cache copy
        with os.fdopen(fd, "wb") as out, lzma.open(source, "rb") as data:
            shutil.copyfileobj(data, out, _CHUNK)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def cached_copy(compressed: str | os.PathLike[str]) -> Path:
    """The decompressed copy of ``compressed`` in :func:`cache_dir`, made if missing.

    Raises :class:`StoreError` when the file is missing, is not valid xz data, or
    the cache cannot be written.
    """
    compressed = Path(compressed).expanduser()
    if not compressed.is_file():
        raise StoreError(f"no measurement store at {compressed}")
    try:
        name = f"{_digest(compressed)}.sqlite"
        target = cache_dir() / name
        if not target.is_file():
            try:
                _decompress(compressed, target)
            except PermissionError:
                # a read-only home (a container, a CI runner): the temporary folder
                target = Path(tempfile.gettempdir()) / f"workbench-stores-{os.getuid()}" / name
                if not target.is_file():
                    _decompress(compressed, target)
    except (lzma.LZMAError, EOFError) as exc:
        raise StoreError(f"cannot decompress measurement store {compressed}: "
                         f"it is not valid xz data ({exc})") from None
    except OSError as exc:
        raise StoreError(f"cannot decompress measurement store {compressed}: {exc}") from None
    return target


def readable_file(path: str | os.PathLike[str]) -> Path:
    """A plain SQLite file holding the store named ``path``, for reading only: the
    file itself, or the cached copy of a compressed one (for tools that must read
    SQL directly; the workbench itself reads through ``MeasurementStore.open``)."""
    found = resolve_store_path(path)
    if found is None:
        raise StoreError(f"no measurement store at {path}")
    return cached_copy(found) if is_compressed(found) else found


def unpack(compressed: str | os.PathLike[str], output: str | os.PathLike[str]) -> Path:
    """Decompress ``compressed`` into a writable store at ``output``; refuses to
    overwrite an existing file. Returns ``output``."""
    source = resolve_store_path(compressed)
    if source is None:
        raise StoreError(f"no measurement store at {compressed}")
    if not is_compressed(source):
        raise StoreError(f"{source} is not compressed: copy it instead")
    output = Path(output).expanduser()
    if output.exists():
        raise StoreError(f"{output} exists: remove it or name another output")
    try:
        _decompress(source, output)
    except (lzma.LZMAError, EOFError) as exc:
        raise StoreError(f"cannot decompress measurement store {source}: "
                         f"it is not valid xz data ({exc})") from None
    except OSError as exc:
        raise StoreError(f"cannot unpack {source} to {output}: {exc}") from None
    return output
