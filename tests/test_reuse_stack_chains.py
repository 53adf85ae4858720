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


DEVICE = "NVIDIA H100 80GB HBM3"


def test_a_private_array_indexed_by_a_key_counts_every_access_on_the_stack():
    from workbench.models.private_stack import stack_and_explog

    # 8 zeroings, 16 trips of a read and a write, 8 final reads: 48 words a work item
    scatter = Candidate("private_scatter", "keys8", (32,), (("chunk", 16), ("n", 256)))
    assert stack_and_explog(scatter) == (256 * 48 * 4 / 32, 0.0)
    wide = Candidate("private_scatter", "keys8", (32,), (("chunk", 16), ("n", 256)),
                     "float64")
    assert stack_and_explog(wide)[0] == 2 * stack_and_explog(scatter)[0]
    # private arrays indexed by loop indices only stay in registers
    quadform = Candidate("batched_quadform", "own_matrix", (32,), (("nb", 256),))
    assert stack_and_explog(quadform) == (0.0, 0.0)


def test_exponentials_and_logarithms_are_counted_apart_inside_reductions_too():
    from workbench.models.private_stack import stack_and_explog

    chain = Candidate("explog_chain", "default", (32,), (("n", 256), ("rounds", 4)))
    assert stack_and_explog(chain) == (0.0, 256 * 4 * 2 / 32)
    softmax = Candidate("softmax_rows", "group_per_row", (64,), (("m", 8),))
    assert stack_and_explog(softmax)[1] > 0


def test_l1_serves_overlapping_windows_and_not_a_stream():
    from workbench.models.reuse_stack_features import reuse_stack_values

    window = Candidate("window_filter", "stride1", (128,), (("n", 2 ** 14), ("taps", 16)))
    stream = Candidate("vector_scale_add", "stride1", (128,), (("n", 2 ** 14),))
    values = reuse_stack_values([window, stream], DEVICE)
    hit, miss = values["f_l1_load_hit_share"], values["f_l1_load_miss_share"]
    assert hit[0] > 0.8 and hit[1] < 0.05
    np.testing.assert_allclose(hit + miss, 1.0)


def test_a_stack_indexed_by_keys_is_said_priced_only_by_a_model_that_prices_it():
    from pathlib import Path

    from workbench.models.occupancy_features import use_build_info
    from workbench.models.parallelism import CaveatKind, spill_caveat

    h100 = Path(__file__).resolve().parents[1] / "sample_data" / "h100"
    scatter = Candidate("private_scatter", "keys8", (128,), (("chunk", 16), ("n", 4096)))
    # batched_trsv's stack holds an array indexed by its loop: not what f_stack_sectors
    # counts, so it stays outside the model
    trsv = Candidate("batched_trsv", "batch_minor", (128,), (("nb", 32768),), "float64")
    use_build_info([str(h100 / "build-info-reuse-stack.json"), str(h100 / "build-info.json")])
    try:
        priced = spill_caveat(scatter, DEVICE, priced_stack=True)
        unpriced = spill_caveat(scatter, DEVICE)
        loop_indexed = spill_caveat(trsv, DEVICE, priced_stack=True)
    finally:
        use_build_info(None)
    assert priced.kind is CaveatKind.STACK and "32 bytes" in priced.message
    assert unpriced.kind is CaveatKind.SPILLS
    assert loop_indexed.kind is CaveatKind.SPILLS


def test_a_load_split_by_the_l1_shares_pays_for_global_memory():
    from workbench.models.terms import Category, category_of

    for name in ("f_l1_load_hit_share", "f_l1_load_miss_share", "f_stack_sectors"):
        assert category_of(name) is Category.GLOBAL
    assert category_of("f_op_float64_explog") is Category.ARITHMETIC


KEYED = '''
import loopy as lp, numpy as np
def keyed(acc_dtype):
    knl = lp.make_kernel("{[c,b,k]: 0<=c<n and 0<=b<8 and 0<=k<16}",
        """
        for c
          acc[b] = 0 {id=zero}
          for k
            <> key = keys[k*n+c] {id=key}
            acc[key] = acc[key] + vals[k*n+c] {id=add, dep=zero:key}
          end
          out[c] = acc[0] + acc[7] {dep=add}
        end
        """, [lp.GlobalArg("keys", np.int32, shape=("16*n",)),
              lp.GlobalArg("vals", np.float32, shape=("16*n",)),
              lp.GlobalArg("out", np.float32, shape=("n",)),
              lp.TemporaryVariable("acc", acc_dtype, shape=(8,),
                                   address_space=lp.AddressSpace.PRIVATE),
              lp.ValueArg("n", np.int32)], lang_version=(2018, 2))
    return lp.split_iname(knl, "c", 128, outer_tag="g.0", inner_tag="l.0")
typed, untyped = keyed(np.float32), keyed(None)
'''


def test_a_user_private_array_left_for_loopy_to_type_is_priced_as_a_typed_one(tmp_path):
    # its dtype is None in the kernel as written: reading its item size raised, and
    # the default model then refused the whole kernel
    from workbench.kernels import resolve_kernel
    from workbench.models.private_stack import stack_and_explog

    path = tmp_path / "keyed.py"
    path.write_text(KEYED)
    got = [stack_and_explog(Candidate(resolve_kernel(f"{path}:{name}"), "default", (128,),
                                      (("n", 4096),), "float32"))
           for name in ("typed", "untyped")]
    assert got[0] == got[1] and got[0][0] > 0
