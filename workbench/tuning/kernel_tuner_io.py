"""Kernel Tuner cache files: a measured space out to Kernel Tuner, and back.

Kernel Tuner keeps what it measures in a JSON *cache file* (``tune_kernel(...,
cache=FILE)``) and replays its strategies from one in simulation mode, as
:mod:`.replay` does from the store.  :func:`export_cache` writes the file Kernel
Tuner 1.5 writes itself (``process_cache``/``store_cache``/``read_cache`` in its
``util.py``) so that its strategies run on the workbench's measurements:
``kernel_tuner.tune_cache(FILE)``, or ``tune_kernel(kernel_name, "", problem_size,
[], tune_params, restrictions=..., cache=FILE, simulation_mode=True)``, whose
restrictions must leave out every point the file lacks (it raises for those).
:func:`import_cache` reads such a file back, Kernel Tuner's own included.

Header: ``device_name`` and ``kernel_name`` (Kernel Tuner checks the latter against
the call), ``problem_size`` (the space's sizes in order, ``[2048]``; it too must
match), ``tune_params_keys`` (the order of the keys), ``tune_params``, ``objective``
(``["time"]``, a list as 1.5 writes it); no schema version, since the released
format has none; a ``workbench`` block (space, problem), which Kernel Tuner ignores.

Entries are keyed ``",".join(str(v) ...)``, as Kernel Tuner looks them up
(``"32,16,8,4,local"``: strings and booleans are keyed by ``str`` and stay strings
and booleans in the entry), and hold the point's values and, in **milliseconds**:

* ``time``: the workbench's time (minimum of the runs after the warm-up ones; Kernel
  Tuner's own is their mean), ``times``: every stored run;
* ``compile_time``: transform + codegen + build, everything between a point and a
  runnable kernel.  Kernel Tuner's simulated tuning time (``simulated_time``, the
  ``time_limit`` budget) sums ``compile_time + verification_time +
  benchmark_time`` only; in ``framework_time``, which the simulation overwrites with
  its own overhead, loopy's work, most of a point's cost here, would be lost.  The
  split is kept in ``transform_time``, ``codegen_time`` and ``build_time`` (extra
  keys, which Kernel Tuner passes through) for the import;
* ``benchmark_time``: run; ``verification_time``: verify (a tuning cost for Kernel
  Tuner when it verifies, not in :attr:`Evaluation.cost_s`);
* ``strategy_time``, ``framework_time``: 0 (Kernel Tuner measures its own);
  ``timestamp``: the export's, as ``str(datetime)`` like Kernel Tuner's.

A failed point has Kernel Tuner's error name in ``__error__`` (as 1.4+ writes) and
in ``time`` (as 1.3 writes; 1.4+ still reads it): ``CompilationFailedConfig`` for a
failed build, ``RuntimeFailedConfig`` for a failed launch or a wrong result (Kernel
Tuner aborts on a wrong result: ``workbench_status`` keeps ours).  ``InvalidConfig``
(a shape Kernel Tuner would not launch) reads back as a launch failure.

Reading back divides by 1000; a file without the split (Kernel Tuner's own) gives
its ``compile_time`` as the build, and its ``time`` (a mean) as the point's time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from workbench.errors import TuningError
from workbench.measure.store import Status
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.space import Point, TuningSpace, Value

_FAILED = {Status.BUILD_FAILED: "CompilationFailedConfig",
           Status.LAUNCH_FAILED: "RuntimeFailedConfig",
           Status.WRONG_RESULT: "RuntimeFailedConfig"}
_ERROR_STATUS = {"CompilationFailedConfig": Status.BUILD_FAILED,
                 "RuntimeFailedConfig": Status.LAUNCH_FAILED,
                 "InvalidConfig": Status.LAUNCH_FAILED,
                 "ErrorConfig": Status.LAUNCH_FAILED}
_SPLIT = {Cost.TRANSFORM: "transform_time", Cost.CODEGEN: "codegen_time",
          Cost.BUILD: "build_time"}
_FIELDS = {Cost.RUN: "benchmark_time", Cost.VERIFY: "verification_time"}
_RESERVED = {"time", "times", "compile_time", "strategy_time", "framework_time",
             "timestamp", "__error__", "workbench_status", "grid_size_x", "grid_size_y",
             "grid_size_z", *_SPLIT.values(), *_FIELDS.values()}

Evaluations = Mapping[str, Evaluation] | Iterable[Evaluation]


def cache_key(point: Point) -> str:
    """Kernel Tuner's key of a point: its values as ``str``, joined by commas."""
    return ",".join(str(v) for _, v in point.items)


