"""Properties of a catalog kernel or a user's loopy kernel, cached per build."""

from __future__ import annotations

import functools

import loopy as lp

from workbench.kernels import BuildRequest, KernelSpec, get_kernel
from workbench.properties.extract import KernelProperties, extract_properties
from workbench.properties.features import Granularity


@functools.lru_cache(maxsize=256)
def _catalog_properties(name: str, request: BuildRequest, granularity: Granularity,
                        subgroup_size: int | None) -> KernelProperties:
    spec = get_kernel(name)
    return extract_properties(spec.build(request), granularity=granularity,
                              subgroup_size=subgroup_size)


def kernel_properties(kernel: str | KernelSpec | lp.TranslationUnit, *,
                      variant: str | None = None, dtype: str | None = None,
                      group_size: str | tuple[int, ...] | None = None,
                      granularity: Granularity | str = Granularity.WORKITEM,
                      subgroup_size: int | None = None) -> KernelProperties:
    """Symbolic properties of a catalog kernel (by name or spec) or of a loopy kernel.

    A user's loopy kernel is taken as it is (its work-group size already applied);
    variant, dtype and group size only select among a catalog kernel's builds.
    """
    granularity = Granularity(granularity)
    if isinstance(kernel, lp.TranslationUnit):
        return extract_properties(kernel, granularity=granularity,
                                  subgroup_size=subgroup_size)
    spec = kernel if isinstance(kernel, KernelSpec) else get_kernel(kernel)
    request = spec.request(variant, dtype, group_size)
    if spec.fixed_group_size is not None:  # a user's kernel, not in the catalog
        return _user_properties(spec, request, granularity, subgroup_size)
    return _catalog_properties(spec.name, request, granularity, subgroup_size)


@functools.lru_cache(maxsize=64)
def _user_properties(spec: KernelSpec, request: BuildRequest, granularity: Granularity,
                     subgroup_size: int | None) -> KernelProperties:
    """A user's kernel, counted once per spec object (specs compare by identity)."""
    return extract_properties(spec.build(request), granularity=granularity,
                              subgroup_size=subgroup_size)
