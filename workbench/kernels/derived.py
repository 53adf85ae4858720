"""Kernels derived from the catalog, found by name (see :mod:`workbench.kernels.catalog`).

* ``<name>_wr``: the work-removed version of catalog kernel ``<name>`` (2019 paper);
* the generated 2019 measurement kernels, by their generated names;
* the block-size study's kernels (Ernst et al.), for ``volumes`` and ``rank-blocks``;
  not part of the calibration catalog;
* the local-memory tree, scan and stream microbenchmarks
  (:mod:`workbench.kernels.generators.local_trees`), so that their measurements join
  a fit; not part of the calibration catalog either;
* the L1-reuse, private-stack and exp/log chain microbenchmarks
  (:mod:`workbench.kernels.generators.reuse_stack_chains`), likewise;
* the row-walk and erfc microbenchmarks of round 10
  (:mod:`workbench.kernels.generators.row_walk`), likewise;
* the operation-chain microbenchmark of round 11
  (:mod:`workbench.kernels.generators.op_chains`), likewise.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from workbench.kernels.base import KernelSpec

WORK_REMOVED_SUFFIX = "_wr"


@functools.lru_cache(maxsize=1)
def _generated_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.generators import measurement_set_2019
    return {s.name: s for s in measurement_set_2019(("float32", "float64"))}


@functools.lru_cache(maxsize=1)
def _study_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.study import lbm_spec, star_stencil_spec
    return {s.name: s for s in (star_stencil_spec(), lbm_spec())}


@functools.lru_cache(maxsize=1)
def _local_trees_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.generators.local_trees import local_tree_specs
    return {s.name: s for s in local_tree_specs()}


@functools.lru_cache(maxsize=1)
def _reuse_stack_chains_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.generators.reuse_stack_chains import reuse_stack_chain_specs
    return {s.name: s for s in reuse_stack_chain_specs()}


@functools.lru_cache(maxsize=1)
def _row_walk_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.generators.row_walk import row_walk_specs
    return {s.name: s for s in row_walk_specs()}


@functools.lru_cache(maxsize=1)
def _op_chains_by_name() -> dict[str, KernelSpec]:
    from workbench.kernels.generators.op_chains import op_chain_specs
    return {s.name: s for s in op_chain_specs()}


def resolve_derived(name: str, catalog: Callable[[str], KernelSpec | None]
                    ) -> KernelSpec | None:
    """The derived kernel called ``name``, or None; ``catalog`` looks up base kernels."""
    if name.endswith(WORK_REMOVED_SUFFIX):
        base = catalog(name[: -len(WORK_REMOVED_SUFFIX)])
        if base is not None:
            from workbench.kernels.work_removal import work_removed_spec
            return work_removed_spec(base)
    return (_generated_by_name().get(name) or _study_by_name().get(name)
            or _local_trees_by_name().get(name) or _reuse_stack_chains_by_name().get(name)
            or _row_walk_by_name().get(name) or _op_chains_by_name().get(name))
