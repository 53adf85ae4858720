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
    workitem = None if granularity is Granularity.WORKITEM else \
        _catalog_properties(name, request, Granularity.WORKITEM, None)
    return _extract(spec, request, granularity, subgroup_size, workitem)


def _extract(spec: KernelSpec, request: BuildRequest, granularity: Granularity,
             subgroup_size: int | None, workitem: KernelProperties | None):
    """A coarser granularity from the work-item properties of the same build: its
    prepared program and barrier count (linearizing a kernel with local trees takes
    seconds), not a second preprocessing and linearization."""
    if workitem is not None:
        return extract_properties(workitem.program, granularity=granularity,
                                  subgroup_size=subgroup_size, workitem=workitem)
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
    workitem = None if granularity is Granularity.WORKITEM else \
        _user_properties(spec, request, Granularity.WORKITEM, None)
    return _extract(spec, request, granularity, subgroup_size, workitem)
