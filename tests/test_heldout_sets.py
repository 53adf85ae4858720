"""The held-out kernel sets heldout4 to heldout22 (``--set heldoutN``): never fitted, a
campaign set each, no name shared with any other set, every variant correct on pocl in
both precisions and counted exactly.  Each set's pinned counts are in its own
``test_heldoutN_kernels.py``.  Nothing here predicts with a model: the sets stay unseen
by model design."""

from __future__ import annotations

import pytest
from heldout_checks import (
    check_a_set_of_its_own,
    check_conventions_and_size_cases,
    numeric_runs,
)
from test_catalog import check_numerics, counting_warnings

from workbench.kernels.catalog import get_kernel
from workbench.kernels.defs import HELDOUT4_SPECS, HELDOUT5_SPECS, HELDOUT6_SPECS, HELDOUT7_SPECS, \
    HELDOUT8_SPECS, HELDOUT9_SPECS, HELDOUT10_SPECS, HELDOUT11_SPECS, \
    HELDOUT12_SPECS, HELDOUT13_SPECS, HELDOUT14_SPECS, HELDOUT15_SPECS, \
    HELDOUT16_SPECS, HELDOUT17_SPECS, HELDOUT18_SPECS, HELDOUT19_SPECS, HELDOUT20_SPECS, \
    HELDOUT21_SPECS, HELDOUT22_SPECS
from workbench.properties import kernel_properties

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::loopy.diagnostic.ParameterFinderWarning"),
]

#: set -> (its specs, the names its writer gave it)
SETS = {
    "heldout4": (HELDOUT4_SPECS, {"transpose_add", "decimate_fir", "softplus_rounds", "outer_update",
         "rigid_transform3", "star13_3d", "tridiag_matvec", "batched_quadform",
         "keyed_bucket_sums"}),
    "heldout5": (HELDOUT5_SPECS, {"horner_poly", "rms_norm_rows", "batched_inverse3", "hash_dropout",
         "haversine_dist", "row_peak_to_peak", "sobel_gradient", "image_flip",
         "resize_bilinear"}),
    "heldout6": (HELDOUT6_SPECS, {"particle_push", "newton_cbrt", "tril_matvec", "fake_quantize",
         "nearest_center_dist", "alpha_composite", "max_pool2d", "column_march3d",
         "bias_gelu"}),
    "heldout7": (HELDOUT7_SPECS, {"black_scholes", "rgb_to_ycbcr", "bitonic_step", "fv_flux_update",
         "optimizer_step", "running_max_rows", "dense_layer", "diffusion_varcoef",
         "embedding_lookup"}),
    "heldout8": (HELDOUT8_SPECS, {"polar_to_cartesian", "leaky_relu_residual",
         "quaternion_product", "table_interp", "fft_butterfly", "ray_sphere_hit",
         "mandelbrot_escape", "distance_matrix", "kron_product"}),
    "heldout9": (HELDOUT9_SPECS, {"silu_gate", "strided_copy", "cross_product_aos",
         "moving_average8", "gamma_correct", "haar_step", "causal_mask", "rgba_premultiply",
         "diag_scale_matrix"}),
    "heldout10": (HELDOUT10_SPECS, {"box_muller", "lorenz_ensemble", "column_stats",
         "spectrum_mag_phase", "cosine_similarity_rows", "groupwise_dequant", "rope_rotate",
         "game_of_life", "wave_leapfrog"}),
    "heldout11": (HELDOUT11_SPECS, {"cross_entropy_rows", "bce_with_logits",
         "option_payoff_paths", "chaotic_map_iterate", "axis_angle_rotate", "hsv_to_rgb",
         "morph_erode_dilate", "red_black_relax", "unsharp_mask"}),
    "heldout12": (HELDOUT12_SPECS, {"huber_loss", "sinusoid_synthesis", "aos_to_soa",
         "kepler_solve", "polyline_length", "clip_by_norm3", "bilateral_filter3",
         "upwind_advect2d", "batchnorm_infer"}),
    "heldout13": (HELDOUT13_SPECS, {"smoothstep_blend", "sym_eigvals3", "keyframe_sample",
         "barycentric_interp", "triangle_normals", "quat_slerp", "bezier_eval", "stft_frames",
         "depthwise_causal_conv"}),
    "heldout14": (HELDOUT14_SPECS, {"shrink_threshold", "tonemap_pixels", "trapezoid_rows",
         "ray_box_slab", "segment_intersect", "curl_div2d", "pad_reflect", "im2col3x3",
         "pixel_shuffle"}),
    "heldout15": (HELDOUT15_SPECS, {"quadratic_roots", "srgb_to_lab", "iir_channels",
         "project_points", "sdf_march", "median_filter", "gauss_blur_pass",
         "grad_orientation", "givens_rotate_rows"}),
    "heldout16": (HELDOUT16_SPECS, {"phong_shade", "trilinear_sample", "line_fit_rows",
         "sigma_clip_rows", "yuv420_to_rgb", "structure_tensor_corners", "affine_warp",
         "autocorr_lags", "catmull_rom_resample"}),
    "heldout17": (HELDOUT17_SPECS, {"loan_payment", "geodetic_to_ecef", "argmax_rows",
         "particle_bounce", "sh9_basis", "dct8_blocks", "bayer_superpixel",
         "census_transform3x3", "vignette_correct"}),
    "heldout18": (HELDOUT18_SPECS, {"kahan_row_sum", "batched_cholesky4", "heat_index",
         "lif_neurons", "spring_chain_forces", "point_in_polygon", "nonmax_suppress",
         "gray_scott_step", "box_filter_sat"}),
    "heldout19": (HELDOUT19_SPECS, {"welford_var_rows", "mish_activation",
         "bisect_cubic_roots", "batched_det4", "gmm_loglik", "ray_triangle_hit",
         "perona_malik_step", "local_contrast_norm3", "chroma_key_matte"}),
    "heldout20": (HELDOUT20_SPECS, {"focal_loss", "pendulum_rk4", "dew_point_magnus",
         "lj_probe_energy", "goertzel_rows", "metaball_field", "heightmap_normals",
         "ssim_map3", "ising_checkerboard"}),
    "heldout21": (HELDOUT21_SPECS, {"planck_radiance", "box_iou_pairs", "gru_cell_update",
         "legendre_series", "direction_to_equirect", "hdr_merge3", "lbm_bgk_collide",
         "wiener_filter_spectrum", "depth_unproject"}),
    "heldout22": (HELDOUT22_SPECS, {"arrhenius_rates", "point_segment_dist", "complex_horner",
         "householder_reflect3", "drag_projectile_steps", "row_geomean", "saturation_adjust",
         "levelset_curvature", "angular_spectrum_step"}),
}
VARIANTS = [(s.name, v) for specs, _ in SETS.values() for s in specs for v in s.variants]
SPECS = [s for specs, _ in SETS.values() for s in specs]


