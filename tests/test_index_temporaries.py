"""Global indices held in private temporaries (round 17 of #34): the access counts see
through a clamped or reflected index to the work-item strides, as a plain copy's; a
gather's index (read from an array) and a running temporary are left as loopy reads them."""

import loopy as lp
import numpy as np
import pytest

from workbench.kernels.base import entry_kernel
from workbench.properties import kernel_properties
from workbench.properties.counting import prepare
from workbench.properties.index_temporaries import index_resolver

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

N = 1000


def _kernel(body: str, extra=()) -> lp.TranslationUnit:
    knl = lp.make_kernel(
        "{[i]: 0 <= i < n}", body,
        [lp.GlobalArg("a", np.float32, shape=("n",)), lp.GlobalArg("out", np.float32, shape=("n",)),
         *extra, lp.ValueArg("n", np.int32)],
        name="clamped", assumptions="n >= 2", lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 256, outer_tag="g.0", inner_tag="l.0")


def _counts(tu) -> dict:
    props = kernel_properties(tu)
    return {k: v for k, v in props.evaluate_named({"n": N}).items() if v}


CLAMPED = """
    for i
        <int32> k = i - 1 {id=k}
        <int32> neg = k < 0 {id=neg, dep=k}
        <int32> s = k - 2 * neg * k {id=s, dep=neg}
        out[i] = a[s] {dep=s}
    end
    """


def test_a_reflected_index_is_read_at_the_stride_of_its_interior():
    # loopy alone names no iname in a[s]: a uniform load (stride 0, one sector a warp)
    got = _counts(_kernel(CLAMPED))
    assert got["f_mem_access_global_float32_load_stride1"] == N
    assert "f_mem_access_global_float32_load_stride0" not in got
    assert got["f_mem_access_global_float32_store_stride1"] == N


def test_a_clamp_by_an_if_is_read_at_the_stride_of_its_interior():
    clamped = _kernel("""
        for i
            <int32> k = i - 1 {id=k}
            <int32> s = if(k < 0, 0, k) {id=s, dep=k}
            out[i] = a[s] {dep=s}
        end
        """)
    assert _counts(clamped)["f_mem_access_global_float32_load_stride1"] == N


def test_a_gather_and_a_running_temporary_are_left_alone():
    gather = _kernel("""
        for i
            <int32> k = idx[i] {id=k}
            out[i] = a[k] {dep=k}
        end
        """, extra=[lp.GlobalArg("idx", np.int32, shape=("n",))])
    assert index_resolver(entry_kernel(prepare(gather))) is None
    running = _kernel("""
        for i
            <int32> k = i {id=k0}
            k = k + 1 {id=k1, dep=k0}
            out[i] = a[k] {dep=k1}
        end
        """)
    assert index_resolver(entry_kernel(prepare(running))) is None
    in_a_loop = lp.make_kernel(
        ["{[i]: 0 <= i < n}", "{[c]: 0 <= c < 4}"], """
        for i
            for c
                <int32> k = 4 * i + c {id=k}
                out[i] = a[k] {id=o, dep=k}
            end
        end
        """, [lp.GlobalArg("a", np.float32, shape=("4 * n",)),
              lp.GlobalArg("out", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        name="in_a_loop", assumptions="n >= 2", lang_version=(2018, 2))
    in_a_loop = lp.split_iname(in_a_loop, "i", 256, outer_tag="g.0", inner_tag="l.0")
    assert index_resolver(entry_kernel(prepare(in_a_loop))) is None
    assert index_resolver(entry_kernel(prepare(_kernel(CLAMPED)))) is not None
