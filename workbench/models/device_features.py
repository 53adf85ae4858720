"""Registering device features: expression-language features whose values depend on the
device as well as the kernel (occupancy and waves, data volumes per memory level).

A family of such features is one function ``values(candidates, device)`` that returns
every feature of the family for every candidate; :func:`provide_device_features`
registers each name both for measurement rows (grouped by their ``device`` column) and
for candidates predicted on one device.

A family's values of points of a ``kernel(point)`` factory space are kept on disk
beside their counts (:mod:`workbench.models.count_cache`, keyed by the point's
fingerprint, the family, the device and the analysis code), so that a second session
ranking the same space builds none of its kernels: a call whose every candidate is such
a point and found there reads them back; any other call computes them for all its
candidates, as it always did, and stores the factory points' values.  A family whose
values depend on more than the point, the device and the code says so with
:func:`cache_context` (None there: not cached at all, e.g. while a compiler's build
report is in use).  :func:`device_feature_sources` says where a space's last values came
from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import threading
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.models import count_cache
from workbench.kernels.candidate import Candidate, plain_factory_space
from workbench.models.expressions.feature_values import (
    group_size_tuple,
    parse_params_text,
    provide_candidate_feature,
    provide_row_feature,
)

DeviceValues = Callable[[Sequence[Candidate], str], dict[str, np.ndarray]]


def rows_as_candidates(data) -> list[Candidate]:
    """The candidates of measurement rows (kernel, variant, dtype, group, params)."""
    return [Candidate(k, v, group_size_tuple(g), tuple(sorted(parse_params_text(p).items())),
                      d)
            for k, v, d, g, p in data[["kernel", "variant", "dtype", "group_size",
                                       "params"]].itertuples(index=False)]


def _row_values(name: str, values: DeviceValues):
    def compute(data) -> np.ndarray:
        if "device" not in data.columns:
            raise ModelError(f"{name} needs each row's device (a 'device' column)")
        out = np.full(len(data), np.nan)
        devices = data["device"].astype(str).to_numpy()
        for device in np.unique(devices):
            rows = np.flatnonzero(devices == device)
            out[rows] = values(rows_as_candidates(data.iloc[rows]), device)[name]
        return out
    return compute


def _candidate_values(name: str, values: DeviceValues):
    return lambda candidates, device: values(candidates, device)[name].copy()


def _last_call(values: DeviceValues) -> DeviceValues:
    """``values`` remembering its last candidates and device: a model reads a family's
    features one name after another for the same candidates, and each call would
    otherwise build and analyse every candidate again."""
    last: list = [None]

    def remembered(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
        key = (tuple(candidates), device)
        entry = last[0]
        if entry is not None and entry[0] == key:
            return entry[1]
        out = values(candidates, device)
        last[0] = (key, out)     # one assignment: a reader sees the old or the new pair
        return out
    return remembered


#: what else device-feature values depend on (device -> text, None: do not cache)
_CONTEXTS: list[Callable[[str], str | None]] = []


def cache_context(context: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """Register what device-feature values read beyond the point, the device and the
    code (a measured bandwidth: its text goes into the cache's key; None: nothing is
    read from or written to the cache while it says so)."""
    _CONTEXTS.append(context)
    return context


@dataclass(frozen=True)
class FamilySource:
    """Where one call of a device-feature family found its candidates' values."""

    family: str
    points: int
    from_cache: bool


#: space name -> family -> its last call's source (what ``workbench tune`` reports)
_SOURCES: dict[str, dict[str, FamilySource]] = {}
_SOURCES_LOCK = threading.Lock()


def device_feature_sources(space_name: str) -> tuple[FamilySource, ...]:
    """How the device-feature families of the space's last ranking found their values
    (empty where none was asked for a whole factory space)."""
    with _SOURCES_LOCK:
        return tuple(_SOURCES.get(space_name, {}).values())


