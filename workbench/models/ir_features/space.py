"""The IR features of a tuning space's points, one row per point.

A space with templates (:mod:`workbench.kernels.space`) is read once per structure:
the template's features are symbolic in the point's numbers, and one vectorized
evaluation gives every point of that structure.  A point's kernel is its template
with the numbers fixed, so its loops and guards are those code generation keeps for
them.  A space that only builds kernels point by point has each point's kernel read
on its own, at loopy's cost.

Reading a template is most of the cost (loopy's preprocessing and counting, a
fraction of a second each), so the structures are read in parallel, one worker
process per core (:func:`~workbench.models.candidate_features.rank_jobs`), and each
structure's rows are kept on disk (``$XDG_CACHE_HOME/workbench/ir-features``), keyed
by the code that reads features and builds kernels, the space and the points'
numbers (:func:`_rows_key`): a second session on the same space reads them without
building a template.  (A template function of a user's file is keyed by that file;
one that calls code in another of the user's modules is not, so clear the cache
after editing such a module.)
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import os
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.kernels.space import Point, TuningSpace
from workbench.models.ir_features.extract import symbolic_ir_features
from workbench.models.ir_features.features import FEATURE_ORDER


def _values(space: TuningSpace, point: Point, accepted) -> dict[str, int]:
    """The point's sizes and numbers that its kernel (or template) takes."""
    numbers = dict(space.problem)
    if space.template is not None:
        numbers.update(space.bindings(point))
    return {k: v for k, v in numbers.items() if k in accepted}


#: ``WORKBENCH_RANKING_CACHE=0``: read and keep nothing on disk (fitted IR models
#: included, :func:`workbench.tuning.ir_training.fitted_model`), so that every ranking
#: pays its whole first-session cost (a benchmark's cold figures).
CACHE_ENV_VAR = "WORKBENCH_RANKING_CACHE"


def caching() -> bool:
    """Whether rankings read and keep what they computed on disk (see
    :data:`CACHE_ENV_VAR`)."""
    return os.environ.get(CACHE_ENV_VAR, "1").strip() not in ("0", "no", "off", "false")


def cache_dir() -> Path:
    """Where a structure's feature rows are kept (next to the decompressed stores)."""
    from workbench.measure.store.compressed import cache_dir as stores

    return stores().parent / "ir-features"


@functools.lru_cache(maxsize=None)
def _files_digest(folder: Path, pattern: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.glob(pattern)):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _source_digest(path: str | None) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else ""
    except OSError:
        return ""


def code_digest() -> str:
    """The hash of this package's code: what reads features and fits its models."""
    return _files_digest(Path(__file__).parent, "*.py")


def _rows_key(space: TuningSpace, structure: tuple, params: dict[str, np.ndarray]) -> str:
    """The cache key of one structure's rows, known before its template is built
    (building a template parses its instructions: the larger part of a second
    session's cost): the code that reads features and builds kernels (this package,
    :mod:`workbench.kernels`, the file that defines the space's template), the
    space's name, description and problem, the structure and the points' numbers."""
    import inspect

    import workbench.kernels

    try:
        defined_in = inspect.getsourcefile(space.template)
    except TypeError:
        defined_in = None
    digest = hashlib.sha256()
    digest.update(code_digest().encode())
    digest.update(_files_digest(Path(workbench.kernels.__file__).parent, "**/*.py").encode())
    digest.update(_source_digest(defined_in).encode())
    digest.update(repr((space.name, space.description, sorted(space.problem.items()),
                        structure, [f.value for f in FEATURE_ORDER])).encode())
    for name in sorted(params):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(params[name], dtype=np.int64).tobytes())
    return digest.hexdigest()[:40]


def _read_rows(key: str, count: int) -> np.ndarray | None:
    if not caching():
        return None
    try:
        rows = np.load(cache_dir() / f"{key}.npy", allow_pickle=False)
    except (OSError, ValueError):
        return None
    return rows if rows.shape == (count, len(FEATURE_ORDER)) else None


def _write_rows(key: str, rows: np.ndarray) -> None:
    if not caching():
        return
    path = cache_dir() / f"{key}.npy"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial.npy")
        np.save(partial, rows, allow_pickle=False)
        os.replace(partial, path)
    except OSError:
        pass       # a read-only cache: read again next time


def _structure_rows(space: TuningSpace, structure: tuple, params: dict[str, np.ndarray],
                    count: int) -> np.ndarray:
    """The feature rows of one structure's points (``params``: their numbers)."""
    template = space.template_for(structure)
    features = symbolic_ir_features(template.kernel)
    used = {k: v for k, v in params.items() if k in features.parameters}
    # a point's kernel is its template with the numbers fixed
    values = features.evaluate(used, fixed=template.symbols)
    return np.column_stack([np.broadcast_to(np.asarray(values[f], dtype=float), (count,))
                            for f in FEATURE_ORDER])


