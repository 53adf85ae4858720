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
    """The sources' samples less benchmark ``exclude`` (and, given ``only``, of those
    benchmarks alone); a clear error when nothing is left to learn from."""
    from workbench.models.ir_features.samples import BENCHMARK, load_samples

    files = [Path(s) for s in sources if str(s).endswith(".csv")]
    stores = [Path(s) for s in sources if not str(s).endswith(".csv")]
    frames = [load_samples(f) for f in files]
    if stores:
        frames.append(stored_samples(stores))
    frames = [f for f in frames if len(f)]
    samples = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(samples):
        keep = samples[BENCHMARK] != exclude
        if only is not None:
            keep &= samples[BENCHMARK].isin(list(only))
        samples = samples[keep]
    if not len(samples):
        named = ", ".join(map(str, sources)) or "no source"
        raise TuningError(f"the IR-feature strategies learn from other programs' spaces "
                          f"measured exhaustively, and {named} holds none besides "
                          f"{exclude!r}: give --training STORE or SAMPLES.csv")
    return samples.reset_index(drop=True)


__all__ = ["SHIPPED_STORES", "shipped_training", "stored_samples",
           "training_frame"]
