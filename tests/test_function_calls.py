"""Calls of exp, log and sqrt per precision (f_op_<dtype>_{exp,log,sqrt}_calls) and the
op_chain microbenchmark that priced them (issue #34, round 11)."""

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"


def _chain(variant, n=4096, rounds=16, dtype="float32"):
    return Candidate("op_chain", variant, (128,), (("n", n), ("rounds", rounds)), dtype)


def test_each_round_of_a_chain_is_one_call_of_its_function_per_work_item():
    from workbench.models.function_calls import function_call_values

    rows = [_chain("exp"), _chain("log", dtype="float64"), _chain("sqrt", rounds=4),
            _chain("fma")]
    got = function_call_values(rows, DEVICE)
    np.testing.assert_allclose(got["f_op_float32_exp_calls"], [4096 * 16 / 32, 0, 0, 0])
    np.testing.assert_allclose(got["f_op_float64_log_calls"], [0, 4096 * 16 / 32, 0, 0])
    np.testing.assert_allclose(got["f_op_float32_sqrt_calls"], [0, 0, 4096 * 4 / 32, 0])
    assert got["f_op_float64_exp_calls"].tolist() == [0, 0, 0, 0]


def test_the_explog_variants_take_the_exp_and_log_families():
    from workbench.models.function_calls import function_calls

    # explog_chain: v <- log(c + exp(v)); softplus_rounds: log1p(exp(v)) and a sqrt
    explog = Candidate("explog_chain", "default", (128,), (("n", 1024), ("rounds", 4)),
                       "float32")
    assert function_calls(explog) == {"exp": 128.0, "log": 128.0, "sqrt": 0.0, "sin": 0.0,
                                      "cos": 0.0, "tan": 0.0, "atan2": 0.0}
    softplus = Candidate("softplus_rounds", "rounds2", (128,), (("n", 4096),), "float32")
    calls = function_calls(softplus)
    assert calls["exp"] == calls["log"] == calls["sqrt"] > 0


def test_sines_and_cosines_are_counted_and_paired_per_precision():
    from workbench.kernels.defs.heldout12 import KEP_STEPS
    from workbench.models.function_calls import function_call_values

    # kepler_solve newton: a sine and a cosine of one argument a step (round 15); the
    # fixed-point iteration: a sine alone, so no pair
    rows = [Candidate("kepler_solve", v, (128,), (("n", 1024),), dt)
            for v, dt in (("newton", "float64"), ("fixed_point", "float32"))]
    got = function_call_values(rows, DEVICE)
    steps = KEP_STEPS * 1024 / 32
    np.testing.assert_allclose(got["f_op_float64_sin_calls"], [steps, 0])
    np.testing.assert_allclose(got["f_op_float64_cos_calls"], [steps, 0])
    np.testing.assert_allclose(got["f_op_float64_sin_cos_mixes"], [steps, 0])
    np.testing.assert_allclose(got["f_op_float32_sin_calls"], [0, steps])
    assert got["f_op_float32_sin_cos_mixes"].tolist() == [0, 0]
    assert got["f_op_float64_exp_calls"].tolist() == [0, 0]


@pytest.mark.parametrize("variant", ["fma", "div", "sqrt", "exp", "log", "pow",
                                     "exp_log_sqrt", "log_pair"])
def test_op_chain_matches_its_reference_on_pocl(variant, queue):
    from workbench.kernels import all_kernels, get_kernel
    from workbench.kernels.base import BuildRequest, DType, KernelRole

    spec = get_kernel("op_chain")
    assert spec.role is KernelRole.MEASUREMENT
    assert "op_chain" not in {s.name for s in all_kernels()}
    dtype = DType.parse("float64")
    params = spec.check_params
    inputs = spec.inputs(params, dtype, np.random.default_rng(3), variant)
    knl = spec.build(BuildRequest(variant, dtype, (32,)))
    _, outs = knl(queue, **inputs, **params)
    (_, expected), = spec.expected(inputs, params, variant).items()
    np.testing.assert_allclose(outs[0], expected, rtol=1e-10)


def test_a_mix_is_the_smaller_call_count_of_its_two_functions():
    from workbench.models.function_calls import function_call_values

    rows = [_chain("exp_log_sqrt"), _chain("exp_pair", dtype="float64"), _chain("exp_sqrt"),
            _chain("pow")]
    got = function_call_values(rows, DEVICE)
    one = 4096 * 16 / 32
    for pair in ("exp_log", "exp_sqrt", "log_sqrt"):
        assert got[f"f_op_float32_{pair}_mixes"][0] == one
    # two exps and no other function mix nothing; exp with sqrt only mixes those two
    assert got["f_op_float64_exp_calls"][1] == 2 * one
    assert [got[f"f_op_float64_{p}_mixes"][1] for p in ("exp_log", "exp_sqrt")] == [0, 0]
    assert [got[f"f_op_float32_{p}_mixes"][2] for p in ("exp_log", "exp_sqrt", "log_sqrt")] \
        == [0, one, 0]
    assert all(got[f"f_op_float32_{p}_mixes"][3] == 0
               for p in ("exp_log", "exp_sqrt", "log_sqrt"))


