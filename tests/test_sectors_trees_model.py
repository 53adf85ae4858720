"""The sectors + trees expression model reads the sectors model's global features and
the trees model's on-chip ones, and its shipped fit loads."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _features(name):
    from workbench.models.expressions.spec import ExpressionModelSpec

    spec = ExpressionModelSpec.from_document(
        json.loads((ROOT / "models" / f"{name}.json").read_text()))
    return set(spec.features)


def _is_global(feature):
    return feature.startswith("f_mem_access_global")


def test_global_side_is_the_sectors_models_and_the_rest_the_trees_models():
    both = _features("overlap-fp64-sectors-trees")
    sectors, trees = _features("overlap-fp64-sectors"), _features("overlap-fp64-trees")
    assert {f for f in both if _is_global(f)} == {f for f in sectors if _is_global(f)}
    assert {f for f in both if not _is_global(f)} == {f for f in trees if not _is_global(f)}
    assert not [f for f in both if f.startswith("f_mem_access_local")]


def test_the_shipped_fit_prices_a_block_scan_by_its_wavefronts_not_its_local_counts():
    # unseen2's block_scan at n = 4 Mi, groups of 256, measured 0.030 ms on the H100:
    # the sectors fit (per-warp local counts) predicts 3.4x that, the joined one near it
    from workbench.kernels.candidate import Candidate
    from workbench.models import load_model

    scan = [Candidate("block_scan", "hillis_steele", (256,), (("n", 1 << 22),), "float32")]
    weights = ROOT / "sample_data" / "h100"
    both = load_model(weights / "weights-overlap-fp64-sectors-trees.json")
    sectors = load_model(weights / "weights-overlap-fp64-sectors.json")
    (joined,) = both.predict_candidates(scan).seconds
    (alone,) = sectors.predict_candidates(scan).seconds
    assert 0.02e-3 < joined < 0.045e-3 and alone > 2 * joined
