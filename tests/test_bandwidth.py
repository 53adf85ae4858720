"""The bandwidth microbenchmarks build, run and report consistent byte counts."""

import numpy as np
import pytest

from workbench.measure.bandwidth import cache_sweep, dram_stream, run


def test_microbenchmarks_run_and_count_bytes(queue):
    import pyopencl as cl
    q = cl.CommandQueue(queue.context,
                        properties=cl.command_queue_properties.PROFILING_ENABLE)
    copy = dram_stream(1 << 16)
    assert copy.bytes_moved == 2 * 4 * (1 << 16)
    l1 = cache_sweep("l1", 1 << 12, 1024, 8)
    # each of 4096 work items reads 8 floats and writes one
    assert l1.bytes_moved == 4 * 4096 * 8 + 4 * 4096
    for bench in (copy, cache_sweep("l2", 1 << 12, 1 << 14, 8), l1):
        result = run(bench, q, runs=5, discard=1)
        assert result["time_s"] > 0 and np.isfinite(result["bandwidth_GBps"])
        assert len(result["raw_times_s"]) == 5


def test_slices_must_be_powers_of_two():
    with pytest.raises(ValueError, match="power of two"):
        cache_sweep("l1", 1024, 1000, 4)
