"""Argument parsing helpers and output formatting shared by the subcommands."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence

from workbench.errors import ParameterError
from workbench.kernels.base import parse_parameters


def parse_params(items: Sequence[str] | None) -> dict[str, int]:
    """``["n=1024", "m=512,l=256"]`` -> ``{"n": 1024, "m": 512, "l": 256}``."""
    params: dict[str, int] = {}
    for item in items or ():
        if not item.strip():
            raise ParameterError("empty --param: expected NAME=INTEGER, e.g. n=1024")
        params.update(parse_parameters(item))
    return params


def print_table(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None,
                file=None) -> None:
    file = file or sys.stdout
    if not rows:
        print("(nothing)", file=file)
        return
    columns = list(columns or rows[0].keys())
    text = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in text)) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip(), file=file)
    print("  ".join("-" * w for w in widths), file=file)
    for t in text:
        print("  ".join(v.ljust(w) for v, w in zip(t, widths)).rstrip(), file=file)


def print_json(data, file=None) -> None:
    json.dump(data, file or sys.stdout, indent=2, sort_keys=False, default=_jsonable)
    print(file=file or sys.stdout)


def _jsonable(obj):
    import numpy as np
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


def uncounted_bound_says(bound: str, most_s: float) -> str:
    """A floor's bound left uncounted, in words: its upper limit, or why it is none."""
    if most_s <= 0:
        # the whole arrays fit in the L2 cache: no byte has to come from DRAM
        return f"({bound} sets no floor: the arrays together fit in the L2 cache)"
    # said whole: "DRAM traffic not counted" alone read as a defect of the floor
    # the bound is the bytes beyond what the L2 holds (floors.py), not all of them: a
    # reader who multiplied the roofline's bytes by the peak found a larger figure
    return (f"({bound} left out of the floor: the arrays' bytes beyond what the L2 cache "
            f"holds take at most {most_s * 1e3:.4g} ms at the peak rate, below the "
            "prediction, so it cannot bind)")
