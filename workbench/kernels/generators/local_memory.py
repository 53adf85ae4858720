"""Local-memory kernels of the 2019 measurement set.

:func:`local_memory_moves` makes bank-conflict-free moves between local-memory
locations, with barriers only where the moves need them; :func:`local_memory_counts`
gives the designed local accesses and barriers per work item.
"""

from __future__ import annotations

from collections.abc import Mapping

import loopy as lp
import numpy as np

from workbench.errors import GroupSizeError, ParameterError, UnknownNameError
from workbench.kernels import _util as u
from workbench.kernels.base import BuildRequest, DType, KernelRole, KernelSpec
from workbench.kernels.generators.common import (
    LOCAL_MEMORY_LIMIT,
    SET_1D,
    _check_items,
    _loop_assumptions,
    _loop_domain,
    _loop_items,
    _require_group,
    _tag_grid,
)

# {{{ local memory

def local_memory_moves(dtype: str = "float32", moves_per_barrier: int = 1) -> KernelSpec:
    """Moves between local-memory locations, stride 1 in lid(0), no bank conflicts.

    Two local arrays ``A`` and ``B`` of ``m x (G+1)`` elements (``m`` =
    ``moves_per_barrier``, ``G`` the group size). Lane ``l`` initializes ``A[j, l+1]``
    and ``B[j, l]`` from its index; then each of ``iters`` iterations runs two phases::

        B[j, l+1] = A[j, l+1]    for j < m     (A[j, l+1] was written by lane l+1)
        barrier
        A[j, l]   = B[j, l]      for j < m     (B[j, l]  was written by lane l-1)
        barrier

    Every move reads data another lane wrote, so the barriers are needed (loopy places
    them: one per phase, plus one before the final read), and nothing more is. Lanes
    read and write distinct, consecutive elements: no write races, no simultaneous
    reads of one location, no bank conflicts. Shifting the lanes by one between the
    phases leaves ``A[j, 1..G]`` unchanged, so after the loop lane ``l`` stores
    ``A[0, l+1] + ... + A[m-1, l+1]`` (m-1 additions), its own initial values: a result
    that does not depend on the group size, yet is only right if every move was.

    Per work item: ``2m(iters+1)`` local stores, ``m(2 iters + 1)`` local loads,
    ``2 iters + 1`` barriers, one global store.
    """
    dt = DType.parse(dtype)
    m = int(moves_per_barrier)
    if m != moves_per_barrier or m < 1:
        raise ParameterError(f"moves_per_barrier must be a positive integer, got "
                             f"{moves_per_barrier!r}")
    name = f"lmem_moves_{m}perbarrier_{dt.value}"

    def build(req: BuildRequest) -> lp.TranslationUnit:
        _require_group(req, 1)
        if req.dtype is not dt:
            raise UnknownNameError(f"dtype of {name!r}", req.dtype.value, (dt.value,))
        (group,) = req.group_size
        nbytes = 2 * m * (group + 1) * dt.numpy.itemsize
        if nbytes > LOCAL_MEMORY_LIMIT:
            raise GroupSizeError(
                f"{name} needs {nbytes} bytes of local memory with groups of {group} "
                f"(limit {LOCAL_MEMORY_LIMIT}); use fewer moves per barrier")
        w = f"{group}*g + l"
        total = " + ".join(f"a_loc[{j}, l + 1]" for j in range(m))
        insns = f"""
        for g, l
            for j0
                <int32> ka = {_lmem_int_expr('a', w, 'j0')}
                <int32> kb = {_lmem_int_expr('b', w, 'j0')}
                a_loc[j0, l + 1] = ka {{id=init_a}}
                b_loc[j0, l] = kb {{id=init_b}}
            end
            for k
                for j1
                    b_loc[j1, l + 1] = a_loc[j1, l + 1] {{id=phase1, dep=init_a:init_b}}
                end
                for j2
                    a_loc[j2, l] = b_loc[j2, l] {{id=phase2, dep=phase1}}
                end
            end
            out[{w}] = {total} {{dep=phase2:init_a}}
        end
        """
        local = [lp.TemporaryVariable(v, dt.numpy, shape=(m, group + 1),
                                      address_space=lp.AddressSpace.LOCAL)
                 for v in ("a_loc", "b_loc")]
        knl = u.make_kernel(
            _loop_domain(group, "k, j0, j1, j2",
                         f"0 <= k < iters and 0 <= j0, j1, j2 < {m}"),
            insns, [u.array("out", dt, ("n",)), *local, *u.size_args("n", "iters")],
            name="lmem_moves", assumptions=_loop_assumptions(group))
        knl = lp.prioritize_loops(knl, "k,j1")
        knl = lp.prioritize_loops(knl, "k,j2")
        knl = lp.tag_inames(knl, {"j0": "unr", "j1": "unr", "j2": "unr"})
        return _tag_grid(knl)

    def reference(inputs, params) -> dict:
        w = np.arange(params["n"])
        total = sum(_lmem_values("a", w, j) for j in range(m))
        return {"out": u.as_dtype_of(total, dt)}

    return KernelSpec(
        name=name,
        role=KernelRole.MEASUREMENT,
        description=f"{m} {dt.value} move(s) between local arrays per barrier, two "
                    "barrier phases per iteration, lid(0) stride 1 (no bank conflicts).",
        parameters=("n", "iters"),
        variants=("default",),
        dtypes=(dt,),
        group_dims=1,
        default_group_size_set=SET_1D,
        build=build,
        size_cases=lambda p: tuple({"n": _loop_items(p), "iters": 2 ** (t + 5)}
                                   for t in range(4)),
        default_p=17,
        p_choices=(15, 16, 17, 18, 19),
        make_inputs=lambda params, dtype_, rng: {},
        reference=reference,
        check_params={"n": _check_items(), "iters": 3},
    )


_LMEM_VALUES: Mapping[str, tuple[int, int]] = {"a": (3, 1), "b": (5, 17)}


def _lmem_int_expr(array: str, w: str, j: str) -> str:
    step, offset = _LMEM_VALUES[array]
    return f"({w} + {step}*{j}) % 16 + {offset}"


def _lmem_values(array: str, w: np.ndarray, j: int) -> np.ndarray:
    step, offset = _LMEM_VALUES[array]
    return ((w + step * j) % 16 + offset).astype(np.float64)


def local_memory_counts(moves_per_barrier: int, iters: int) -> dict[str, int]:
    """Designed local accesses and barriers of one work item (see
    :func:`local_memory_moves`), keyed by the dtype-free part of the property name."""
    m = moves_per_barrier
    return {"local_store": 2 * m * (iters + 1), "local_load": m * (2 * iters + 1),
            "barrier": 2 * iters + 1, "add": m - 1}

# }}}

# vim: foldmethod=marker
