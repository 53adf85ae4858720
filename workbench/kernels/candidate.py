"""One kernel configuration to predict, rank or measure: the unit a model's
``rank()`` orders and a tuner evaluates.

A candidate names its kernel (a catalog name, or the :class:`KernelSpec` of a user's
kernel), the variant, dtype and work-group size of its build, and its size
parameters.  A point of a tuning space carries its space and point instead
(:meth:`Candidate.of_point`): its kernel is built only if a model needs it, and a
model that counts a space's templates never builds it at all.  Either way the kernel
travels with the candidate, so no model looks a kernel up by name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from workbench.kernels.base import BuildRequest, GroupSize, KernelSpec, format_group_size


@dataclass(frozen=True)
class Candidate:
    kernel: str | KernelSpec
    variant: str
    group_size: GroupSize
    params: tuple[tuple[str, int], ...]
    dtype: str = "float32"
    # a tuning-space point: the space (a workbench.kernels.space.TuningSpace) and point
    space: object | None = field(default=None, compare=True)
    point: object | None = None

    @classmethod
    def of_point(cls, space, point) -> Candidate:
        """A point of a tuning space: kernel named after the space, variant the label."""
        return cls(space.name, point.label, tuple(space.group_size(point)),
                   tuple(sorted(space.problem.items())), space.dtype, space, point)

    @property
    def kernel_name(self) -> str:
        return self.kernel if isinstance(self.kernel, str) else self.kernel.name

    @property
    def label(self) -> str:
        return f"{self.kernel_name}/{self.variant}@{format_group_size(self.group_size)}"

    @property
    def params_dict(self) -> dict[str, int]:
        return dict(self.params)

    @functools.cached_property
    def spec(self) -> KernelSpec:
        if self.space is not None:       # built once, when a model needs the kernel
            from workbench.kernels.user import spec_from_loopy
            return spec_from_loopy(self.space.build(self.point),
                                   name=f"{self.space.name}[{self.point.label}]")
        if isinstance(self.kernel, KernelSpec):
            return self.kernel
        from workbench.kernels.catalog import get_kernel
        return get_kernel(self.kernel)

    def request(self) -> BuildRequest:
        spec = self.spec
        if self.space is not None:
            return spec.request("default", self.dtype, spec.fixed_group_size)
        return spec.request(self.variant, self.dtype, self.group_size)

    def build(self):
        """The candidate's loopy program."""
        return self.spec.build(self.request())

    @classmethod
    def of(cls, kernel: str | KernelSpec, params, *, variant: str | None = None,
           dtype: str | None = None, group_size=None) -> Candidate:
        """A validated candidate: unknown variants, dtypes or group sizes raise."""
        from workbench.errors import UnknownNameError
        from workbench.kernels.catalog import get_kernel

        spec = kernel if isinstance(kernel, KernelSpec) else get_kernel(kernel)
        try:   # a catalog kernel is named, so that the candidate stays plain data
            name_or_spec = spec.name if get_kernel(spec.name) is spec else spec
        except UnknownNameError:
            name_or_spec = spec
        request = spec.request(variant, dtype, group_size)
        if group_size is not None and spec.fixed_group_size is not None:
            # a kernel with its group built in says so now, in its own words (it came
            # back from the model as "cannot predict conv1d: GroupSizeError: kernel ..."):
            # the build is kept, and a model would build it anyway
            spec.build(request)
        values = spec.check_parameter_names(dict(params))
        return cls(name_or_spec, request.variant, request.group_size,
                   tuple(sorted(values.items())), request.dtype.value)


def plain_factory_space(candidates):
    """The one ``kernel(point)`` factory space every candidate is a point of, as
    ranking that space makes them; None for anything else (a catalog kernel, a
    templated or sequence space, a mix of spaces)."""
    spaces = {id(c.space): c.space for c in candidates}
    if len(spaces) != 1 or any(c.point is None for c in candidates):
        return None
    space = next(iter(spaces.values()))
    if space is None or getattr(space, "template", None) is not None or \
            getattr(space, "sequence", None) is not None:
        return None
    # a candidate is its point's only where it is what ranking the space makes of it
    if any(c != Candidate.of_point(space, c.point) for c in candidates):
        return None
    return space
