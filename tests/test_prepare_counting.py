"""A factory point prepared for counting only (section 62): loopy's preprocessing less
its code-generation passes, one type reader per kernel, one index resolver per kernel;
every count as with loopy's whole preprocessing."""

import loopy as lp
import numpy as np
import pytest

from workbench.kernels.base import entry_kernel
from workbench.properties import extract_properties
from workbench.properties.features import Granularity

LV = (2018, 2)

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]


def _prefetching_matmul():
    knl = lp.make_kernel("{[i, j, k]: 0 <= i, j, k < n}",
                         "c[i, j] = sum(k, a[i, k] * b[k, j])",
                         [lp.GlobalArg("a, b", np.float32, shape=("n", "n")),
                          lp.GlobalArg("c", np.float32, shape=("n", "n"), is_output=True),
                          lp.ValueArg("n", np.int32)],
                         assumptions="n >= 16 and n mod 16 = 0", lang_version=LV)
    knl = lp.split_iname(knl, "i", 16, outer_tag="g.1", inner_tag="l.1")
    knl = lp.split_iname(knl, "j", 16, outer_tag="g.0", inner_tag="l.0")
    knl = lp.split_iname(knl, "k", 16)
    return lp.add_prefetch(knl, "a", ["i_inner", "k_inner"],
                           fetch_outer_inames="i_outer, j_outer, k_outer",
                           default_tag="l.auto")


def _calls_and_argmax():
    # loopy's scalar functions (sqrt, exp) and an argmax reduction: callables whose
    # descriptors infer_arg_descr would set
    knl = lp.make_kernel("{[i, j]: 0 <= i < n and 0 <= j < m}",
                         """
                         out[i] = sqrt(a[i]) + exp(2.0f * a[i])
                         mx[i], at[i] = argmax(j, b[i, j], j)
                         """,
                         [lp.GlobalArg("a, out, mx", np.float32, shape=("n",)),
                          lp.GlobalArg("b", np.float32, shape=("n", "m")),
                          lp.GlobalArg("at", np.int32, shape=("n",)), ...],
                         lang_version=LV)
    return lp.split_iname(knl, "i", 32, outer_tag="g.0", inner_tag="l.0")


def _strided_clamped():
    # a stride-3 read (a footprint to count) through a clamped index held in a private
    # temporary (an index resolver to build)
    knl = lp.make_kernel("{[i]: 0 <= i < n}",
                         """
                         for i
                             <int32> k = i - 1 {id=k}
                             <int32> neg = k < 0 {id=neg, dep=k}
                             <int32> s = k - 2 * neg * k {id=s, dep=neg}
                             out[i] = a[3*s] + a[3*i + 1] {dep=s}
                         end
                         """,
                         [lp.GlobalArg("a", np.float32, shape=("3*n",)),
                          lp.GlobalArg("out", np.float32, shape=("n",)),
                          lp.ValueArg("n", np.int32)],
                         assumptions="n >= 2", lang_version=LV)
    return lp.split_iname(knl, "i", 64, outer_tag="g.0", inner_tag="l.0")


KERNELS = {"prefetch": _prefetching_matmul, "calls": _calls_and_argmax,
           "strided": _strided_clamped}


def _full_prepare(program):
    """The prepared program as before section 62: loopy's whole preprocessing."""
    from loopy.preprocess import preprocess_program
    from loopy.type_inference import infer_unknown_types

    preprocess = getattr(preprocess_program, "__wrapped__", preprocess_program)
    return infer_unknown_types(preprocess(program), expect_completion=True)


def _everything(program, granularity, subgroup_size):
    from workbench.properties.accesses import kernel_accesses
    from workbench.properties.counting import access_counts, local_barriers, op_counts

    runs: dict = {}
    ops = op_counts(program, granularity, subgroup_size, runs)
    mem = access_counts(program, granularity, subgroup_size, runs)
    barriers = local_barriers(program)
    return ({str(k): str(v.expression()) for k, v in ops.items()},
            {str(k): str(v.expression()) for k, v in mem.items()},
            str(barriers if isinstance(barriers, int) else barriers.pwqpolynomial),
            repr(kernel_accesses(program)))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_counting_prepare_leaves_out_the_descriptor_pass(name):
    """On a one-kernel program the code-generation-only passes are not run: the entry
    kernel's callable has no argument descriptors (loopy's preprocessing sets them)."""
    from workbench.properties.counting import prepare
    from workbench.properties.prepare import counting_passes_apply

    program = KERNELS[name]()
    assert counting_passes_apply(program)
    prepared = prepare(program)
    entry = prepared.callables_table[entry_kernel(prepared).name]
    assert entry.arg_id_to_descr is None
    assert _full_prepare(program).callables_table[entry.name].arg_id_to_descr is not None


@pytest.mark.parametrize("name", sorted(KERNELS))
@pytest.mark.parametrize("granularity,subgroup", [(Granularity.WORKITEM, None),
                                                  (Granularity.SUBGROUP, 32)])
def test_counts_equal_those_of_loopys_whole_preprocessing(name, granularity, subgroup):
    from workbench.properties.counting import prepare

    program = KERNELS[name]()
    assert _everything(prepare(program), granularity, subgroup) == \
        _everything(_full_prepare(program), granularity, subgroup)


