"""The kNN model's data: one row per variant, its IR features and its performance.

A *sample frame* has one float column per Table 1 feature (named by
:class:`~workbench.models.ir_features.features.IRFeature` values), ``benchmark``
(the program; leave-one-benchmark-out holds these out one at a time), ``input``
(its input size), ``time_s`` (measured; NaN for a variant that failed) and
``normalized_throughput``: as in the paper's section 5.1, throughput divided by the
best throughput of the same benchmark and input.  Every variant of one input does
the same work, so this is ``best time / time``: 1.0 for the fastest variant, and
0.0 for a failed one (it delivers nothing).
"""

from __future__ import annotations

import lzma
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.kernels.space import TuningSpace
from workbench.models.ir_features.features import FEATURE_ORDER
from workbench.models.ir_features.space import space_ir_features

FEATURES: tuple[str, ...] = tuple(f.value for f in FEATURE_ORDER)
BENCHMARK = "benchmark"
INPUT = "input"
TIME = "time_s"
TARGET = "normalized_throughput"


class MeasuredPoint(Protocol):
    """What a sample needs of a point's evaluation: whether it ran and its time (a
    :class:`~workbench.tuning.evaluation.Evaluation` is one; the models sit below the
    tuning layer, so they name the two fields, not the class)."""

    @property
    def ok(self) -> bool: ...

    @property
    def time_s(self) -> float | None: ...


def ir_samples(features: pd.DataFrame, times_s: Sequence[float] | np.ndarray,
               benchmark: str, input_label: str = "") -> pd.DataFrame:
    """One benchmark's sample frame at one input: ``features`` (a feature frame, as
    :func:`~workbench.models.ir_features.space.space_ir_features` gives) with the
    variants' measured times, in the same order (NaN or None where one failed)."""
    times = np.array([np.nan if t is None else t for t in times_s], dtype=float)
    if len(times) != len(features):
        raise ModelError(f"benchmark {benchmark!r}: {len(features)} feature rows but "
                         f"{len(times)} times")
    check_features(features, f"benchmark {benchmark!r}")
    ok = np.isfinite(times) & (times > 0)
    if not ok.any():
        raise ModelError(f"benchmark {benchmark!r} at input {input_label!r} has no "
                         "successfully measured variant to normalize by")
    frame = features.loc[:, list(FEATURES)].astype(float).copy()
    frame[BENCHMARK] = benchmark
    frame[INPUT] = input_label
    frame[TIME] = np.where(ok, times, np.nan)
    best = times[ok].min()
    frame[TARGET] = np.where(ok, best / np.where(ok, times, 1.0), 0.0)
    return frame


def space_samples(space: TuningSpace, evaluations: Mapping[str, MeasuredPoint],
                  benchmark: str | None = None) -> pd.DataFrame:
    """A measured tuning space as one benchmark (default: the space's name) at its
    problem size; ``evaluations`` by point label, as
    :func:`~workbench.tuning.replay.load_space_evaluations` returns them."""
    points = space.points()
    missing = [p.label for p in points if p.label not in evaluations]
    if missing:
        raise ModelError(f"space {space.name!r}: {len(missing)} of {len(points)} points "
                         f"have no measurement (e.g. {missing[0]})")
    times = [evaluations[p.label].time_s if evaluations[p.label].ok else None
             for p in points]
    label = ",".join(f"{k}={v}" for k, v in sorted(dict(space.problem).items()))
    return ir_samples(space_ir_features(space, points), times,
                      benchmark or space.name, label)


def feature_matrix(frame: pd.DataFrame, device: str | None = None) -> np.ndarray:
    """The feature columns of ``frame`` as floats, in Table 1's order (what the models
    fit and predict on); given a ``device``, followed by the GPU features on it
    (:mod:`workbench.models.ir_features.gpu`)."""
    table = frame.loc[:, list(FEATURES)].to_numpy(dtype=float)
    if device is None:
        return table
    from workbench.models.ir_features.gpu import gpu_feature_frame

    return np.hstack([table, gpu_feature_frame(frame, device).to_numpy(dtype=float)])


