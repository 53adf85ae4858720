"""The serial chain of a running sum (f_recurrence_s): found from the kernel's code,
priced by the latency microbenchmarks' column trip, 0 elsewhere; and the local stores
of a prefetch (f_prefetch_local_stores) (issue 34, items 1 and 3, round 5)."""

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"


def _cumsum(n=1024, m=8192, group=128, dtype="float32"):
    return Candidate("column_cumsum", "sequential", (group,), (("m", m), ("n", n)), dtype)


def test_a_running_sum_is_found_along_its_sequential_loop_only():
    from workbench.models.parallelism import _grid, running_sums, sequential_inames

    c = _cumsum()
    _, _, knl = _grid(c.spec, c.request())
    (found,) = running_sums(knl, sequential_inames(knl))
    assert (found.carried, found.stored, found.loops) == ("acc", "out", frozenset({"t"}))
    axpy = Candidate("vector_scale_add", "stride1", (256,), (("n", 4096),), "float32")
    _, _, knl = _grid(axpy.spec, axpy.request())
    assert running_sums(knl, sequential_inames(knl)) == ()


def test_the_chain_is_trips_times_the_measured_trip_per_precision():
    from workbench.models.floors import floors_of_device
    from workbench.models.recurrence_features import recurrence_trips, recurrence_values

    prices = dict(floors_of_device(DEVICE).serial.column_trip_s)
    assert prices["float32"] == pytest.approx(42.09e-9)
    assert prices["float64"] == pytest.approx(57.52e-9)
    rows = [_cumsum(), _cumsum(m=4096, dtype="float64"), _cumsum(n=8192, group=256)]
    assert recurrence_trips(rows[1]) == 4096
    got = recurrence_values(rows, DEVICE)["f_recurrence_s"]
    # fewer groups than SMs: one wave, each work item walks its m rows
    np.testing.assert_allclose(got, [8192 * 42.09e-9, 4096 * 57.52e-9, 8192 * 42.09e-9])


def test_no_running_sum_no_chain_and_a_device_without_the_price_none():
    from workbench.models.recurrence_features import recurrence_values

    axpy = Candidate("vector_scale_add", "stride1", (256,), (("n", 1 << 20),), "float32")
    assert recurrence_values([axpy], DEVICE)["f_recurrence_s"].tolist() == [0.0]
    assert recurrence_values([_cumsum()], "no such device")["f_recurrence_s"].tolist() == [0.0]


def test_a_model_adds_the_chain_unweighted():
    from workbench.models.expressions.spec import ExpressionModelSpec

    spec = ExpressionModelSpec.create("p_launch*f_sync_kernel_launch + f_recurrence_s")
    assert spec.parameters == ("p_launch",)
    assert "f_recurrence_s" in spec.features


def test_a_priced_running_sum_is_said_as_priced_and_an_unpriced_one_as_outside():
    from workbench.models.parallelism import CaveatKind, structure_caveats

    assert {c.kind for c in structure_caveats(_cumsum())} == {CaveatKind.SCAN_RECURRENCE}
    (priced,) = structure_caveats(_cumsum(), priced_running_sums=True)
    assert priced.kind == CaveatKind.RUNNING_SUM and "f_recurrence_s" in priced.message
    # a substitution (batched_trsv) is not a running sum: unpriced either way
    trsv = Candidate("batched_trsv", "batch_minor", (128,), (("nb", 4096),))
    assert {c.kind for c in structure_caveats(trsv, priced_running_sums=True)} == \
        {CaveatKind.SCAN_RECURRENCE}


def test_prefetch_stores_are_the_stores_of_global_loads_to_local_memory_only():
    from workbench.models.local_features import prefetch_stores_of

    # block_scan: one store of a loaded element per work item, then the scan's steps
    scan = Candidate("block_scan", "hillis_steele", (128,), (("n", 4096),))
    assert prefetch_stores_of(scan) == 4096 / 32
    # a tree that stores what it computes, not a load: no prefetch
    tree = Candidate("local_tree", "sequential", (64,), (("iters", 3), ("n", 128)))
    assert prefetch_stores_of(tree) == 0


def test_every_warp_of_a_prefetching_group_counts_as_loopy_counts_a_local_store():
    from workbench.models.local_features import prefetch_stores_of
    from workbench.properties import kernel_properties

    c = Candidate("stencil9_prefetch", "prefetch", (16, 16), (("n", 1024),))
    props = kernel_properties(c.spec, variant="prefetch", dtype="float32",
                              group_size=(16, 16), granularity="subgroup", subgroup_size=32)
    loopy_stores = sum(float(v) for f, v in props.evaluate({"n": 1024}).items()
                       if f.name.startswith("f_mem_access_local") and "store" in f.name)
    assert prefetch_stores_of(c) == loopy_stores == 131072


def test_the_chain_pays_for_serial_dependence():
    from workbench.models.terms import Category, category_of

    assert category_of("f_recurrence_s") is Category.SERIAL
    assert category_of("f_prefetch_local_stores") is Category.ON_CHIP


def test_a_value_carried_in_registers_and_written_only_to_registers_is_no_running_sum():
    # round 11 of #34: heldout8's mandelbrot_escape carries z along its 64 iterations
    # and writes |z|^2 to a register at every trip; no trip waits on memory, and with
    # the SM full the chain's latency hides behind the other warps (it took 0.036 ms
    # where the added chain alone was priced at 0.011 ms). It stops being one.
    from workbench.models.parallelism import _grid, running_sums, sequential_inames
    from workbench.models.recurrence_features import recurrence_trips

    escape = Candidate("mandelbrot_escape", "mandelbrot", (16, 16),
                       (("m", 1024), ("n", 1024)), "float32")
    _, _, knl = _grid(escape.spec, escape.request())
    assert running_sums(knl, sequential_inames(knl)) == ()
    assert recurrence_trips(escape) == 0
    assert recurrence_trips(_cumsum()) == 8192


def test_a_running_sum_stored_through_a_register_is_still_one():
    # acc carried along t, scaled into a register, the register stored at every trip:
    # each trip's store waits on the chain as a direct ``out[t, i] = acc`` does
    import loopy as lp

    from workbench.kernels.base import entry_kernel
    from workbench.models.parallelism import running_sums, sequential_inames

    knl = lp.make_kernel(
        "{[i, t]: 0<=i<n and 0<=t<m}",
        """for i
            <> acc = 0 {id=zero}
            for t
                acc = acc + x[t, i] {id=update, dep=zero}
                <> scaled = 0.5*acc {id=scale, dep=update}
                out[t, i] = scaled {dep=scale}
            end
        end""",
        [lp.GlobalArg("x,out", np.float32, shape=("m", "n")), ...], lang_version=(2018, 2))
    knl = entry_kernel(lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0"))
    (found,) = running_sums(knl, sequential_inames(knl))
    assert (found.carried, found.stored, found.loops) == ("acc", "out", frozenset({"t"}))