def forget_feature_sources(space_name: str) -> None:
    """Drop the record of a space's device-feature sources (a new ranking starts)."""
    with _SOURCES_LOCK:
        _SOURCES.pop(space_name, None)
        _ASKED.pop(space_name, None)


def _code_key(device: str) -> str | None:
    parts = [count_cache.device_code_digest()]
    for context in _CONTEXTS:
        text = context(device)
        if text is None:
            return None
        parts.append(text)
    return "|".join(parts)


def _cacheable_space(candidates: Sequence[Candidate]):
    """The one factory space all candidates are points of, with its fingerprint; None
    for anything else (a catalog kernel, a templated space, a mix)."""
    space = plain_factory_space(candidates)
    if space is None:
        return None
    fingerprint = count_cache.space_fingerprint(space)
    return None if fingerprint is None else (space, fingerprint)


def _disk_cached(family: str, names: tuple[str, ...], values: DeviceValues) -> DeviceValues:
    """``values`` read from and written to the disk cache for factory-space points."""
    def cached(candidates: Sequence[Candidate], device: str) -> dict[str, np.ndarray]:
        candidates = list(candidates)
        _note_asked(candidates, family, device)
        found = _cacheable_space(candidates) if candidates and \
            count_cache.cache_path() is not None else None
        code = _code_key(device) if found is not None else None
        if found is None or code is None:
            return values(candidates, device)
        space, fingerprint = found
        keys = [count_cache.point_key(c.point, c.group_size) for c in candidates]
        stored = count_cache.load_device_values(fingerprint, family, device, code)
        rows = [stored.get(k) for k in keys]
        if all(r is not None and all(n in r for n in names) for r in rows):
            _note(space.name, FamilySource(family, len(candidates), True))
            return {n: np.array([r[n] for r in rows], dtype=np.float64) for n in names}
        out = values(candidates, device)
        count_cache.save_device_values(fingerprint, family, device, code, {
            k: {n: float(v[i]) for n, v in out.items()} for i, k in enumerate(keys)})
        _note(space.name, FamilySource(family, len(candidates), False))
        return out
    return cached


#: space name -> (family, device) pairs a ranking of its points asked for
_ASKED: dict[str, set[tuple[str, str]]] = {}


def _note_asked(candidates: Sequence[Candidate], family: str, device: str) -> None:
    names = {getattr(c.space, "name", None) for c in candidates}
    if len(names) == 1 and None not in names:
        with _SOURCES_LOCK:
            _ASKED.setdefault(names.pop(), set()).add((family, device))


def asked_families(space_name: str) -> tuple[tuple[str, str], ...]:
    """(family, device) of every device-feature family read for the space's points in
    this process (``benchmarks/structure_counts.py`` checks their values)."""
    with _SOURCES_LOCK:
        return tuple(sorted(_ASKED.get(space_name, ())))


def _note(space_name: str, source: FamilySource) -> None:
    with _SOURCES_LOCK:
        _SOURCES.setdefault(space_name, {})[source.family] = source


@dataclass(frozen=True)
class DeviceFamily:
    """A registered family: its features, its function, and that function read through
    the disk cache (what a candidate's features are read from)."""

    name: str
    features: tuple[str, ...]
    values: DeviceValues
    cached: DeviceValues


_FAMILIES: dict[str, DeviceFamily] = {}


def device_families() -> tuple[DeviceFamily, ...]:
    """Every family registered so far (each module registers its own on import)."""
    return tuple(_FAMILIES.values())


def provide_device_features(names: Iterable[str], values: DeviceValues) -> None:
    """Register ``names`` for rows and candidates, each read from ``values``."""
    names = tuple(names)
    family = f"{values.__module__}.{values.__qualname__}"
    cached = _disk_cached(family, names, values)
    _FAMILIES[family] = DeviceFamily(family, names, values, cached)
    once = _last_call(cached)
    for name in names:
        provide_row_feature(name, _row_values(name, values))
        provide_candidate_feature(name, _candidate_values(name, once))
