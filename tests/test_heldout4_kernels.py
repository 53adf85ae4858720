"""The fourth held-out kernel set (``--set heldout4``): never fitted, checked and counted.

Its kernels have role UNSEEN (so every fit's exclusion of that role covers them), are
checked with the other sets in test_heldout_sets.py; here a few counts are pinned
against the kernels' text. Nothing here predicts with a model: the set stays unseen by model design.
"""

from __future__ import annotations

import pytest
from test_catalog import nonzero_counts

from workbench.kernels.defs.heldout4 import BUCKET_CHUNK, FIR_TAPS, QF_SIZE

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def test_filter_buckets_and_quadform_count_their_loops():
    n = 1000
    got = nonzero_counts("decimate_fir", "unrolled", (128,), {"n": n})
    # every tap one multiply-add; the filter is a broadcast (stride-0) load
    assert got["f_op_float32_mul"] == got["f_mem_access_global_float32_load_stride0"] \
        == FIR_TAPS * n
    assert got["f_mem_access_global_float32_store_stride1"] == n
    nc = 300
    for variant in ("contiguous", "interleaved"):
        got = nonzero_counts("keyed_bucket_sums", variant, (128,), {"nc": nc})
        loads = {k: v for k, v in got.items() if "_load_" in k}
        # one key and one value per entry; the private sums are not global traffic
        assert sum(v for k, v in loads.items() if "int32" in k) == BUCKET_CHUNK * nc
        assert sum(v for k, v in loads.items() if "float32" in k) == BUCKET_CHUNK * nc
        assert got["f_op_float32_add"] == BUCKET_CHUNK * nc
    nb, s = 300, QF_SIZE
    got = nonzero_counts("batched_quadform", "own_matrix", (128,), {"nb": nb}, "float64")
    assert got["f_op_float64_mul"] == (s * s + s) * nb
    assert got["f_mem_access_global_float64_load_stride1"] == (s * s + s) * nb
