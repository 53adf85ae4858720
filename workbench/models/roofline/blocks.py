"""Block-size ranking with the extended roofline (Ernst et al., section IV).

The study's candidate shapes are those of eq. (9) (``X*Y*Z`` threads, powers of two,
see :func:`workbench.kernels.study.study_block_sizes`); :func:`rank_blocks` predicts
each with :func:`~workbench.models.roofline.limiters.predict_block` and orders them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from workbench.errors import ModelError, ParameterError
from workbench.kernels.study import study_block_sizes
from workbench.models.roofline.address import block3
from workbench.models.roofline.limiters import predict_block


def block_sizes(total: int) -> list[tuple[int, int, int]]:
    """The study's block shapes of ``total`` threads (eq. 9), as 3-tuples."""
    return [block3(b) for b in study_block_sizes(total)]


def rank_blocks(build: Callable[[tuple[int, ...]], object], params: Mapping[str, int],
                blocks: Iterable, device_model, *, points: int | None = None,
                skip_errors: bool = True, **predict_kw):
    """Predict every block size and rank them (fastest first) in a DataFrame.

    ``build(block)`` returns the loopy program for one block. Columns: ``block``
    ("XxYxZ"), ``X``, ``Y``, ``Z``, ``threads``, ``blocks_per_sm``, ``t_L1``,
    ``t_L2``, ``t_DRAM``, ``t_FLOP`` (seconds; NaN when left out), ``time``,
    ``limiter``, ``lups`` (NaN without ``points``), ``l1_cycles_per_block``,
    ``l2_l1_bytes_per_block``, ``dram_bytes``, ``rank`` (1 = fastest), ``error``.
    A block whose build or estimate fails gets an ``error`` and ranks last
    (``skip_errors=False`` re-raises instead); when every block fails, a
    :class:`~workbench.errors.ModelError` gives the first failure's reason.
    """
    import pandas as pd
    rows = []
    first_failure: Exception | None = None
    for block in blocks:
        b3 = block3(block)
        row = {"block": "x".join(map(str, b3)), "X": b3[0], "Y": b3[1], "Z": b3[2],
               "threads": math.prod(b3)}
        try:
            pred = predict_block(build(tuple(block)), params, block, device_model,
                                 points=points, **predict_kw)
        except Exception as err:  # noqa: BLE001 - recorded per block
            if not skip_errors:
                raise
            first_failure = first_failure or err
            row.update(time=math.nan, limiter=None, error=f"{type(err).__name__}: {err}")
            rows.append(row)
            continue
        nan = lambda t: math.nan if t is None else t  # noqa: E731
        row.update({
            "blocks_per_sm": pred.inputs.blocks_per_sm,
            **{f"t_{lim.value}": nan(t) for lim, t in pred.times.items()},
            "time": pred.time, "limiter": pred.limiter.value,
            "lups": nan(pred.lups),
            "l1_cycles_per_block": pred.inputs.l1_cycles_per_block,
            "l2_l1_bytes_per_block": pred.inputs.l2_l1.sectors_bytes,
            "dram_bytes": pred.inputs.dram.total_bytes, "error": None})
        rows.append(row)
    if rows and all(r["error"] for r in rows):
        # A table of identical errors hides the one thing to fix (often a size).
        reason = (rows[0]["error"].splitlines() or [""])[0]
        raise ModelError(f"no block size could be predicted ({len(rows)} tried); "
                         f"the first, {rows[0]['block']}, failed: {reason}"
                         ) from first_failure
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    # Ties (e.g. all DRAM-bound) are broken by the next limiters' times.
    keys = [k for k in ("time", "t_L2", "t_L1") if k in df]
    df = df.sort_values(keys, na_position="last", kind="stable").reset_index(drop=True)
    df.insert(0, "rank", range(1, len(df) + 1))
    return df


def candidate_blocks(total: int, dims: int) -> list[tuple[int, ...]]:
    """The study's block shapes of ``total`` threads (eq. 9) that a ``dims``-D kernel
    can take, as ``dims``-tuples: trailing axes of size 1 dropped, the others left out."""
    if not 1 <= dims <= 3:
        raise ParameterError(f"a kernel's work groups have 1 to 3 axes, not {dims}")
    out: list[tuple[int, ...]] = []
    for block in block_sizes(total):
        if all(b == 1 for b in block[dims:]) and block[:dims] not in out:
            out.append(block[:dims])
    return out
