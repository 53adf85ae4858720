"""One kernel configuration to predict, rank or measure: the unit a model's
``rank()`` orders and a tuner evaluates.

A candidate names its kernel (a catalog name, or the :class:`KernelSpec` of a user's
kernel or of a tuning-space point), the variant, dtype and work-group size of its
build, and its size parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.kernels.base import BuildRequest, GroupSize, KernelSpec, format_group_size


@dataclass(frozen=True)
class Candidate:
    kernel: str | KernelSpec
    variant: str
    group_size: GroupSize
    params: tuple[tuple[str, int], ...]
    dtype: str = "float32"

    @property
    def kernel_name(self) -> str:
        return self.kernel if isinstance(self.kernel, str) else self.kernel.name

    @property
    def label(self) -> str:
        return f"{self.kernel_name}/{self.variant}@{format_group_size(self.group_size)}"

    @property
    def params_dict(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def spec(self) -> KernelSpec:
        if isinstance(self.kernel, KernelSpec):
            return self.kernel
        from workbench.kernels.catalog import get_kernel
        return get_kernel(self.kernel)

    def request(self) -> BuildRequest:
        return self.spec.request(self.variant, self.dtype, self.group_size)

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
        values = spec.check_parameter_names(dict(params))
        return cls(name_or_spec, request.variant, request.group_size,
                   tuple(sorted(values.items())), request.dtype.value)