def export_cache(space: TuningSpace, evaluations: Evaluations, path: str | Path, *,
                 device_name: str, kernel_name: str | None = None,
                 problem_size: Sequence[int] | int | None = None) -> Path:
    """Write the evaluations of points of ``space`` as a Kernel Tuner cache file."""
    clash = sorted(_RESERVED & set(space.tune_params))
    if clash:
        raise TuningError(f"space {space.name!r}: parameter {clash[0]!r} is a name "
                          "that Kernel Tuner reserves")
    chosen: dict[str, tuple[Point, Evaluation]] = {}
    for e in evaluations.values() if isinstance(evaluations, Mapping) else evaluations:
        point = space.point(e.point.as_dict())  # raises for a point not of the space
        if point.label in chosen:
            raise TuningError(f"point {point.label} is evaluated twice")
        chosen[point.label] = (point, e)
    if not chosen:
        raise TuningError(f"no evaluation of space {space.name!r} to export")
    header = {"device_name": device_name, "kernel_name": kernel_name or space.name,
              "problem_size": list(space.problem.values()) if problem_size is None
              else problem_size, "tune_params_keys": list(space.tune_params),
              "tune_params": {k: list(v) for k, v in space.tune_params.items()},
              "objective": ["time"],
              "workbench": {"space": space.name, "problem": dict(space.problem)},
              "cache": {}}
    stamp = str(datetime.now(timezone.utc))
    # Kernel Tuner's layout: the header, one entry a line, and "}\n}" to close
    text = json.dumps(header, indent="")[:-3]
    try:
        for p in space.points():
            if p.label in chosen:
                entry = {cache_key(p): _entry(*chosen[p.label], stamp)}
                text += "\n" + json.dumps(entry, allow_nan=False)[1:-1] + ","
    except ValueError as err:
        raise TuningError(f"space {space.name!r}: cannot write {err}") from None
    path = Path(path)
    path.write_text(text[:-1] + "}\n}\n")
    return path


def _entry(point: Point, e: Evaluation, stamp: str) -> dict[str, object]:
    error = None if e.ok else _FAILED.get(e.status, "RuntimeFailedConfig")
    split = {k: float(e.costs[k]) for k in _SPLIT if k in e.costs}
    entry: dict[str, object] = {
        **dict(point.items), "time": error or float(e.time_s) * 1e3,
        "times": [float(t) * 1e3 for t in e.raw_times_s],
        "compile_time": math.fsum(split.values()) * 1e3,
        **{n: float(e.costs.get(k, 0.0)) * 1e3 for k, n in _FIELDS.items()},
        "strategy_time": 0.0, "framework_time": 0.0, "timestamp": stamp,
        **{_SPLIT[k]: v * 1e3 for k, v in split.items()}}
    if error:
        entry.update(__error__=error, workbench_status=e.status.value)
    return entry


def import_cache(path: str | Path, space: TuningSpace | None = None
                 ) -> tuple[dict[str, tuple[Value, ...]], dict[str, Evaluation]]:
    """The tune params and the evaluations (by point label) of a Kernel Tuner cache
    file; with ``space``, checked against it and typed as in it."""
    path = Path(path)
    data = _read(path)
    keys: list[str] = data["tune_params_keys"]
    tune_params = {k: tuple(data["tune_params"][k]) for k in keys}
    if space is not None:
        _check_space(path, tune_params, space, data)
    out: dict[str, Evaluation] = {}
    for key, entry in data["cache"].items():
        where = f"{path}: entry {key!r}"
        if not isinstance(entry, dict) or any(k not in entry for k in keys):
            raise TuningError(f"{where} does not hold every tunable parameter")
        if key != ",".join(str(entry[k]) for k in keys):
            raise TuningError(f"{where} does not match its parameter values")
        error = _error_name(entry, keys)
        point = Point(tuple((k, entry[k]) for k in keys))
        if space is not None:
            point = Point(tuple((k, _typed(space.tune_params[k], v))
                                for k, v in point.items))
            if error is not None and not space.is_valid(point):
                continue   # Kernel Tuner records configurations it refused itself
            try:
                point = space.point(point.as_dict())
            except TuningError as err:
                raise TuningError(f"{where}: {err}") from None
        out[point.label] = _evaluation(where, point, entry, error, data)
    if space is not None:
        tune_params = {k: tuple(v) for k, v in space.tune_params.items()}
    return tune_params, out