def test_other_loopy_or_preprocessed_program_goes_through_loopys_preprocessing(monkeypatch):
    import workbench.properties.prepare as prepare_module
    from workbench.properties.counting import prepare

    program = _calls_and_argmax()
    monkeypatch.setattr(prepare_module, "_loopy_version", lambda: "2099.1")
    assert not prepare_module.counting_passes_apply(program)
    prepared = prepare(program)
    assert prepared.callables_table[entry_kernel(prepared).name].arg_id_to_descr is not None
    monkeypatch.undo()
    # a program preprocessed already is not preprocessed again
    assert not prepare_module.counting_passes_apply(prepared)
    assert prepare(prepared).callables_table is prepared.callables_table


def test_program_with_a_callee_kernel_is_preprocessed_whole():
    from workbench.properties.prepare import counting_passes_apply

    callee = lp.make_function("{[i]: 0 <= i < 4}", "y[i] = 2*x[i]",
                              [lp.GlobalArg("x, y", np.float32, shape=(4,))],
                              name="twice", lang_version=LV)
    caller = lp.make_kernel("{[j]: 0 <= j < 4}",
                            "[j]: z[j] = twice([j]: w[j])",
                            [lp.GlobalArg("w, z", np.float32, shape=(4,))],
                            name="caller", lang_version=LV)
    program = lp.merge([caller, callee])
    assert not counting_passes_apply(program)
    from workbench.properties.counting import prepare

    prepared = prepare(program)   # loopy's whole preprocessing: descriptors set
    assert prepared.callables_table["caller"].arg_id_to_descr is not None


def test_one_type_reader_for_the_counters_of_a_kernel():
    from workbench.properties.counting import (
        _GlobalAccessCounter, _LocalAccessCounter, _OpCounter, prepare,
    )

    first = prepare(_prefetching_matmul())
    knl, callables = entry_kernel(first), first.callables_table
    counters = [counter(knl, callables, None)
                for counter in (_OpCounter, _GlobalAccessCounter, _LocalAccessCounter)]
    assert all(c.type_inf is counters[0].type_inf for c in counters)
    second = prepare(_calls_and_argmax())
    other = _OpCounter(entry_kernel(second), second.callables_table, None).type_inf
    assert other is not counters[0].type_inf and other.kernel is entry_kernel(second)


def test_index_resolver_built_once_per_kernel(monkeypatch):
    """The access counters and the footprints' access model read one resolver."""
    import workbench.properties.index_temporaries as temporaries

    built = []
    original = temporaries.index_resolver

    def counted(knl):
        built.append(knl)
        return original(knl)
    import workbench.properties.accesses as accesses
    import workbench.properties.counting as counting

    monkeypatch.setattr(temporaries, "index_resolver", counted)
    for module in (accesses, counting):   # where a module holds its own name for it
        if hasattr(module, "index_resolver"):
            monkeypatch.setattr(module, "index_resolver", counted)
    props = extract_properties(_strided_clamped())
    assert props.utilization        # the stride-3 array's footprint was counted
    assert len(built) == 1
    extract_properties(_prefetching_matmul())
    assert len(built) == 2          # a new kernel: its own resolver


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_prepared_kernel_not_hashed_for_its_grid_sizes(name, monkeypatch):
    """loopy's memo of the grid sizes is keyed by the callables table: with the kernel
    in it, its first use hashes the whole kernel.  Counted without barriers (no
    linearization), the prepared kernel is never hashed, and its grid sizes are those
    loopy gives with the whole table."""
    hashed = []
    original = lp.LoopKernel.__hash__

    def counted(self):
        hashed.append(self)
        return original(self)
    monkeypatch.setattr(lp.LoopKernel, "__hash__", counted)
    props = extract_properties(KERNELS[name](), barriers=False)
    props.access_model    # the footprints' access model reads the grid sizes too
    knl = entry_kernel(props.program)
    assert not any(k is knl for k in hashed)
    monkeypatch.undo()
    from workbench.properties.kernel_memo import grid_callables

    fresh = _full_prepare(KERNELS[name]())
    assert str(entry_kernel(fresh).get_grid_size_upper_bounds(fresh.callables_table)) == \
        str(knl.get_grid_size_upper_bounds(grid_callables(props.program)))


def test_grid_callables_keep_a_callee_kernel():
    from loopy.kernel.function_interface import CallableKernel

    from workbench.properties.kernel_memo import grid_callables

    callee = lp.make_function("{[i]: 0 <= i < 4}", "y[i] = 2*x[i]",
                              [lp.GlobalArg("x, y", np.float32, shape=(4,))],
                              name="twice", lang_version=LV)
    caller = lp.make_kernel("{[j]: 0 <= j < 4}", "[j]: z[j] = twice([j]: w[j])",
                            [lp.GlobalArg("w, z", np.float32, shape=(4,))],
                            name="caller", lang_version=LV)
    program = lp.merge([caller, callee])
    assert grid_callables(program) is program.callables_table
    one = _calls_and_argmax()
    reduced = grid_callables(one)
    assert not any(isinstance(c, CallableKernel) for c in reduced.values())
    assert set(reduced) == {n for n, c in one.callables_table.items()
                            if not isinstance(c, CallableKernel)}
