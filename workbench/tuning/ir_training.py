"""Training data of the IR-feature strategies: other programs' measured spaces as
sample frames (:mod:`workbench.models.ir_features.samples`).

A source is a tuning store (every catalog space it holds measured exhaustively, at
each stored size) or a sample file (:func:`~workbench.models.ir_features.samples.
save_samples`: the same rows with their features already computed, so that a
strategy's ranking does not pay for other programs' features).  The shipped sources
are the H100 sample file of the Lift suite and of the catalog's three spaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from workbench.errors import TuningError

SHIPPED_STORES = (Path("h100") / "lift.sqlite", Path("h100") / "tuning.sqlite")
#: Every shipped sample file: the Lift suite and the catalog's spaces, and the Lift
#: rewrite spaces (``workbench tuning-report`` learns from both).
SHIPPED_SAMPLE_FILES = (Path("h100") / "ir-samples.csv.xz",
                        Path("h100") / "lift-rewrites-samples.csv.xz")
_PROGRAM_PREFIXES = ("lift_rewrites_", "lift_")


def program_of(benchmark: str) -> str:
    """The program a space measures: a Lift benchmark's paper-sized and rewrite
    spaces (``lift_jacobi5``, ``lift_rewrites_jacobi5``) are one program, which
    leave-one-out must leave out whole; any other space is its own."""
    for prefix in _PROGRAM_PREFIXES:
        if benchmark.startswith(prefix):
            return "lift:" + benchmark[len(prefix):]
    return benchmark


def shipped_sample_files() -> list[Path]:
    """Every shipped sample file present; [] without sample data."""
    from workbench.measure.samples import sample_data_root

    root = sample_data_root()
    if root is None:
        return []
    return [root / p for p in SHIPPED_SAMPLE_FILES if (root / p).is_file()]


def shipped_training() -> list[Path]:
    """The shipped sample file, else the shipped stores; [] without sample data."""
    from workbench.measure.samples import sample_data_root
    from workbench.measure.store import resolve_store_path
    from workbench.models.ir_features.samples import shipped_samples

    samples = shipped_samples()
    if samples is not None:
        return [samples]
    root = sample_data_root()
    if root is None:
        return []
    return [root / p for p in SHIPPED_STORES if resolve_store_path(root / p) is not None]


def stored_samples(stores: Sequence[str | Path], spaces: Sequence[str] | None = None
                   ) -> pd.DataFrame:
    """Every catalog space (or those named) measured exhaustively in ``stores``, at
    each size stored, as one sample frame (benchmark: the space's name)."""
    from workbench.measure.store import MeasurementStore
    from workbench.models.ir_features import space_samples
    from workbench.tuning.catalog import SPACES, get_space
    from workbench.tuning.evaluation import space_kernel_name
    from workbench.tuning.replay import load_space_evaluations

    frames = []
    for name in spaces or SPACES:
        if get_space(name).sequence is not None:
            # a time-tiled point is a sequence of launches: one kernel's IR features
            # do not describe it (and its space has no template, so computing them
            # would build every point)
            if spaces:
                raise TuningError(f"{name} is a space of launch sequences: the IR "
                                  "features describe one kernel, not a sequence")
            continue
        sizes = set()
        for path in stores:
            with MeasurementStore.open(path, create=False, readonly=True) as store:
                sizes |= {tuple(sorted(m.key.params_dict.items()))
                          for m in store.measurements(kernel=space_kernel_name(name))}
        for size in sorted(sizes):
            space = get_space(name, **dict(size))
            evaluations = load_space_evaluations(list(stores), space)
            if len(evaluations) == len(space.points()):   # only exhaustive spaces teach
                frames.append(space_samples(space, evaluations))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def training_frame(sources: Sequence[str | Path], exclude: str,
                   only: Sequence[str] | None = None) -> pd.DataFrame:
    """The sources' samples less every benchmark of ``exclude``'s program
    (:func:`program_of`) and, given ``only``, of those benchmarks alone; a clear error
    when nothing is left to learn from."""
    from workbench.models.ir_features.samples import BENCHMARK, is_sample_file, load_samples

    files = [Path(s) for s in sources if is_sample_file(s)]
    stores = [Path(s) for s in sources if not is_sample_file(s)]
    frames = [load_samples(f) for f in files]
    if stores:
        frames.append(stored_samples(stores))
    frames = [f for f in frames if len(f)]
    samples = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(samples):
        keep = samples[BENCHMARK].map(program_of) != program_of(exclude)
        if only is not None:
            keep &= samples[BENCHMARK].isin(list(only))
        samples = samples[keep]
    if not len(samples):
        named = ", ".join(map(str, sources)) or "no source"
        raise TuningError(f"the IR-feature strategies learn from other programs' spaces "
                          f"measured exhaustively, and {named} holds none besides "
                          f"{exclude!r}: give --training STORE or SAMPLES.csv")
    return samples.reset_index(drop=True)


def model_cache_dir() -> Path:
    """Where fitted IR-feature models are kept: ``$XDG_CACHE_HOME/workbench/ir-models``
    (next to the decompressed stores)."""
    from workbench.measure.store.compressed import cache_dir

    return cache_dir().parent / "ir-models"


def fitted_model(config, sources: Sequence[str | Path], exclude: str,
                 only: Sequence[str] | None = None):
    """``config`` fitted on :func:`training_frame`, read from the on-disk cache when
    the same settings were fitted on the same samples before.

    A model learnt from other programs does not depend on the space it ranks, only
    on what it was trained on; boosted trees take tens of processor seconds to fit
    on the shipped samples, so a second session on any space of the same program
    reads the model instead.  The key is the samples' content (every value, hashed),
    the settings, the IR-feature package's code and the library versions, so new
    samples, settings, model code or an upgraded xgboost or scikit-learn fit anew; an
    unreadable entry is fitted again (``WORKBENCH_RANKING_CACHE=0``: never cached).
    """
    import hashlib
    import os
    import pickle

    from workbench.measure.provenance import library_versions

    from workbench.models.ir_features.space import caching, code_digest

    frame = training_frame(sources, exclude, only)
    if not caching():
        return config.fit(frame)
    digest = hashlib.sha256()
    digest.update(repr(config).encode())
    digest.update(code_digest().encode())
    digest.update(repr(sorted(library_versions().items())).encode())
    digest.update(repr(list(frame.columns)).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    path = model_cache_dir() / f"{type(config).__name__}-{digest.hexdigest()[:32]}.pickle"
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass
    model = config.fit(frame)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        with open(partial, "wb") as f:
            pickle.dump(model, f)
        os.replace(partial, path)     # whole or absent, whatever runs at the same time
    except OSError:
        pass                          # a read-only cache: fitted every time
    return model


__all__ = ["SHIPPED_SAMPLE_FILES", "SHIPPED_STORES", "fitted_model", "model_cache_dir",
           "program_of", "shipped_sample_files", "shipped_training", "stored_samples",
           "training_frame"]
