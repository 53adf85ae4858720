"""Resolvers for kernels derived from the catalog (see :mod:`workbench.kernels.catalog`)."""

from __future__ import annotations

import functools

from workbench.kernels.base import KernelSpec
from workbench.kernels.catalog import register_resolver

WORK_REMOVED_SUFFIX = "_wr"


def _work_removed(name: str) -> KernelSpec | None:
    if not name.endswith(WORK_REMOVED_SUFFIX):
        return None
    try:
        from workbench.kernels.work_removal import work_removed_spec
    except ImportError:
        return None
    from workbench.kernels.catalog import get_kernel
    from workbench.errors import UnknownNameError
    try:
        base = get_kernel(name[: -len(WORK_REMOVED_SUFFIX)])
    except UnknownNameError:
        return None
    return work_removed_spec(base)


@functools.lru_cache(maxsize=1)
def _generated_by_name() -> dict[str, KernelSpec]:
    try:
        from workbench.kernels.generators import measurement_set_2019
    except ImportError:
        return {}
    return {s.name: s for s in measurement_set_2019()}


def _generated(name: str) -> KernelSpec | None:
    return _generated_by_name().get(name)


register_resolver(_work_removed)
register_resolver(_generated)