def test_a_product_feeding_a_sum_is_one_fused_pair_and_indices_are_not_counted():
    from workbench.models.fma_pairs import fma_pair_values, fma_pairs

    rows = [_chain("fma"), _chain("add"), _chain("mul", dtype="float64"),
            Candidate("matmul_naive", "default", (16, 16), (("n", 256),), "float64")]
    got = fma_pair_values(rows, DEVICE)
    # v*c + d: one pair a round; v + c and v*c: none; matmul: acc + a*b a trip
    assert got["f_op_float32_fma_pairs"].tolist() == [4096 * 16 / 32, 0, 0, 0]
    assert got["f_op_float64_fma_pairs"].tolist() == [0, 0, 0, 256 ** 3 / 32]
    # z <- z^2 + c: |z|^2 one, zr*zr - zi*zi one (then + px: no product left), 2*zr*zi
    # + py one, the two masked selects one each (5 a trip); px, py and the final |z|^2
    # once a pixel
    escape = Candidate("mandelbrot_escape", "mandelbrot", (16, 16),
                       (("m", 256), ("n", 256)), "float32")
    assert fma_pairs(escape)["float32"] == pytest.approx(256 * 256 * (64 * 5 + 3) / 32)


def _own(insn, name):
    """A float32 kernel of one instruction over n = 4096 work items in groups of 128."""
    import loopy as lp

    from workbench.kernels import spec_from_loopy

    knl = lp.make_kernel(
        "{[i]: 0<=i<n}", insn,
        [lp.GlobalArg("a,b,c,y", np.float32, shape=("n",)),
         lp.GlobalArg("z", np.float64, shape=("n",)), ...],
        lang_version=(2018, 2), name=name)
    knl = lp.split_iname(knl, "i", 128, outer_tag="g.0", inner_tag="l.0")
    return Candidate.of(spec_from_loopy(knl, name=name), {"n": 4096})


def test_only_a_product_of_the_sums_own_float_type_is_a_fused_pair():
    from workbench.models.fma_pairs import fma_pairs

    # i*i is an integer product and a[i]*b[i] a float32 one in a float64 sum: loopy
    # counts neither multiplication in the sum's type, and neither contracts with it
    assert fma_pairs(_own("y[i] = a[i] + i*i", "int_product")) == \
        {"float32": 0.0, "float64": 0.0}
    assert fma_pairs(_own("z[i] = a[i]*b[i] + z[i]", "mixed")) == \
        {"float32": 0.0, "float64": 0.0}
    assert fma_pairs(_own("y[i] = c[i] - 0.5*a[i]", "minus")) == \
        {"float32": 4096 / 32, "float64": 0.0}


def test_fused_pairs_and_calls_under_an_affine_if_follow_the_condition():
    from workbench.models.fma_pairs import fma_pairs
    from workbench.models.function_calls import function_calls

    # 1024 of the 4096 work items pass the condition, as loopy's mul and special counts
    guarded = _own("if i < 1024\n  y[i] = a[i]*b[i] + exp(c[i])\nend", "guarded")
    assert fma_pairs(guarded)["float32"] == 1024 / 32
    assert function_calls(guarded)["exp"] == 1024 / 32


def test_a_call_counts_in_its_own_precision_not_the_kernels():
    from workbench.models.function_calls import function_call_values

    # a float32 kernel (its candidate's dtype) whose log reads a float64 array: loopy
    # counts that log as a float64 special operation, and so must its price
    mixed = _own("y[i] = exp(a[i]) + log(z[i])", "mixed_precision")
    assert str(mixed.dtype) == "float32"
    got = {k: float(v[0]) for k, v in function_call_values([mixed], "dev").items()}
    assert got["f_op_float32_exp_calls"] == got["f_op_float64_log_calls"] == 4096 / 32
    assert got["f_op_float32_log_calls"] == got["f_op_float64_exp_calls"] == 0
    # an exp and a log in different precisions are no mix of either precision
    assert got["f_op_float32_exp_log_mixes"] == got["f_op_float64_exp_log_mixes"] == 0


def test_trig_calls_at_two_precisions_in_one_kernel_are_each_counted_as_loopy_does():
    """loopy renames a function called at two precisions in one kernel (``sin`` and
    ``sin_0``); each call counts under its own function and type, once a trip of every
    loop around it (a sequential loop, a reduction), as loopy's ``func:`` operations."""
    import warnings

    import loopy as lp

    from workbench.models.function_calls import _calls

    warnings.filterwarnings("ignore")
    knl = lp.make_kernel(
        ["{[i]: 0 <= i < n}", "{[t]: 0 <= t < m}", "{[k]: 0 <= k < 3}"],
        """
        for i
            <float32> s = 0  {id=init}
            for t
                s = s + sin(x[i]) * cos(x[i])  {id=loop, dep=init}
            end
            y[i] = s + atan2(x[i], x[i]) + tan(z[i]) + sum(k, sin(z[i] + k))  {dep=loop}
            w[i] = cos(z[i])
        end
        """,
        [lp.GlobalArg("x, y", np.float32, shape=("n",)),
         lp.GlobalArg("z, w", np.float64, shape=("n",)), lp.ValueArg("n, m", np.int32)],
        lang_version=(2018, 2), seq_dependencies=False, name="trig_mix")
    knl = lp.split_iname(knl, "i", 32, outer_tag="g.0", inner_tag="l.0")

    class Spec:
        def build(self, request):
            return knl

    params = {"n": 64, "m": 5}
    ours: dict = {}
    for family, dtype, count in _calls(Spec(), None):
        ours[family, dtype] = ours.get((family, dtype), 0) + count.eval_with_dict(params)
    assert ours == {("sin", "float32"): 320, ("cos", "float32"): 320,
                    ("sin", "float64"): 192, ("cos", "float64"): 64,
                    ("tan", "float64"): 64, ("atan2", "float32"): 64}
    prog = lp.preprocess_program(lp.infer_unknown_types(knl, expect_completion=True))
    theirs = {(key.name[len("func:"):], str(key.dtype.numpy_dtype)): 32 * v.eval_with_dict(params)
              for key, v in lp.get_op_map(prog, subgroup_size=32).count_map.items()
              if key.name.startswith("func:")}
    assert ours == theirs
