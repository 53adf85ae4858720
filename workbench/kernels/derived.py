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


@functools.lru_cache(maxsize=1)
def _study_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.study import lbm_spec, star_stencil_spec
    return {s.name: s for s in (star_stencil_spec(), lbm_spec())}


def _study(name: str) -> KernelSpec | None:
    """The block-size study's kernels (Ernst et al.), by name, for ``volumes`` and
    ``rank-blocks``; not part of the calibration catalog."""
    return _study_by_name().get(name)


register_resolver(_work_removed)
register_resolver(_generated)
register_resolver(_study)
