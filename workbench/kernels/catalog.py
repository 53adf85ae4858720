"""The catalog of kernels, by name.

The paper's catalog comes from :mod:`workbench.kernels.defs`, and so do the unseen
kernels (role UNSEEN), which are found by name and by role but listed apart.  Kernels
*derived* from it are found by name too (:mod:`workbench.kernels.derived`):
``<name>_wr`` is the work-removed version of a catalog kernel, the 2019 measurement
generators' kernels resolve by their generated names, and the block-size study's
kernels by theirs.
"""

from __future__ import annotations

import functools

from workbench.errors import UnknownNameError
from workbench.kernels.base import KernelRole, KernelSpec
from workbench.kernels.defs import CATALOG_SPECS
from workbench.kernels.derived import resolve_derived

_CATALOG: dict[str, KernelSpec] = {}
for _spec in CATALOG_SPECS:
    if _spec.name in _CATALOG:
        raise ValueError(f"kernel {_spec.name!r} defined twice")
    _CATALOG[_spec.name] = _spec


def _lookup(name: str) -> KernelSpec | None:
    try:
        return get_kernel(name)
    except UnknownNameError:
        return None


@functools.lru_cache(maxsize=None)
def _derived(name: str) -> KernelSpec | None:
    # a derived kernel's base may itself be derived (a generated kernel's twin)
    return resolve_derived(name, _lookup)


def get_kernel(name: str) -> KernelSpec:
    if name in _CATALOG:
        return _CATALOG[name]
    spec = _derived(name)
    if spec is None:
        raise UnknownNameError("kernel", name, _CATALOG)
    return spec


#: The roles of the paper's catalog, what ``all_kernels()`` lists.
PAPER_ROLES = (KernelRole.MEASUREMENT, KernelRole.TEST)


def all_kernels(role: KernelRole | None = None) -> tuple[KernelSpec, ...]:
    """The kernels of one role; without a role, the paper's catalog.

    Derived kernels are reached by name only. So are the unseen kernels, unless
    asked for by role: campaigns, work-removed sets and listings built from
    ``all_kernels()`` must never pull them into a fit.
    """
    roles = PAPER_ROLES if role is None else (role,)
    return tuple(s for s in _CATALOG.values() if s.role in roles)
