"""A prediction builds and analyses a kernel once: a catalog spec's build is kept per
request, a coarser granularity reuses the work-item extraction, and a family of device
features is computed once for all its names."""

from __future__ import annotations

import numpy as np

from workbench.kernels import get_kernel
from workbench.kernels.candidate import Candidate
from workbench.models.device_features import provide_device_features
from workbench.models.expressions.feature_values import candidate_feature_provider
from workbench.properties import Granularity, kernel_properties


def test_a_catalog_build_is_kept_per_request():
    spec = get_kernel("finite_diff")
    request = spec.request(None, "float32", None)
    assert spec.build(request) is spec.build(request)
    other = spec.request(None, "float64", None)
    assert spec.build(other) is not spec.build(request)


def test_the_subgroup_extraction_reuses_the_workitem_one():
    workitem = kernel_properties("block_scan", dtype="float32",
                                 granularity=Granularity.WORKITEM)
    subgroup = kernel_properties("block_scan", dtype="float32",
                                 granularity=Granularity.SUBGROUP, subgroup_size=32)
    assert subgroup.program is workitem.program


def test_a_family_of_device_features_is_computed_once_for_its_names():
    calls = []

    def values(candidates, device):
        calls.append(len(candidates))
        return {"f_test_reuse_a": np.arange(len(candidates), dtype=float),
                "f_test_reuse_b": np.full(len(candidates), 7.0)}

    provide_device_features(("f_test_reuse_a", "f_test_reuse_b"), values)
    cands = [Candidate.of("finite_diff", {"n": n}) for n in (256, 512)]
    a = candidate_feature_provider("f_test_reuse_a")(cands, "h100")
    b = candidate_feature_provider("f_test_reuse_b")(cands, "h100")
    assert calls == [2]
    assert list(a) == [0.0, 1.0] and list(b) == [7.0, 7.0]
    a[0] = 99.0      # a caller's copy: the next reader sees the family's values
    assert candidate_feature_provider("f_test_reuse_a")(cands, "h100")[0] == 0.0
    candidate_feature_provider("f_test_reuse_a")(cands[:1], "h100")
    assert calls == [2, 1]


def test_a_spec_with_kept_builds_pickles_as_its_build():
    import cloudpickle

    spec = get_kernel("finite_diff")
    request = spec.request(None, "float32", None)
    spec.build(request)
    copy = cloudpickle.loads(cloudpickle.dumps(spec))
    assert copy.build(request) is not spec.build(request)     # built anew there
    assert copy.build(request) is copy.build(request)
