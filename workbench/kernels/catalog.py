"""The one registry of catalog kernels; every module of kernels registers here.

Besides the paper's catalog, kernels *derived* from it by name are found here too:
``<name>_wr`` is the work-removed version of a catalog kernel, and the 2019
measurement generators' kernels resolve by their generated names.  Resolvers are
tried in order for names the catalog does not hold.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from workbench.errors import UnknownNameError
from workbench.kernels.base import KernelRole, KernelSpec

_CATALOG: dict[str, KernelSpec] = {}
_RESOLVERS: list[Callable[[str], KernelSpec | None]] = []


def register(spec: KernelSpec) -> KernelSpec:
    if spec.name in _CATALOG:
        raise ValueError(f"kernel {spec.name!r} registered twice")
    _CATALOG[spec.name] = spec
    return spec


def register_resolver(resolver: Callable[[str], KernelSpec | None]) -> None:
    """A function mapping a derived kernel's name to its spec, or None."""
    _RESOLVERS.append(resolver)


def _load_all() -> None:
    # Importing the definition modules registers their kernels and resolvers.
    from workbench.kernels import defs  # noqa: F401
    from workbench.kernels import derived  # noqa: F401


@functools.lru_cache(maxsize=None)
def _derived(name: str) -> KernelSpec | None:
    for resolver in _RESOLVERS:
        spec = resolver(name)
        if spec is not None:
            return spec
    return None


def get_kernel(name: str) -> KernelSpec:
    _load_all()
    if name in _CATALOG:
        return _CATALOG[name]
    spec = _derived(name)
    if spec is None:
        raise UnknownNameError("kernel", name, _CATALOG)
    return spec


def all_kernels(role: KernelRole | None = None) -> tuple[KernelSpec, ...]:
    """The paper's catalog (derived kernels are reached by name only)."""
    _load_all()
    return tuple(s for s in _CATALOG.values() if role is None or s.role is role)
