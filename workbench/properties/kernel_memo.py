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