def _read(path: Path) -> dict:
    try:
        text = path.read_text().strip()
    except OSError as err:
        raise TuningError(f"cannot read {path}: {err.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError as err:
        try:   # a session cut short: Kernel Tuner closes it as it reads it
            data = json.loads(text.removesuffix(",") + "}\n}")
        except ValueError:
            raise TuningError(f"{path} is not a Kernel Tuner cache file (not JSON: "
                              f"{err})") from None
    keys, params = (data.get("tune_params_keys"), data.get("tune_params")) if isinstance(
        data, dict) else (None, None)
    if not (isinstance(keys, list) and isinstance(params, dict)
            and isinstance(data.get("cache"), dict)):
        raise TuningError(f"{path} is not a Kernel Tuner cache file (it needs "
                          "tune_params_keys, tune_params and cache)")
    if sorted(map(str, keys)) != sorted(params) or not all(
            isinstance(v, list) and v for v in params.values()):
        raise TuningError(f"{path}: tune_params_keys and tune_params disagree")
    if not all(isinstance(x, (str, int, float)) for v in params.values() for x in v):
        raise TuningError(f"{path}: a tune_params value is no number, string or bool")
    return data


def _same(a: object, b: object) -> bool:
    """Equal values, never a bool or a string for a number (True == 1 in Python)."""
    if any(isinstance(x, (bool, str)) for x in (a, b)):
        return type(a) is type(b) and a == b
    return a == b


def _typed(ours: Sequence[Value], value: Value) -> Value:
    return next((v for v in ours if _same(v, value)), value)


def _check_space(path: Path, tune_params: Mapping[str, tuple], space: TuningSpace,
                 data: dict) -> None:
    if list(tune_params) != list(space.tune_params):
        raise TuningError(f"{path} tunes {', '.join(tune_params)}, space {space.name!r} "
                          f"tunes {', '.join(space.tune_params)} (in this order)")
    problem = (data.get("workbench") or {}).get("problem")
    if isinstance(problem, dict) and problem != dict(space.problem):
        raise TuningError(f"{path} was measured at {problem}, space {space.name!r} is "
                          f"at {dict(space.problem)}")
    for name, cached in tune_params.items():
        ours = space.tune_params[name]
        if not (all(any(_same(v, c) for v in ours) for c in cached)
                and all(any(_same(v, c) for c in cached) for v in ours)):
            raise TuningError(f"{path}: {name!r} takes {list(cached)} in the cache but "
                              f"{list(ours)} in space {space.name!r}")


def _error_name(entry: Mapping[str, object], keys: Sequence[str]) -> str | None:
    """Kernel Tuner's error of a failed entry (any field may hold it, as it reads)."""
    names = [v for k, v in entry.items() if k not in keys and isinstance(v, str)
             and v in _ERROR_STATUS]
    error = entry.get("__error__")
    return error if error in names else (names[0] if names else None)


def _ms(where: str, name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (
            not math.isfinite(value)):
        raise TuningError(f"{where}: {name} is {value!r}, not a time in ms")
    return float(value) / 1e3


def _evaluation(where: str, point: Point, entry: Mapping[str, object],
                error: str | None, data: Mapping[str, object]) -> Evaluation:
    costs = {k: _ms(where, n, entry[n]) for k, n in _SPLIT.items() if n in entry}
    if not costs and "compile_time" in entry:   # Kernel Tuner's own: all of it builds
        costs[Cost.BUILD] = _ms(where, "compile_time", entry["compile_time"])
    costs.update({k: _ms(where, n, entry[n]) for k, n in _FIELDS.items() if n in entry})
    times = entry.get("times", [])
    if not isinstance(times, list):
        raise TuningError(f"{where}: times is not a list")
    raw = tuple(_ms(where, "times", t) for t in times)
    extra = {k: v for k, v in (("source", "kernel_tuner"), ("device_name", data.get(
        "device_name")), ("timestamp", entry.get("timestamp"))) if v is not None}
    if error is None:
        if "time" not in entry:
            raise TuningError(f"{where} has neither a time nor an error")
        return Evaluation(point, Status.OK, _ms(where, "time", entry["time"]), costs, raw,
                          extra=extra)
    stored = entry.get("workbench_status")
    ours = stored in {s.value for s in _FAILED}
    status = Status(stored) if ours else _ERROR_STATUS[error]
    return Evaluation(point, status, None, costs, raw, f"Kernel Tuner: {error}", extra)
