"""One candidate after another, a feature family's analysis: the rows it could compute.

The device feature modules (:mod:`.fma_pairs`, :mod:`.held_rereads`,
:mod:`.row_walk_features`, ...) each analyse every candidate's kernel and write the
results into one array a feature.  A candidate whose kernel cannot be built or read has
no value: its row is NaN in the features the failure leaves unknown, and the others go
on.  :func:`built_rows` is that loop, once; each module says what it computes and where
the results go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

import numpy as np

from workbench.kernels.candidate import Candidate

Found = TypeVar("Found")


def built_rows(candidates: Sequence[Candidate], compute: Callable[[Candidate], Found],
               unknown: Iterable[np.ndarray]) -> Iterator[tuple[int, Candidate, Found]]:
    """``(row, candidate, compute(candidate))`` for every candidate in order whose
    ``compute`` returns; where it raises (a kernel that cannot be built: any
    ``Exception``), NaN at that row of every array of ``unknown`` and no tuple.

    Only ``compute`` is guarded: what the caller does with a tuple runs outside it, so
    an error there is raised as before.  Points of a factory space are computed on the
    counting processes where there are several
    (:func:`~workbench.models.counting_pool.compute_each`: every point's build and
    analysis, which ran in the ranking's process alone, issue #33), all ahead; other
    candidates one after another as the caller asks for each tuple."""
    from workbench.models.counting_pool import compute_each

    unknown = tuple(unknown)
    pooled = compute_each(candidates, compute)
    if pooled is not None:
        for i, (c, (ok, found)) in enumerate(zip(candidates, pooled)):
            if ok:
                yield i, c, found
            else:
                for values in unknown:
                    values[i] = np.nan
        return
    for i, c in enumerate(candidates):
        try:
            found = compute(c)
        except Exception:  # noqa: BLE001 - a kernel that cannot be built: no value
            for values in unknown:
                values[i] = np.nan
            continue
        yield i, c, found
