"""The 'work removal' transformation of Stevens & Klöckner (2019), section 7.1.1.

``remove_work(kernel)`` derives from a loopy kernel one that performs the same
global-memory traffic -- the same arrays and index expressions, each access in its
instruction's loop nest (``within_inames``), the same iname tags and launch grid --
but none of the on-chip work: no floating-point arithmetic, no local-memory traffic
and so none of the local barriers that protected it.  Its run time is the cost of
the original's global-memory accesses "in situ", the paper's proxy feature for
access patterns that no microbenchmark describes.  ``work_removed_spec`` wraps a
catalog or user :class:`KernelSpec` so that the derived kernel goes everywhere a
catalog kernel goes; ``tag_global_accesses`` attaches the paper's access tags
(``a$aLD``) so that an in-situ feature can name the accesses it stands for.

Limitations: the kernel must be in loopy's initial state (remove work before
preprocessing); raw C instructions, atomic updates and calls to loopy sub-kernels
raise :class:`~workbench.errors.UnsupportedKernelError` (their accesses cannot be
seen or moved); carriers are per work item, so ILP/vector inames share one carrier
(all loads stay live, but the original's independent accumulators become one
chain); float arithmetic or local memory used to compute an *address* survives with
the index computation; a kernel split by global barriers would make loopy save
carriers that cross the split to global memory; accumulating carriers need a
constant work-group size (loopy's OpenCL targets have one).

Modules
-------
* :mod:`.transform`: :func:`remove_work` and the rewriting phase, with the design
  (how values travel, what is dropped, what is kept, a loopy pitfall);
* :mod:`.analysis`: the analysis phase (supported kernels, index temporaries, data
  flow from sources to stores);
* :mod:`.scan`: sorting the accesses of an instruction by role;
* :mod:`.helpers`: small helpers (selections, dtypes, entry points, domains);
* :mod:`.specs`: :func:`work_removed_spec` and :func:`tag_global_accesses`.
"""

from __future__ import annotations

from workbench.kernels.work_removal.specs import tag_global_accesses, work_removed_spec
from workbench.kernels.work_removal.transform import SUFFIX, remove_work

__all__ = ["SUFFIX", "remove_work", "tag_global_accesses", "work_removed_spec"]
