"""The kernel catalog: the unified-model paper's measurement and test kernels."""

from workbench.kernels.base import (
    GROUP_SIZE_SETS,
    BuildRequest,
    DType,
    GroupSizeSet,
    KernelRole,
    KernelSpec,
    format_group_size,
    parse_group_size,
    parse_parameters,
)
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.user import load_user_kernel, resolve_kernel, spec_from_loopy

__all__ = [
    "GROUP_SIZE_SETS", "BuildRequest", "DType", "GroupSizeSet", "KernelRole", "KernelSpec",
    "all_kernels", "format_group_size", "get_kernel", "load_user_kernel", "parse_group_size",
    "parse_parameters", "resolve_kernel", "spec_from_loopy",
]