_FORKED: tuple = ()


def _forked_rows(i: int):
    try:
        return i, _structure_rows(*_FORKED[i]), None
    except Exception as err:  # noqa: BLE001 - raised again in the parent, as it was
        return i, None, err


class _Reading:
    """Structures' rows being read by worker processes, one per core when there are
    several (fork: a worker inherits the space, and builds the templates it reads:
    their kernels hold what does not pickle); :meth:`rows` waits for them, :meth:`cancel` stops the workers."""

    def __init__(self, todo: list[tuple]):
        global _FORKED
        from workbench.models.candidate_features import rank_jobs

        self.todo, self.pool = todo, None
        jobs = min(rank_jobs(), len(todo))
        if jobs < 2:
            return
        _FORKED = tuple(todo)
        try:
            self.pool = multiprocessing.get_context("fork").Pool(jobs)
        finally:
            _FORKED = ()             # the workers have their copy
        self.pending = self.pool.imap_unordered(_forked_rows, range(len(todo)))

    def rows(self) -> list[np.ndarray]:
        """Each structure's rows, in ``todo``'s order."""
        if self.pool is None:
            return [_structure_rows(*t) for t in self.todo]
        out: list = [None] * len(self.todo)
        try:
            for i, rows, err in self.pending:
                if err is not None:
                    raise err
                out[i] = rows
        finally:
            self.cancel()
        return out

    def cancel(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


class StartedFeatures:
    """:func:`space_ir_features` begun by :func:`space_ir_features_started`: the
    structures not in the cache are being read by worker processes while the
    caller does other work (fitting a model); :meth:`frame` waits and gives the
    frame, :meth:`cancel` gives up."""

    def __init__(self, points, table, pending, reading, per_point=None):
        self._points, self._table, self._pending = points, table, pending
        self._reading, self._per_point = reading, per_point

    def frame(self) -> pd.DataFrame:
        if self._per_point is not None:
            self._per_point()
        rows = self._reading.rows() if self._reading is not None else []
        for (at, key), values in zip(self._pending, rows):
            self._table[at] = values
            _write_rows(key, values)
        return pd.DataFrame(self._table, columns=[f.value for f in FEATURE_ORDER],
                            index=pd.Index([p.label for p in self._points],
                                           name="point"))

    def cancel(self) -> None:
        if self._reading is not None:
            self._reading.cancel()


def space_ir_features(space: TuningSpace, points: Sequence[Point] | None = None
                      ) -> pd.DataFrame:
    """The IR features of ``points`` (default: every valid point) of ``space``.

    One row per point, indexed by its label; one float column per
    :class:`~workbench.models.ir_features.features.IRFeature` (named by its value),
    in Table 1's order.
    """
    return space_ir_features_started(space, points).frame()


def space_ir_features_started(space: TuningSpace, points: Sequence[Point] | None = None
                              ) -> StartedFeatures:
    """:func:`space_ir_features`, begun: the structures not in the cache are being
    read by worker processes when this returns (see :class:`StartedFeatures`)."""
    points = list(points if points is not None else space.points())
    table = np.empty((len(points), len(FEATURE_ORDER)))
    if space.template is None:
        def per_point() -> None:
            for i, point in enumerate(points):
                features = symbolic_ir_features(space.build(point))
                table[i] = features.vector(_values(space, point, features.accepted)
                                           ).as_array()
        return StartedFeatures(points, table, [], None, per_point)
    by_structure: dict[tuple, list[int]] = defaultdict(list)
    for i, point in enumerate(points):
        by_structure[space.structure_of(point)].append(i)
    todo, pending = [], []
    for structure, rows in by_structure.items():
        bound = [_bindings(space, points[i]) for i in rows]
        params = {name: np.array([b[name] for b in bound]) for name in bound[0]}
        key = _rows_key(space, structure, params)
        cached = _read_rows(key, len(rows))
        if cached is not None:
            table[rows] = cached
            continue
        todo.append((space, structure, params, len(rows)))
        pending.append((rows, key))
    return StartedFeatures(points, table, pending, _Reading(todo) if todo else None)


def _bindings(space: TuningSpace, point: Point) -> dict[str, int]:
    """Every number a point gives its template: the problem sizes and its bindings."""
    numbers = dict(space.problem)
    numbers.update(space.bindings(point))
    return {k: int(v) for k, v in numbers.items() if isinstance(v, (int, np.integer))}
