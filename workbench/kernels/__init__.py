"""Kernels: what a user picks and what the models read and the device runs.

* :mod:`.base`: :class:`KernelSpec` (a loopy builder plus sizes, inputs and a numpy
  reference), build requests, group-size sets, parameter parsing;
* :mod:`.defs`: the unified-model paper's measurement and test kernels;
* :mod:`.catalog`: the catalog by name, including kernels derived from it
  (:mod:`.derived`): work-removed twins, the 2019 generated kernels, study kernels;
* :mod:`.generators`: the 2019 paper's measurement-kernel generators;
* :mod:`.work_removal`: the 2019 work-removal transformation (in-situ features);
* :mod:`.study`: the block-size study's kernels (Ernst et al.);
* :mod:`.families`: variant families for model-guided selection;
* :mod:`.candidate`: one configuration to predict, rank or measure;
* :mod:`.space`: search spaces over a kernel's variants (:class:`TuningSpace`, its
  :class:`Point` and :class:`LaunchSequence`), explored by :mod:`workbench.tuning`;
* :mod:`.user`: a user's own loopy kernel, from a notebook or a file.
"""

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
from workbench.kernels.candidate import Candidate
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.space import LaunchSequence, Point, TuningSpace
from workbench.kernels.user import load_user_kernel, resolve_kernel, spec_from_loopy

__all__ = [
    "GROUP_SIZE_SETS", "BuildRequest", "Candidate", "DType", "GroupSizeSet", "KernelRole", "KernelSpec",
    "LaunchSequence", "Point", "TuningSpace",
    "all_kernels", "format_group_size", "get_kernel", "load_user_kernel", "parse_group_size",
    "parse_parameters", "resolve_kernel", "spec_from_loopy",
]
