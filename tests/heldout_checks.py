"""Checks every held-out kernel set passes (``heldout3`` to ``heldout22``): a campaign set
of its own, never trained on, sized so that every array is int32-indexable and fits the
device, and run once per variant on pocl with the precisions alternating."""

from __future__ import annotations

import math

import pymbolic

from workbench.cli.measure_cmds import measurement_specs
from workbench.kernels import _util as u
from workbench.kernels.base import GROUP_SIZE_SETS, KernelRole
from workbench.kernels.catalog import all_kernels, get_kernel
from workbench.kernels.defs import UNSEEN_SETS
from workbench.models.dataset import TRAINABLE_ROLES


def check_a_set_of_its_own(set_name: str, specs, names: set[str]) -> None:
    assert {s.name for s in specs} == names
    assert all(s.role is KernelRole.UNSEEN for s in specs)
    assert KernelRole.UNSEEN.value not in TRAINABLE_ROLES
    assert all(get_kernel(s.name) is s for s in specs)
    assert not names & {s.name for s in all_kernels()}
    assert measurement_specs(set_name, ()) == specs
    others = {s.name for name, other in UNSEEN_SETS.items() if name != set_name
              for s in other}
    assert not names & others


def check_conventions_and_size_cases(spec, max_float64_bytes: float) -> None:
    assert spec.dtypes == u.FLOATS
    assert spec.default_p in spec.p_choices
    assert GROUP_SIZE_SETS[spec.default_group_size_set].dims == spec.group_dims
    assert set(spec.check_params) == set(spec.parameters)
    for p in spec.p_choices:
        sizes = [math.prod(c.values()) for c in spec.cases(p)]
        assert len(sizes) == 4 and sizes == sorted(set(sizes))   # strictly growing
    # at the largest exponent every array is int32-indexable, float64 fits with room
    for variant in spec.variants:
        case = max(spec.cases(max(spec.p_choices), variant),
                   key=lambda c: math.prod(c.values()))
        knl = spec.build(spec.request(variant, "float64"))
        total = 0
        for arg in knl.default_entrypoint.args:
            if getattr(arg, "shape", None):
                n = math.prod(int(pymbolic.evaluate(d, case)) for d in arg.shape)
                assert n < 2 ** 31, (variant, arg.name, n)
                total += 8 * n
        assert total < max_float64_bytes, (variant, total)


def numeric_runs(variants):
    """Every variant once and both precisions, in as few pocl builds: the precisions
    alternate down the list."""
    for k, (name, variant) in enumerate(variants):
        yield name, variant, ("float32", "float64")[k % 2]


def total_of(counts: dict[str, int], part: str) -> int:
    """The sum of the counts whose feature name contains ``part``."""
    return sum(v for k, v in counts.items() if part in k)


def check_inputs(name: str, variant: str, dtype: str = "float32") -> dict:
    """A kernel's check inputs, drawn as its verification draws them (seed 1234)."""
    import numpy as np

    spec = get_kernel(name)
    request = spec.request(variant, dtype)
    return spec.inputs(dict(spec.check_params), request.dtype, np.random.default_rng(1234),
                       variant)


def expected_outputs(name: str, variant: str) -> dict:
    """What the kernel's reference computes from :func:`check_inputs` (float32)."""
    spec = get_kernel(name)
    return spec.expected(check_inputs(name, variant), spec.check_params, variant)
