"""Latency microbenchmarks: what one work item's serial work costs, and how much of
it a multiprocessor overlaps (memory-level parallelism, Little's law).

Each kernel gives ``n`` work items (1-D, ``n`` a multiple of the group size) one
sequential loop of ``steps`` trips that carries a dependence from trip to trip, so a
trip cannot start before the previous one ends:

* :func:`fma_chain`: ``x = x * alpha + beta``: the latency of a dependent fused
  multiply-add (alpha and beta are runtime scalars, so nothing folds);
* :func:`pointer_chase`: ``p = next[p]``: the latency of a dependent global load, the
  chain laid out by the caller (:func:`chase_cycle`: one random cycle over the array,
  so the array's size decides the level of the memory hierarchy that answers);
* :func:`column_sum`: ``acc = acc + a[t, i]``: independent, coalesced loads feeding a
  dependent add: how many loads one work item (one warp) keeps in flight, the
  pattern of a column-wise running sum or a single work item's loop.
* :func:`forward_substitution`: ``L x = b`` for one small lower-triangular system per
  work item, the solution in a private array: each step of the inner loop loads an
  entry of ``L`` and multiplies it into the accumulator with a solution entry an
  earlier trip stored (a substitution chain); the matrices either interleaved over the
  work items (``adjacent``: a warp's loads share lines) or one after another
  (``apart``: every lane's load its own line).

Varying ``n`` from one work item to many warps per multiprocessor shows where the
time per trip stops being one item's latency and becomes the device's throughput.
:func:`sequential_matmul` and :func:`sequential_axpy` have no hardware axis at all
(one work item), as kernels written without a thought of the GPU do: they check the
serial-work price, they do not calibrate it.  None of these is registered in the
catalog; ``benchmarks/latency_microbench.py`` times them.
"""

from __future__ import annotations

import loopy as lp
import numpy as np

from workbench.kernels import _util as u
from workbench.kernels.base import DType

#: the microbenchmarks and what each dependent trip exposes
LATENCY_KERNELS: dict[str, str] = {
    "fma_chain": "a dependent fused multiply-add",
    "pointer_chase": "a dependent global load",
    "column_sum": "a coalesced load feeding a dependent add",
}
#: one-work-item kernels that check the price of serial work (not calibration)
SEQUENTIAL_CHECKS: dict[str, str] = {
    "sequential_matmul": "c = a b, every loop sequential",
    "sequential_axpy": "y = alpha x + y, every loop sequential",
}


def _one_dimensional(knl: lp.TranslationUnit, group: int) -> lp.TranslationUnit:
    return u.split_1d(knl, "i", (group,))


def fma_chain(dtype: DType | str = "float32", group: int = 32) -> lp.TranslationUnit:
    """``out[i]`` after ``steps`` dependent ``x = x * alpha + beta`` from ``x0[i]``."""
    dtype = DType.parse(dtype)
    knl = u.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < steps}",
        """
        for i
            <> x = x0[i] {id=init}
            for k
                x = x * alpha + beta {id=update, dep=init}
            end
            out[i] = x {dep=update}
        end
        """,
        [u.array("x0", dtype, ("n",)), u.array("out", dtype, ("n",)),
         lp.ValueArg("alpha", dtype.numpy), lp.ValueArg("beta", dtype.numpy),
         *u.size_args("n", "steps")],
        name="fma_chain", assumptions="n >= 1 and steps >= 1")
    return _one_dimensional(knl, group)


def pointer_chase(group: int = 32) -> lp.TranslationUnit:
    """``out[i]`` after ``steps`` dependent loads ``p = next[p]`` from ``start[i]``."""
    knl = u.make_kernel(
        "{[i, k]: 0 <= i < n and 0 <= k < steps}",
        """
        for i
            <> p = start[i] {id=init}
            for k
                p = nxt[p] {id=update, dep=init}
            end
            out[i] = p {dep=update}
        end
        """,
        [lp.GlobalArg("nxt", np.int32, shape=("length",)),
         lp.GlobalArg("start", np.int32, shape=("n",)),
         lp.GlobalArg("out", np.int32, shape=("n",)),
         *u.size_args("n", "steps", "length")],
        name="pointer_chase", assumptions="n >= 1 and steps >= 1")
    return _one_dimensional(knl, group)


