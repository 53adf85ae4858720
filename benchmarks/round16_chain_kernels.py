"""The calibration microbenchmark of round 16 of issue #34, as loopy kernels (role:
calibration microbenchmark; no held-out kernel), timed on the device by
``scripts/h100_round16_probe.py`` and read by ``benchmarks/dependent_load_prices.py``.

``lookup_chain``: a branchless lower-bound search of a sorted table of ``TABLE``
entries, ``steps`` dependent lookups a work item: each step's load address is the
position the previous load moved to (``pos += (tab[pos + half - 1] < x) * half``), then
``y[i] = x * tab[pos]``: one coalesced load and one store a work item, plus ``steps + 1``
table loads of which ``steps`` wait for the one before. The table is small (64 entries:
one or two 128-byte lines, in L1 after the first warps) or larger (4096 entries, still
inside L1), so what the steps cost is the dependence, not bandwidth. Launches from
2^14 work items (less than one wave) to 2^24 (every SM full many times over), in groups
of 256: the slope over ``steps`` at the largest launches is a step's price with the device
full; at the smallest, a chain's latency.
"""

from __future__ import annotations

#: (table entries, steps) timed
CHAINS = ((64, 0), (64, 1), (64, 2), (64, 4), (64, 6), (4096, 6), (4096, 12))
SIZES = {"float32": tuple(1 << p for p in (14, 16, 18, 20, 22, 24)),
         "float64": tuple(1 << p for p in (14, 16, 18, 20, 22, 23))}
GROUP = 256


def lookup_chain(table: int, steps: int, dtype: str = "float32"):
    """``steps`` dependent lookups of a sorted ``table``-entry array a work item."""
    import loopy as lp
    import numpy as np

    if table & (table - 1) or steps > table.bit_length() - 1:
        raise ValueError(f"a table of 2^k entries and at most k steps, not {table}, {steps}")
    lines = []
    for k in range(steps):
        half = table >> (k + 1)
        lines.append(f"pos = pos + (tab[pos + {half - 1}] < v) * {half} "
                     f"{{id=s{k}, dep={'s%d' % (k - 1) if k else 'p0:v0'}}}")
    body = "\n            ".join(lines)
    last = f"s{steps - 1}" if steps else "p0:v0"
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}",
        f"""
        for i
            <> v = x[i] {{id=v0}}
            <int32> pos = 0 {{id=p0}}
            {body}
            y[i] = v * tab[pos] {{dep={last}}}
        end
        """,
        [lp.GlobalArg("x", np.dtype(dtype), shape=("n",)),
         lp.GlobalArg("tab", np.dtype(dtype), shape=(table,)),
         lp.GlobalArg("y", np.dtype(dtype), shape=("n",)),
         lp.ValueArg("n", np.int32)],
        name=f"lookup_chain_t{table}_s{steps}", assumptions="n >= 1",
        target=lp.PyOpenCLTarget(), lang_version=(2018, 2))
    return lp.split_iname(knl, "i", GROUP, outer_tag="g.0", inner_tag="l.0")


def chain_kernels():
    """(kernel, dtype, table, steps) of every timed chain."""
    return [(lookup_chain(t, s, d), d, t, s) for d in ("float32", "float64")
            for t, s in CHAINS]
