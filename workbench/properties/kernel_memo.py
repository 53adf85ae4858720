"""Work on one prepared kernel done once for all of its counters.

A factory point is counted by the access counters and by the access model of its
footprints, both on the same prepared kernel (an immutable object), and both rewrite
its global indices through :func:`~workbench.properties.index_temporaries.index_resolver`,
which reads every instruction and evaluates the kernel's bounds at the middle of its
domain (an ISL step): built once here for the last kernel of the thread, keyed by the
kernel's identity.  (loopy memoizes its own ``simplify_using_aff`` per kernel already.)
"""

from __future__ import annotations

import threading

_HELD = threading.local()


def index_resolver_of(knl):
    """:func:`~workbench.properties.index_temporaries.index_resolver` of ``knl``, built
    once for the last kernel of this thread (the access counters and the access model
    of the footprints both ask for it)."""
    from workbench.properties.index_temporaries import index_resolver

    held = getattr(_HELD, "resolver", None)
    if held is None or held[0] is not knl:
        held = _HELD.resolver = (knl, index_resolver(knl))
    return held[1]


def grid_callables(program):
    """The callables of ``program`` for loopy's grid sizes of its kernel: where the entry
    kernel is its only kernel, the table without it.

    loopy memoizes ``get_grid_sizes_for_insn_ids`` (what the run counts' unused-axes
    factor, the thread groups and the access model read) under a key that holds the
    callables table, so its first call hashes the table and with it the whole kernel
    (loopy's persistent hash of every instruction, domain and array): three quarters of
    the grid sizes' time on the tenth blind set's points, for a hash nothing else
    reads.  The sizes read the table only for a call instruction's callee (its
    hardware axes); a one-kernel program calls only loopy's and the target's scalar
    functions, which this table keeps, so the sizes are the same."""
    from constantdict import constantdict
    from loopy.kernel.function_interface import CallableKernel

    table = program.callables_table
    held = getattr(_HELD, "grid", None)
    if held is None or held[0] is not table:
        kernels = [name for name, clbl in table.items() if isinstance(clbl, CallableKernel)]
        reduced = table if len(kernels) != 1 else constantdict(
            {name: clbl for name, clbl in table.items()
             if not isinstance(clbl, CallableKernel)})
        held = _HELD.grid = (table, reduced)
    return held[1]