def check_features(frame: pd.DataFrame, what: str) -> None:
    """A ModelError unless ``frame`` has every feature column, all finite."""
    absent = [c for c in FEATURES if c not in frame.columns]
    if absent:
        raise ModelError(f"{what} lacks feature column(s) {', '.join(absent)}")
    values = feature_matrix(frame)
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ModelError(f"{what} has {int(bad.sum())} missing or infinite feature "
                         f"value(s) (e.g. {FEATURES[col]} of row {frame.index[row]!r})")


def check_samples(samples: pd.DataFrame, what: str) -> None:
    """A ModelError unless ``samples`` is a non-empty sample frame."""
    if len(samples) == 0:
        raise ModelError(f"{what} has no rows")
    absent = [c for c in (BENCHMARK, INPUT, TARGET) if c not in samples.columns]
    if absent:
        raise ModelError(f"{what} is not a sample frame (no {', '.join(absent)} column)")
    check_features(samples, what)
    if not np.isfinite(samples[TARGET].to_numpy(dtype=float)).all():
        raise ModelError(f"{what} has missing {TARGET} values")


SAMPLES_SCHEMA = 1
#: The definition of Table 1's features as :mod:`workbench.models.ir_features`
#: computes them.  A sample file carries the version its features were computed
#: with; raise this when a feature's value changes (not for faster code giving the
#: same values) and rebuild the shipped sample files with ``workbench ir-samples``
#: (their provenance names the command).  tests/test_ir_samples_version.py recomputes
#: a sample of the shipped rows and compares them.  A file written before versions
#: were recorded holds version 1.
FEATURES_VERSION = 1
#: The shipped H100 samples (``workbench ir-samples`` of the shipped tuning stores).
SHIPPED_SAMPLES = Path("h100") / "ir-samples.csv.xz"


def shipped_samples() -> Path | None:
    """The shipped sample file, or None where no sample data is installed."""
    from workbench.measure.samples import sample_data_root

    root = sample_data_root()
    path = root / SHIPPED_SAMPLES if root is not None else None
    return path if path is not None and path.is_file() else None


def save_samples(samples: pd.DataFrame, path, provenance: Mapping[str, object]) -> None:
    """Write a sample frame as CSV, its first line a ``#`` comment holding the schema
    version, the features' version (:data:`FEATURES_VERSION`) and ``provenance`` (stores, device, what computed the features) as JSON."""
    import json

    check_samples(samples, "the sample frame to save")
    header = json.dumps({"schema_version": SAMPLES_SCHEMA,
                         "features_version": FEATURES_VERSION,
                         "provenance": dict(provenance)}, sort_keys=True)
    with _open_text(path, "w") as out:
        out.write(f"# {header}\n")
        samples.to_csv(out, index=False)


def is_sample_file(path) -> bool:
    """A sample file's name: ``X.csv``, or ``X.csv.xz`` as the shipped ones are (xz keeps
    the tracked tree lean, issue #25)."""
    return str(path).endswith((".csv", ".csv.xz"))


def _open_text(path, mode: str):
    """A sample file opened as text, through xz where its name ends in ``.xz``."""
    if str(path).endswith(".xz"):
        return lzma.open(path, mode + "t", encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def load_samples(path) -> pd.DataFrame:
    """A sample frame written by :func:`save_samples`; a clear error for anything else,
    and for features of another version than this code computes."""
    import json

    try:
        with _open_text(path, "r") as f:
            first = f.readline()
            header = json.loads(first[1:]) if first.startswith("#") else None
            if not header or header.get("schema_version") != SAMPLES_SCHEMA:
                raise ModelError(f"{path} is not a sample file of schema {SAMPLES_SCHEMA} "
                                 "(written by save_samples)")
            version = header.get("features_version", 1)
            if version != FEATURES_VERSION:
                raise ModelError(f"{path} holds IR features of version {version}, and "
                                 f"this workbench computes version {FEATURES_VERSION}: "
                                 "rebuild it with workbench ir-samples")
            frame = pd.read_csv(f)
    except (OSError, ValueError, EOFError, lzma.LZMAError) as err:  # not xz, cut short
        raise ModelError(f"cannot read the sample file {path}: {err}") from None
    frame[INPUT] = frame[INPUT].astype(str)
    frame[BENCHMARK] = frame[BENCHMARK].astype(str)
    check_samples(frame, str(path))
    return frame