@pytest.mark.parametrize("set_name", sorted(SETS))
def test_a_set_of_its_own_never_trained_on(set_name):
    specs, names = SETS[set_name]
    check_a_set_of_its_own(set_name, specs, names)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_conventions_and_size_cases(spec):
    check_conventions_and_size_cases(spec, max_float64_bytes=8e9)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_size_parameter_is_a_property_parameter(spec):
    props = kernel_properties(spec.name, variant=spec.variants[0], dtype="float32",
                              group_size=spec.group_sizes()[0])
    assert set(props.parameters) == set(spec.parameters)


@pytest.mark.parametrize("name,variant,dtype", list(numeric_runs(VARIANTS)))
def test_numerics(queue, name, variant, dtype):
    """Each set's first group size (128, 256, 16 x 12, 16 x 16) leaves partial groups."""
    spec = get_kernel(name)
    check_numerics(queue, name, variant, dtype, spec.group_sizes()[0])


@pytest.mark.parametrize("name,variant", VARIANTS)
def test_counting_is_exact(name, variant):
    spec = get_kernel(name)
    assert counting_warnings(spec.build(spec.request(variant, "float32"))) == []


def test_the_command_lines_set_names_are_the_defined_sets():
    # the CLI lists the sets without importing their kernels; a set added to one list
    # and not the other would be unreachable (or a choice that fails)
    from workbench.kernels.defs import UNSEEN_SETS
    from workbench.kernels.set_names import UNSEEN_SET_NAMES

    assert tuple(UNSEEN_SETS) == UNSEEN_SET_NAMES
