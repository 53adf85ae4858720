"""Catalog kernels' counts against closed forms derived by hand (issue: foundation).

Each expected value below is derived in the comment above it from the kernel's
definition, not read off the implementation.
"""

import pytest

from workbench.properties import kernel_properties


def counts(kernel, variant=None, group="16x16", **params):
    props = kernel_properties(kernel, variant=variant, group_size=group)
    return props.evaluate_named(params)


@pytest.mark.parametrize("n", [64, 256, 1024])
def test_naive_matmul(n):
    v = counts("matmul_naive", n=n)
    # c[i,j] = sum_k a[i,k] b[k,j]: one multiply and one add per (i, j, k)
    assert v["f_op_float32_mul"] == n**3 and v["f_op_float32_add"] == n**3
    # two loads per (i, j, k): a[i,k] does not move with the l.0 index j -> uniform
    # (stride 0); b[k,j] moves by one element with j -> stride 1
    assert v["f_mem_access_global_float32_load_stride0"] == n**3
    assert v["f_mem_access_global_float32_load_stride1"] == n**3
    assert v["f_mem_access_global_float32_store_stride1"] == n**2
    assert v["f_thread_groups"] == (n // 16) ** 2
    assert "f_sync_barrier_local" not in v and "f_mem_access_local_float32_load" not in v


@pytest.mark.parametrize("n", [64, 512])
def test_tiled_matmul_with_prefetch(n):
    v = counts("matmul_tiled", "square", n=n, m=n, l=n)
    assert v["f_op_float32_mul"] == n**3 and v["f_op_float32_add"] == n**3
    # per k-tile of 16, every work item fetches one element of the A tile and one of
    # the B tile: 2 * (n/16) global loads and local stores per work item, n^2 items
    assert v["f_mem_access_global_float32_load_stride1"] == 2 * (n // 16) * n**2
    assert v["f_mem_access_local_float32_store"] == 2 * (n // 16) * n**2
    # the multiply-add reads both operands from the tiles: 2 local loads per MAC
    assert v["f_mem_access_local_float32_load"] == 2 * n**3
    # two barriers per k-tile (after the fetch, before the next overwrite), met by
    # every work item
    assert v["f_sync_barrier_local"] == 2 * (n // 16) * n**2
    assert v["f_thread_groups"] == (n // 16) ** 2


@pytest.mark.parametrize("variant, load, store", [
    ("prefetch", "stride1", "stride1"),
    # no prefetch, out[i,j] = a[j,i]: neighbouring work items read a column -> large
    # stride, but together they read every element (100%)
    ("read_strided", "frac4ofgt4", "stride1"),
    ("write_strided", "stride1", "frac4ofgt4"),
])
def test_transposes(variant, load, store):
    n = 1024
    v = counts("transpose", variant, n=n)
    assert v[f"f_mem_access_global_float32_load_{load}"] == n**2
    assert v[f"f_mem_access_global_float32_store_{store}"] == n**2
    global_accesses = {k: c for k, c in v.items() if k.startswith("f_mem_access_global")
                       and "minls" not in k and c}
    assert sum(global_accesses.values()) == 2 * n**2
    if variant == "prefetch":
        # through a local tile: one local store and one local load per element
        assert v["f_mem_access_local_float32_store"] == n**2
        assert v["f_mem_access_local_float32_load"] == n**2
        assert v["f_sync_barrier_local"] >= n**2
    else:
        assert "f_mem_access_local_float32_load" not in v


@pytest.mark.parametrize("variant, afr", [("stride1", "stride1"), ("stride2", "frac1of2"),
                                          ("stride3", "frac1of3")])
def test_strided_vector_utilization(variant, afr):
    n = 2**16
    v = counts("vector_scale_add", variant, group="256", n=n)
    # out[i] = alpha x[s i] + beta y[s i]: two loads per item, each touching one cell
    # of every s -> utilization 1/s
    assert v[f"f_mem_access_global_float32_load_{afr}"] == 2 * n
    assert v["f_mem_access_global_float32_store_stride1"] == n
    assert v["f_op_float32_mul"] == 2 * n and v["f_op_float32_add"] == n


@pytest.mark.parametrize("variant, afr", [("stride2", "frac2of2"), ("stride3", "frac3of3")])
def test_filled_access_uses_every_cell(variant, afr):
    v = counts("filled_access", variant, group="256", n=4096)
    # strided passes that together read the whole s x n array: full utilization
    assert v[f"f_mem_access_global_float32_load_{afr}"] > 0
    assert not any(c for k, c in v.items()
                   if k.startswith("f_mem_access_global_float32_load_frac1"))


@pytest.mark.parametrize("n, group, groups", [(512, "16x16", 32 * 32), (1000, "16x16", 63 * 63),
                                               (512, "32x16", 16 * 32)])
def test_empty_kernel_only_launches_groups(n, group, groups):
    v = counts("empty", n=n, group=group)
    assert v == {"f_thread_groups": groups, "f_sync_kernel_launch": 1}


def test_finite_diff_halo_accesses_exceed_the_footprint():
    n = 4096
    props = kernel_properties("finite_diff", group_size="16x16")
    v = props.evaluate_named({"n": n})
    # each 16x16 group fetches its tile plus a one-cell halo as an 18x18 box
    groups = (n // 16) ** 2
    assert v["f_thread_groups"] == groups
    assert v["f_mem_access_global_float32_load_stride1"] == groups * 18 * 18
    assert v["f_mem_access_local_float32_store"] == groups * 18 * 18
    # five-point stencil: five local loads per interior output point
    assert v["f_mem_access_local_float32_load"] == 5 * n**2
    assert v["f_mem_access_global_float32_store_stride1"] == n**2
    # the input footprint is the whole padded (n+2) x (n+2) grid (the bounding-box
    # fetch takes the grid's corners too); halos are read by two or four groups, so
    # accesses exceed the footprint by about 18*18/256
    from workbench.kernels import get_kernel
    from workbench.properties.counting import prepare
    from workbench.properties.accesses import kernel_accesses
    from workbench.properties.footprint import global_footprints
    from workbench.properties.symbolic import evaluate_many
    spec = get_kernel("finite_diff")
    program = prepare(spec.build(spec.request(group_size="16x16")))
    footprint = global_footprints(kernel_accesses(program), ["u"])["u"]
    used = int(evaluate_many({"u": footprint.used}, {"n": n})["u"])
    assert used == (n + 2) ** 2
    assert v["f_mem_access_global_float32_load_stride1"] > used
