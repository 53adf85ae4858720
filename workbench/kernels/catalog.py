"""The one registry of catalog kernels; every module of kernels registers here."""

from __future__ import annotations

from workbench.errors import UnknownNameError
from workbench.kernels.base import KernelRole, KernelSpec

_CATALOG: dict[str, KernelSpec] = {}


def register(spec: KernelSpec) -> KernelSpec:
    if spec.name in _CATALOG:
        raise ValueError(f"kernel {spec.name!r} registered twice")
    _CATALOG[spec.name] = spec
    return spec


def _load_all() -> None:
    # Importing the definition modules registers their kernels.
    from workbench.kernels import defs  # noqa: F401


def get_kernel(name: str) -> KernelSpec:
    _load_all()
    try:
        return _CATALOG[name]
    except KeyError:
        raise UnknownNameError("kernel", name, _CATALOG) from None


def all_kernels(role: KernelRole | None = None) -> tuple[KernelSpec, ...]:
    _load_all()
    return tuple(s for s in _CATALOG.values() if role is None or s.role is role)
