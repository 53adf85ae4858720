"""Local-memory trees, scans and barriers: the microbenchmarks, the features that price
them per active warp, and the caveat that says whether a model does (issue 34, item 3)."""

import json
from pathlib import Path

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

ROOT = Path(__file__).resolve().parents[1]
DEVICE = "NVIDIA H100 80GB HBM3"


def _tree(group=64, n=128, iters=3, variant="sequential", dtype="float32"):
    return Candidate("local_tree", variant, (group,),
                     (("iters", iters), ("n", n)), dtype)


def test_the_microbenchmarks_resolve_by_name_and_stay_out_of_the_catalog():
    from workbench.kernels import all_kernels, get_kernel
    from workbench.kernels.generators.local_trees import LOCAL_TREE_KERNELS

    for name in LOCAL_TREE_KERNELS:
        assert get_kernel(name).name == name
    assert not set(LOCAL_TREE_KERNELS) & {s.name for s in all_kernels()}


def test_a_warp_access_costs_its_bank_passes_and_idle_lanes_nothing():
    from workbench.models.local_features import warp_wavefronts

    assert warp_wavefronts(32, 4, (1,), (256,)) == 1      # float32 row: one pass
    assert warp_wavefronts(32, 8, (1,), (256,)) == 2      # float64 row: 256 bytes
    assert warp_wavefronts(32, 4, (2,), (256,)) == 2      # stride 2: two-way conflict
    assert warp_wavefronts(4, 4, (64,), (256,)) == 4      # 4 lanes, all in bank 0
    assert warp_wavefronts(1, 4, (1,), (256,)) == 1
    assert warp_wavefronts(0, 4, (1,), (256,)) == 0
    assert warp_wavefronts(32, 4, (None,), (256,)) == 1   # unknown stride: no conflict


def test_a_tree_is_counted_by_the_warps_that_work_at_each_level():
    from workbench.models.local_features import local_values_of

    wavefronts, barriers, _, warps, global_barriers = local_values_of(_tree())
    # 2 groups of 64; per trip 6 levels (32, 16, ..., 1 active lanes: one warp each)
    # of 2 loads and a store; the initial store and the final load: 2 warps each
    assert wavefronts == 2 * (3 * 6 * 3 + 2 + 2)
    assert barriers == 3 * 6 + 0 and warps == 2 and global_barriers == 0
    # loopy's own count prices every warp of the group at every level
    from workbench.properties import kernel_properties

    props = kernel_properties(_tree().spec, variant="sequential", dtype="float32",
                              group_size=(64,), granularity="subgroup", subgroup_size=32)
    loopy_count = sum(float(v) for f, v in props.evaluate({"n": 128, "iters": 3}).items()
                      if f.name.startswith("f_mem_access_local"))
    assert loopy_count == 2 * (3 * 6 * 3 * 2 + 2 + 2)
    # interleaved addressing: the same lanes, more bank passes
    interleaved, *_ = local_values_of(_tree(variant="interleaved"))
    assert interleaved > wavefronts


def test_a_prefetch_barrier_waits_for_a_global_load():
    import loopy as lp

    from workbench.kernels import spec_from_loopy
    from workbench.models.local_features import local_values_of

    knl = lp.make_kernel(
        "{[g, l, m]: 0 <= g < n / 64 and 0 <= l, m < 64}",
        """
        tile[l] = a[64*g + l] {id=fetch}
        out[64*g + m] = tile[63 - m] {dep=fetch}
        """,
        [lp.GlobalArg("a", np.float32, shape=("n",)),
         lp.GlobalArg("out", np.float32, shape=("n",)),
         lp.TemporaryVariable("tile", np.float32, shape=(64,),
                              address_space=lp.AddressSpace.LOCAL), lp.ValueArg("n", np.int32)],
        assumptions="n >= 64 and n mod 64 = 0", lang_version=(2018, 2))
    knl = lp.tag_inames(knl, {"g": "g.0", "l": "l.0", "m": "l.0"})
    spec = spec_from_loopy(knl, name="prefetch_check")
    _, barriers, _, _, global_barriers = local_values_of(
        Candidate(spec, "default", (64,), (("n", 256),), "float32"))
    assert barriers == 1 and global_barriers == 1


def test_the_caveat_says_whether_the_model_prices_local_trees():
    from workbench.models.parallelism import (
        LOCAL_TREE_FEATURES,
        OUTSIDE_MODEL,
        CaveatKind,
        prediction_caveats,
    )

    plain = Candidate("vector_scale_add", None, (256,), (("n", 2 ** 20),), "float32")
    (tree_default, plain_default), = [prediction_caveats([_tree(), plain], 16896)]
    kinds = [c.kind for c in tree_default]
    assert CaveatKind.LOCAL_TREE_UNPRICED in kinds and not plain_default
    assert CaveatKind.LOCAL_TREE_UNPRICED in OUTSIDE_MODEL
    assert "as few as 1" in next(c.message for c in tree_default
                                 if c.kind is CaveatKind.LOCAL_TREE_UNPRICED)
    (priced,), = [prediction_caveats([_tree()], 16896, features=LOCAL_TREE_FEATURES)]
    assert [c.kind for c in priced if c.kind.name.startswith("LOCAL")] == \
        [CaveatKind.LOCAL_TREE]
    assert CaveatKind.LOCAL_TREE not in OUTSIDE_MODEL


def test_the_trees_model_reads_the_local_features_and_not_loopys_local_counts():
    from workbench.models.expressions.spec import ExpressionModelSpec
    from workbench.models.parallelism import LOCAL_TREE_FEATURES

    spec = ExpressionModelSpec.from_document(
        json.loads((ROOT / "models" / "overlap-fp64-trees.json").read_text()))
    assert LOCAL_TREE_FEATURES <= set(spec.features)
    assert not [f for f in spec.features if f.startswith("f_mem_access_local")]


@pytest.mark.parametrize("name", ["local_tree", "local_scan"])
def test_the_microbenchmarks_run_on_pocl(name, queue):
    from workbench.kernels import get_kernel
    from workbench.kernels.base import BuildRequest, DType

    spec = get_kernel(name)
    knl = spec.build(BuildRequest(spec.variants[0], DType.parse("float32"), (32,)))
    _, (out,) = knl(queue, n=64, iters=1)
    out = out.get()
    if name == "local_scan":   # one scan of each group's indices 32g + l
        expected = np.concatenate([np.cumsum(np.arange(32 * g, 32 * g + 32))
                                   for g in range(2)])
        assert np.array_equal(out, expected.astype(np.float32))
    else:                      # lane 0 holds the group's sum after one tree
        assert out[0] == np.arange(32).sum() and out[32] == np.arange(32, 64).sum()


def test_a_prefetch_alone_is_no_tree():
    from workbench.models.parallelism import CaveatKind, prediction_caveats

    tiled = Candidate("matmul_tiled", "square", (16, 16),
                      (("l", 256), ("m", 256), ("n", 256)), "float32")
    (found,), = [prediction_caveats([tiled], 16896)]
    assert not [c for c in found if c.kind in (CaveatKind.LOCAL_TREE,
                                               CaveatKind.LOCAL_TREE_UNPRICED)]
