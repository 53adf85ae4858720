"""The bytes a kernel with a gather must move across DRAM at least (issue #34, round 21).

A kernel's footprint (the distinct elements its global accesses touch, an ISL count) is
"not countable" where one subscript reads an index computed from loaded data or from
clamped or rounded coordinates: ISL cannot bound the elements such a subscript reaches,
and the DRAM stream bounds (``f_dram_inflight_s``, ``f_dram_stencil_stream_s``) then read a
footprint of 0, so the kernel is priced at its sectors' L1/L2-level rate only.  Its affine
subscripts still touch countable elements, which must cross DRAM once where they do not
stay in L2: heldout18's nonmax_suppress reads each pixel's gradient and magnitude and
writes its output through affine subscripts (four arrays of 8192² float32, 1.07 GB) and
gathers only the two neighbours across the edge.  :func:`affine_footprint_bytes` is the
union, per array, of the elements its affine subscripts touch (the subscripts ISL can map,
the gathered ones left out), in bytes: a lower bound of the footprint, equal to it where
every subscript is affine.  ``f_dram_gather_stream_s``
(:mod:`workbench.models.reread_features`) prices it as ``f_dram_inflight_s`` prices a
countable footprint.
"""

from __future__ import annotations

import functools

import numpy as np

from workbench.kernels.candidate import Candidate


@functools.lru_cache(maxsize=256)
def _affine_elements(spec, request):
    """(array, element bytes, symbolic distinct elements) of the affine subscripts of
    every global array that has one."""
    from loopy.symbolic import get_access_map

    from workbench.properties.accesses import kernel_accesses
    from workbench.properties.counting import require_barvinok
    from workbench.properties.symbolic import pwqpolynomial_to_expr

    require_barvinok()
    program = spec.build(request)
    accesses = kernel_accesses(program)
    per_array = {}
    for ins in accesses.instructions:
        for sub in ins.subscripts:
            try:
                touched = get_access_map(ins.domain, sub.index, accesses.assumptions).range()
            except Exception:  # noqa: BLE001 - a gathered index: not countable, left out
                continue
            name = sub.array
            per_array[name] = per_array[name] | touched if name in per_array else touched
    from workbench.kernels.base import entry_kernel

    itemsize = {a.name: np.dtype(a.dtype.numpy_dtype).itemsize
                for a in entry_kernel(program).args if a.name in per_array}
    return tuple((name, itemsize[name], pwqpolynomial_to_expr(s.coalesce().card()))
                 for name, s in per_array.items())


def affine_footprint_bytes(candidate: Candidate) -> float:
    """Distinct bytes the affine subscripts of ``candidate`` touch (NaN where the kernel
    cannot be built or counted)."""
    from workbench.properties.symbolic import evaluate_many

    try:
        arrays = _affine_elements(candidate.spec, candidate.request())
        exprs = {name: expr for name, _, expr in arrays}
        values = evaluate_many(exprs, {k: np.array([v])
                                       for k, v in candidate.params_dict.items()})
    except Exception:  # noqa: BLE001 - a kernel that cannot be built: unknown
        return float("nan")
    return float(sum(float(np.asarray(values[name]).reshape(-1)[0]) * size
                     for name, size, _ in arrays))
