"""Round 7 of issue #34: the microbenchmarks of L1 reuse without a prefetch, a private
array indexed by loaded keys, and exp/log chains, and the features that price them."""

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

NAMES = ("window_filter", "broadcast_coeffs", "private_scatter", "explog_chain")


def test_the_microbenchmarks_resolve_by_name_and_stay_out_of_the_catalog():
    from workbench.kernels import all_kernels, get_kernel
    from workbench.kernels.base import KernelRole

    for name in NAMES:
        assert get_kernel(name).name == name
        assert get_kernel(name).role is KernelRole.MEASUREMENT
    assert not set(NAMES) & {s.name for s in all_kernels()}


@pytest.mark.parametrize("name", NAMES)
def test_the_microbenchmarks_match_their_references_on_pocl(name, queue):
    from workbench.kernels import get_kernel
    from workbench.kernels.base import BuildRequest, DType

    spec = get_kernel(name)
    variant = spec.variants[-1]
    dtype = DType.parse("float64")
    params = spec.check_params
    inputs = spec.inputs(params, dtype, np.random.default_rng(3), variant)
    knl = spec.build(BuildRequest(variant, dtype, (32,)))
    _, outs = knl(queue, **inputs, **params)
    (name_out, expected), = spec.expected(inputs, params, variant).items()
    np.testing.assert_allclose(outs[0], expected, rtol=1e-10)