def column_sum(dtype: DType | str = "float32", group: int = 32) -> lp.TranslationUnit:
    """``out[i] = sum_t a[t, i]``: one work item per column, a loop of ``steps`` rows."""
    dtype = DType.parse(dtype)
    knl = u.make_kernel(
        "{[i, t]: 0 <= i < n and 0 <= t < steps}",
        """
        for i
            <> acc = 0 {id=init}
            for t
                acc = acc + a[t, i] {id=update, dep=init}
            end
            out[i] = acc {dep=update}
        end
        """,
        [u.array("a", dtype, ("steps", "n")), u.array("out", dtype, ("n",)),
         *u.size_args("n", "steps")],
        name="column_sum", assumptions="n >= 1 and steps >= 1")
    return _one_dimensional(knl, group)


#: layouts of :func:`forward_substitution`: how L[e, i, j] of system e is stored
SUBSTITUTION_LAYOUTS: dict[str, tuple[str, tuple]] = {
    "adjacent": ("L[{r}, {j}, i]", ("size", "size", "n")),
    "apart": ("L[i, {r}, {j}]", ("n", "size", "size")),
}


def forward_substitution(dtype: DType | str = "float32", layout: str = "adjacent",
                         size: int = 16, group: int = 32) -> lp.TranslationUnit:
    """``x_i`` of ``L_i x_i = b_i`` for ``n`` lower-triangular ``size`` x ``size``
    systems, one work item each: ``size (size - 1) / 2`` chained steps a work item."""
    dtype = DType.parse(dtype)
    if layout not in SUBSTITUTION_LAYOUTS:
        raise ValueError(f"layout {layout!r}: one of {', '.join(SUBSTITUTION_LAYOUTS)}")
    entry, shape = SUBSTITUTION_LAYOUTS[layout]
    shape = tuple(size if d == "size" else d for d in shape)
    knl = u.make_kernel(
        ["{[i, r]: 0 <= i < n and 0 <= r < %d}" % size, "{[j]: 0 <= j < r}"],
        f"""
        for i
            for r
                <> acc = b[i] {{id=init}}
                for j
                    acc = acc - {entry.format(r="r", j="j")} * xs[j] {{id=update, dep=*init}}
                end
                xs[r] = acc / {entry.format(r="r", j="r")} {{id=solve, dep=update}}
            end
            out[i] = xs[{size - 1}] {{dep=solve}}
        end
        """,
        [u.array("L", dtype, shape), u.array("b", dtype, ("n",)),
         u.array("out", dtype, ("n",)),
         lp.TemporaryVariable("xs", dtype.numpy, shape=(size,),
                              address_space=lp.AddressSpace.PRIVATE),
         *u.size_args("n")],
        name="forward_substitution", assumptions="n >= 1")
    return _one_dimensional(knl, group)


def substitution_steps(size: int) -> int:
    """The chained steps (inner-loop trips) of one work item of
    :func:`forward_substitution`."""
    return size * (size - 1) // 2


def sequential_matmul(dtype: DType | str = "float32") -> lp.TranslationUnit:
    """``c = a b`` for n x n matrices with no hardware axis: one work item does it all
    (a kernel as a user might first write it; a check of the serial-work price)."""
    dtype = DType.parse(dtype)
    return u.make_kernel(
        "{[i, j, k]: 0 <= i, j, k < n}",
        """
        c[i, j] = sum(k, a[i, k] * b[k, j])
        """,
        [u.array(name, dtype, ("n", "n")) for name in "abc"] + u.size_args("n"),
        name="sequential_matmul", assumptions="n >= 1")


def sequential_axpy(dtype: DType | str = "float32") -> lp.TranslationUnit:
    """``y = alpha x + y`` with no hardware axis: one work item loops over all n."""
    dtype = DType.parse(dtype)
    return u.make_kernel(
        "{[i]: 0 <= i < n}",
        """
        y[i] = alpha * x[i] + y[i]
        """,
        [u.array("x", dtype, ("n",)), u.array("y", dtype, ("n",)),
         lp.ValueArg("alpha", dtype.numpy), *u.size_args("n")],
        name="sequential_axpy", assumptions="n >= 1")


def chase_cycle(size: int, rng: np.random.Generator) -> np.ndarray:
    """``next`` of one random cycle through all ``size`` entries (int32): a chase
    from any entry visits every entry before it repeats, in an order no prefetcher
    guesses."""
    order = rng.permutation(size).astype(np.int32)
    nxt = np.empty(size, dtype=np.int32)
    nxt[order] = np.roll(order, -1)
    return nxt
