"""The user-written spaces of examples/spaces/ (evaluation data of issues #23 and #33).

Each file loads the way ``workbench tune FILE.py:space`` loads it, has the points the
README lists at its H100 size (the same points at the small test size), and a few
points of each build and match numpy on pocl.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from workbench.measure.store import Status
from workbench.tuning import TuningSpace, resolve_space

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FOLDER = Path(__file__).resolve().parent.parent / "examples" / "spaces"

#: file -> (points at the H100 size, small sizes that keep every point valid)
SPACES = {
    "matmul_tiled": (108, {"n": 128}),
    "stencil2d_5pt": (108, {"n": 128}),
    "transpose": (96, {"n": 128}),
    "rowsum": (71, {"m": 16, "n": 4096}),
    "triad": (66, {"n": 32768}),
    "stencil3d_7pt": (90, {"n": 16}),
    "heldout_conv1d": (80, {"n": 8192}),
    "heldout_batched_gemm": (80, {"nb": 64}),
    "heldout_box9": (84, {"n": 512}),
    "heldout_batched_gemv": (68, {"nb": 64}),
    "heldout_pool2x2": (94, {"n": 512}),
    "heldout_cmac": (70, {"n": 8192}),
    "blind_conv2d_5x5": (96, {"n": 512}),
    "blind_colsum": (96, {"m": 64, "n": 1024}),
    "blind_logsumexp": (70, {"m": 32, "n": 2048}),
    "blind_batched_transpose": (80, {"nb": 64}),
    "blind_box27": (96, {"n": 128}),
    "blind2_matvec": (90, {"n": 2048}),
    "blind2_outer": (96, {"n": 256}),
    "blind2_gather": (65, {"n": 8192}),
    "blind2_resize": (84, {"n": 128}),
    "blind2_batched_matmul4": (63, {"nb": 1024}),
    "blind2_rgb_gray": (84, {"h": 16, "w": 1024}),
    "blind3_polyval": (80, {"n": 4096}),
    "blind3_trmv": (100, {"n": 2048}),
    "blind3_potential": (90, {"n": 2048}),
    "blind3_spmv_ell": (75, {"n": 4096}),
    "blind3_rmsnorm": (68, {"m": 16, "n": 4096}),
    "blind3_tridiag": (75, {"ns": 4096}),
    "blind4_distance": (108, {"n": 128}),
    "blind4_maxpool": (88, {"n": 1024}),
    "blind4_row_scatter": (71, {"m": 64}),
    "blind4_kron": (84, {"p": 16}),
    "blind4_pointwise_conv": (80, {"npix": 2048}),
    "blind4_blur_v": (90, {"n": 256}),
    "blind5_syrk": (96, {"n": 128, "k": 64}),
    "blind5_trmm": (99, {"n": 512}),
    "blind5_pixel_shuffle": (60, {"c": 1, "h": 4, "w": 256}),
    "blind5_channel_affine": (84, {"nb": 1, "nc": 4, "s": 8192}),
    "blind5_embedding_bag": (70, {"nbag": 16, "v": 64}),
    "blind5_nearest_centroid": (80, {"n": 2048}),
    "blind6_block_match": (120, {"h": 16, "w": 128}),
    "blind6_depthwise_conv": (84, {"c": 2, "h": 16, "w": 512}),
    "blind6_transpose_add": (78, {"n": 128}),
    "blind6_banded_matvec": (112, {"n": 4096}),
    "blind6_adam": (95, {"n": 8192}),
    "blind6_haar2d": (96, {"n": 1024}),
    "blind7_sobel": (96, {"n": 512}),
    "blind7_complex_mul": (65, {"n": 8192}),
    "blind7_softmax": (75, {"m": 16, "n": 4096}),
    "blind7_conv1d_long": (114, {"n": 8192}),
    "blind7_rope": (66, {"s": 16, "nh": 16}),
    "blind7_det3": (72, {"n": 8192}),
    "blind8_dot_partials": (90, {"p": 16}),
    "blind8_box_muller": (65, {"n": 8192}),
    "blind8_edge_diff": (78, {"m": 8192, "nv": 2048}),
    "blind8_cholesky3": (72, {"n": 8192}),
    "blind8_laplace4": (96, {"n": 512}),
    "blind8_median3": (78, {"n": 512}),
    "blind9_row_cumsum": (76, {"m": 256}),
    "blind9_xform4": (100, {"n": 8192}),
    "blind9_lut_lerp": (70, {"n": 8192}),
    "blind9_gelu_erf": (70, {"n": 8192}),
    "blind9_warp_affine": (90, {"n": 512}),
    "blind9_unit_rows16": (90, {"m": 4096}),
    "blind10_bitonic_step": (84, {"n": 32768}),
    "blind10_trisolve4": (100, {"nb": 8192}),
    "blind10_varcoef3d": (99, {"n": 128}),
    "blind10_aos3_split": (100, {"n": 8192}),
    "blind10_mean_var": (64, {"m": 256}),
    "blind10_decimate4": (100, {"n": 8192}),
    "blind11_fft_stage": (100, {"n": 65536}),
    "blind11_quant_rows": (90, {"m": 64}),
    "blind11_argmax_rows": (64, {"m": 256}),
    "blind11_winograd_in": (96, {"t": 128}),
    "blind11_yuv_rgb": (84, {"h": 64, "w": 512}),
    "blind11_rational": (100, {"n": 65536}),
    "blind12_inv4": (69, {"n": 8192}),
    "blind12_quat_rotate": (100, {"n": 16384}),
    "blind12_gemv_t": (80, {"n": 4096}),
    "blind12_aniso_diff": (96, {"n": 128}),
    "blind12_leaky_res": (80, {"m": 16}),
    "blind12_los_max": (80, {"m": 4096}),
    "blind13_color_gamma": (80, {"n": 4096}),
    "blind13_cross_norm": (80, {"n": 4096}),
    "blind13_lift53": (100, {"m": 8}),
    "blind13_masked_mean": (64, {"m": 64}),
    "blind13_seg_minmax": (74, {"m": 8}),
    "blind13_scan_hs": (60, {"n": 8192}),
    "blind14_alpha_over": (80, {"n": 4096}),
    "blind14_zaxpby": (70, {"n": 8192}),
    "blind14_trilinear": (100, {"n": 256, "nz": 4}),
    "blind14_im2col": (96, {"c": 2, "h": 16, "w": 256}),
    "blind14_clip_count": (80, {"m": 512}),
    "blind14_cos_sim": (64, {"m": 64}),
    "blind15_div3d": (110, {"n": 256, "nz": 4}),
    "blind15_top2_rows": (68, {"m": 64}),
    "blind15_ema_cols": (80, {"n": 4096}),
    "blind15_obj_xform": (80, {"nobj": 8}),
    "blind15_swiglu": (80, {"m": 4}),
    "blind15_eig2x2": (84, {"n": 8192}),
    "blind16_atb8": (64, {"nb": 64}),
    "blind16_maxabs_pool3": (72, {"n": 512}),
    "blind16_fir_taps": (80, {"n": 4096}),
    "blind16_row_flip": (75, {"h": 16, "w": 1024}),
    "blind16_haversine": (80, {"n": 4096}),
    "blind16_col_l2norm": (80, {"n": 2048}),
    "blind17_softplus_rows": (80, {"m": 16, "n": 4096}),
    "blind17_mag_phase": (70, {"n": 65536}),
    "blind17_redblack_sor": (90, {"n": 512}),
    "blind17_dequant_gemv": (72, {"m": 1024, "k": 512}),
    "blind17_upwind2d": (72, {"n": 512}),
    "blind17_box_blur_2pass": (66, {"n": 512}),
    "blind18_permute3d": (90, {"nx": 8, "ny": 64, "nz": 64}),
    "blind18_layernorm_rows": (60, {"m": 16, "n": 1024}),
    "blind18_premul_pack": (84, {"n": 65536}),
    "blind18_movsum4": (80, {"n": 65536}),
    "blind18_rgb_hsv": (84, {"n": 65536}),
    "blind18_diag_scale": (80, {"n": 1024}),
    "blind19_pad_reflect": (80, {"n": 1024}),
    "blind19_xent_rows": (60, {"m": 16, "n": 1024}),
    "blind19_causal_mask": (80, {"h": 1, "t": 1024}),
    "blind19_img_chw": (70, {"h": 4, "w": 1024}),
    "blind19_particle_push": (80, {"n": 8192}),
    "blind19_col_permute": (80, {"m": 8, "n": 1024}),
}

#: a point besides the first and last, where a space once built wrong code: with one
#: matrix per group, loopy put the prefetched x in private memory unless told
EXTRA = {"heldout_batched_gemv": "mpg=1,rpi=2,unroll=0,local=1",
         # two local copies of the one array A (loopy merges two identical rules)
         "blind5_syrk": "tx=16,ty=4,wpt=2,local=1,kt=8",
         # a copy of B's window on two of the group's three lane axes (loopy adds the
         # third to the copy's loops)
         "blind6_block_match": "bpg=2,dpi=1,local_a=0,local_b=1,unroll=none",
         # the tables' local copies run along l.0 only and need the group's l.1 axis
         # added, or loopy refuses them (here with l.1 of length 1)
         "blind7_rope": "pl=32,hpg=1,hpi=2,local=1",
         # the rows' local copy with one row a group runs on l.0 only (l.1 added)
         "blind9_row_cumsum": "jl=64,rg=1,rpi=1,local=1",
         # the sum of squares left in one lane: every lane reads the scale from local
         "blind9_unit_rows16": "vl=4,vpg=16,vpi=1,unroll=0",
         # the three planes' local copy inside the sequential z loop (a barrier a plane)
         "blind10_varcoef3d": "bx=32,by=2,zpi=4,zloop=loop,local=1",
         # the row's two results written by all its lanes (an l.0 axis of their own)
         "blind10_mean_var": "rl=16,rpg=4,formula=deviation,unroll=1",
         # the rows' scales copied to local memory by every lane of the row alike
         "blind11_quant_rows": "bx=64,by=2,cpi=2,order=cyclic,local=1",
         # the lanes' winners compared in local memory, two rows a group, blocked parts
         "blind11_argmax_rows": "rl=64,rpg=2,order=blocked,unroll=0",
         # the chroma interleaved, two neighbours (one chroma sample) an item
         "blind11_yuv_rgb": "bx=64,by=4,ppi=2,order=blocked,format=nv12",
         # three local tiles of three shapes, the rows in registers
         "blind12_aniso_diff": "bx=32,by=2,rpi=4,local=all",
         # the biases copied to local memory by every token row of the group alike
         "blind12_leaky_res": "bx=128,by=4,fpi=2,order=blocked,act=select,local=1",
         # one local buffer, a register between each step's read and write, and the
         # segment staged in local memory: two segments a group, four values a lane
         "blind13_scan_hs": "e=4,spg=2,buffers=1,stage=1",
         # the row's lanes' sums and counts added in local memory, its mean written by
         # every lane alike, two rows a group
         "blind13_masked_mean": "rl=64,rpg=2,order=blocked,form=mul",
         # the pair's lanes' three sums added in local memory, its cosine written by
         # every lane alike, four rows a group
         "blind14_cos_sim": "rl=32,rpg=4,order=blocked,norm=two",
         # the lanes' best pairs merged through local memory by every lane alike,
         # four rows a group, the lane's loop unrolled
         "blind15_top2_rows": "rl=32,rpg=4,order=blocked,unroll=4",
         # the object's matrix copied to local memory, two vertices a work item
         "blind15_obj_xform": "gs=64,vpi=2,order=blocked,layout=soa,mat=local",
         # the group's taps copied to local memory, two outputs a work item, unrolled
         "blind16_fir_taps": "gs=128,opi=2,order=blocked,taps=local,unroll=1",
         # a matrix's 64 entries on 64 lanes, two matrices a work item, batch last
         "blind16_atb8": "lanes=64,mpg=4,mpi=2,layout=inter,k=unr",
         # the group's rows summed across into local memory in three rounds of one row
         "blind17_box_blur_2pass": "bx=32,by=1,way=twopass",
         # transposed weights, the scale on each group's partial sum, two rows an item
         "blind17_dequant_gemv": "gs=64,rpi=2,order=blocked,layout=cols,scale=group,unroll=4",
         # a sample read as one float2, two samples a work item
         "blind17_mag_phase": "gs=64,spi=2,order=blocked,load=float2",
         # d[j] through local memory with blocked columns: a draft's copy (tagged
         # l.auto) left outputs unwritten here
         "blind18_diag_scale": "bx=64,by=4,cpi=2,order=blocked,local=1",
         # the variance in two passes, the lanes' loops unrolled by four
         "blind18_layernorm_rows": "g0=64,rpg=2,unroll=4,form=twopass",
         # a pixel read as one float4, rounded by floor, two pixels a work item
         "blind18_premul_pack": "gs=64,ppi=2,order=blocked,load=float4,round=floor",
         # the mirrored index by its period, blocked columns, four rows a group
         "blind19_pad_reflect": "bx=64,by=4,cpi=2,order=blocked,form=mod",
         # the plain log-sum-exp, two rows a group, the lanes' loop unrolled by four
         "blind19_xent_rows": "g0=64,rpg=2,unroll=4,form=plain",
         # the mask by a branch (two writes marked nosync), blocked keys
         "blind19_causal_mask": "bx=64,by=4,kpi=2,order=blocked,mask=branch",
         # the folded multiply-add, two pixels a work item
         "blind19_img_chw": "gs=64,ppi=2,order=blocked,form=fma",
         # a particle read and written as float4, the drag as written
         "blind19_particle_push": "gs=64,ppi=2,order=blocked,access=float4,form=drag",
         # perm through local memory with blocked columns (diag_scale's copy)
         "blind19_col_permute": "bx=64,by=4,cpi=2,order=blocked,local=1"}


def _ref(stem: str) -> str:
    return f"{FOLDER / stem}.py:space"



def _readme_with_archive() -> str:
    """The README as written, its archived sections (the second to sixteenth blind sets,
    moved verbatim into README-blind2-16.md.xz for issue #25's 30 MB cap) read back in
    place of the section that names them."""
    import lzma

    page = (FOLDER / "README.md").read_text()
    head = "## Blind, second to sixteenth sets: archived\n"
    start = page.index(head)
    end = page.index("\n## ", start + len(head)) + 1
    assert "xz -dc examples/spaces/README-blind2-16.md.xz" in page[start:end]
    archived = lzma.decompress((FOLDER / "README-blind2-16.md.xz").read_bytes()).decode()
    titles = [line[3:] for line in archived.splitlines() if line.startswith("## ")]
    assert len(titles) == 15 and all(f"- {t}\n" in page[start:end] for t in titles)
    return page[:start] + archived + page[end:]

def test_six_design_six_held_out_and_five_then_eighteen_sets_of_six_blind_spaces():
    files = {p.stem for p in FOLDER.glob("*.py")}
    assert files == set(SPACES)
    held_out = {f for f in files if f.startswith("heldout_")}
    blind = {f for f in files if f.startswith("blind_")}
    blind2 = {f for f in files if f.startswith("blind2_")}
    blind3 = {f for f in files if f.startswith("blind3_")}
    blind4 = {f for f in files if f.startswith("blind4_")}
    blind5 = {f for f in files if f.startswith("blind5_")}
    blind6 = {f for f in files if f.startswith("blind6_")}
    blind7 = {f for f in files if f.startswith("blind7_")}
    blind8 = {f for f in files if f.startswith("blind8_")}
    blind9 = {f for f in files if f.startswith("blind9_")}
    # "blind10_", never "blind1": the tenth set is no part of the first
    blind10 = {f for f in files if f.startswith("blind10_")}
    # "blind11_", never "blind1": the eleventh set is no part of the first either
    blind11 = {f for f in files if f.startswith("blind11_")}
    # "blind12_", never "blind1": nor the twelfth
    blind12 = {f for f in files if f.startswith("blind12_")}
    # "blind13_", never "blind1": nor the thirteenth
    blind13 = {f for f in files if f.startswith("blind13_")}
    # "blind14_", never "blind1": nor the fourteenth
    blind14 = {f for f in files if f.startswith("blind14_")}
    # "blind15_", never "blind1": nor the fifteenth
    blind15 = {f for f in files if f.startswith("blind15_")}
    # "blind16_", never "blind1": nor the sixteenth
    blind16 = {f for f in files if f.startswith("blind16_")}
    # "blind17_", never "blind1": nor the seventeenth
    blind17 = {f for f in files if f.startswith("blind17_")}
    # "blind18_", never "blind1": nor the eighteenth
    blind18 = {f for f in files if f.startswith("blind18_")}
    # "blind19_", never "blind1": nor the nineteenth
    blind19 = {f for f in files if f.startswith("blind19_")}
    assert len(held_out) == 6 and len(blind) == 5 and len(blind2) == 6 and len(blind3) == 6
    assert len(blind4) == 6 and len(blind5) == 6 and len(blind6) == 6 and len(blind7) == 6
    assert len(blind8) == 6 and len(blind9) == 6 and len(blind10) == 6 and len(blind11) == 6
    assert len(blind12) == 6 and len(blind13) == 6 and len(blind14) == 6
    assert len(blind15) == 6 and len(blind16) == 6 and len(blind17) == 6
    assert len(blind18) == 6 and len(blind19) == 6
    assert len(files - held_out - blind - blind2 - blind3 - blind4 - blind5 - blind6
               - blind7 - blind8 - blind9 - blind10 - blind11 - blind12 - blind13
               - blind14 - blind15 - blind16 - blind17 - blind18 - blind19) == 6
    readme = _readme_with_archive()
    assert all(f"`{f}.py`" in readme
               for f in held_out | blind | blind2 | blind3 | blind4 | blind5 | blind6
               | blind7 | blind8 | blind9 | blind10 | blind11 | blind12 | blind13
               | blind14 | blind15 | blind16 | blind17 | blind18 | blind19)
    second = readme.index("## Blind, second set (issue #33, 2026-11-27)")
    third = readme.index("## Blind, third set (issue #33, 2026-11-27)")
    fourth = readme.index("## Blind, fourth set (issue #33, 2026-11-27, afternoon)")
    fifth = readme.index("## Blind, fifth set (issue #33, 2026-11-27, midday)")
    sixth = readme.index("## Blind, sixth set (issue #33, 2026-11-27, afternoon)")
    seventh = readme.index("## Blind, seventh set (issue #33, 2026-11-27, afternoon)")
    eighth = readme.index("## Blind, eighth set (issue #33, 2026-11-27, afternoon)")
    ninth = readme.index("## Blind, ninth set (issue #33, 2026-11-27, evening)")
    tenth = readme.index("## Blind, tenth set (issue #33, 2026-11-27, evening)")
    eleventh = readme.index("## Blind, eleventh set (issue #33, 2026-11-27, night)")
    twelfth = readme.index("## Blind, twelfth set (issue #33, 2026-11-28, night)")
    thirteenth = readme.index("## Blind, thirteenth set (issue #33, 2026-11-28, early morning)")
    fourteenth = readme.index("## Blind, fourteenth set (issue #33, 2026-11-28, morning)")
    fifteenth = readme.index("## Blind, fifteenth set (issue #33, 2026-11-28, late morning)")
    sixteenth = readme.index("## Blind, sixteenth set (issue #33, 2026-11-28, late morning)")
    seventeenth = readme.index("## Blind, seventeenth set (issue #33, 2026-11-28, midday)")
    eighteenth = readme.index("## Blind, eighteenth set (issue #33, 2026-11-28, afternoon)")
    nineteenth = readme.index("## Blind, nineteenth set (issue #33, 2026-11-28, evening)")
    first = readme[readme.index("## Blind (issue #33, 2026-11-27)"):second]
    assert all(f"`{f}.py`" in first for f in blind)
    assert all(f"`{f}.py`" in readme[second:third] for f in blind2)
    assert all(f"`{f}.py`" in readme[third:fourth] for f in blind3)
    assert all(f"`{f}.py`" in readme[fourth:fifth] for f in blind4)
    assert all(f"`{f}.py`" in readme[fifth:sixth] for f in blind5)
    assert all(f"`{f}.py`" in readme[sixth:seventh] for f in blind6)
    assert all(f"`{f}.py`" in readme[seventh:eighth] for f in blind7)
    assert all(f"`{f}.py`" in readme[eighth:ninth] for f in blind8)
    assert all(f"`{f}.py`" in readme[ninth:tenth] for f in blind9)
    assert all(f"`{f}.py`" in readme[tenth:eleventh] for f in blind10)
    assert all(f"`{f}.py`" in readme[eleventh:twelfth] for f in blind11)
    assert all(f"`{f}.py`" in readme[twelfth:thirteenth] for f in blind12)
    assert all(f"`{f}.py`" in readme[thirteenth:fourteenth] for f in blind13)
    assert all(f"`{f}.py`" in readme[fourteenth:fifteenth] for f in blind14)
    assert all(f"`{f}.py`" in readme[fifteenth:sixteenth] for f in blind15)
    assert all(f"`{f}.py`" in readme[sixteenth:seventeenth] for f in blind16)
    assert all(f"`{f}.py`" in readme[seventeenth:eighteenth] for f in blind17)
    assert all(f"`{f}.py`" in readme[eighteenth:nineteenth] for f in blind18)
    assert all(f"`{f}.py`" in readme[nineteenth:] for f in blind19)
    assert not any(f"`{f}.py`" in readme[third:] for f in blind | blind2)
    assert not any(f"`{f}.py`" in readme[fourth:] for f in blind3)
    assert not any(f"`{f}.py`" in readme[fifth:] for f in blind4)
    assert not any(f"`{f}.py`" in readme[sixth:] for f in blind5)
    assert not any(f"`{f}.py`" in readme[seventh:] for f in blind6)
    assert not any(f"`{f}.py`" in readme[eighth:] for f in blind7)
    assert not any(f"`{f}.py`" in readme[ninth:] for f in blind8)
    assert not any(f"`{f}.py`" in readme[tenth:] for f in blind9)
    assert not any(f"`{f}.py`" in readme[eleventh:] for f in blind10)
    assert not any(f"`{f}.py`" in readme[twelfth:] for f in blind11)
    assert not any(f"`{f}.py`" in readme[thirteenth:] for f in blind12)
    assert not any(f"`{f}.py`" in readme[fourteenth:] for f in blind13)
    assert not any(f"`{f}.py`" in readme[fifteenth:] for f in blind14)
    assert not any(f"`{f}.py`" in readme[sixteenth:] for f in blind15)
    assert not any(f"`{f}.py`" in readme[seventeenth:] for f in blind16)
    assert not any(f"`{f}.py`" in readme[eighteenth:] for f in blind17)
    assert not any(f"`{f}.py`" in readme[nineteenth:] for f in blind18)
    assert "never used to fit, choose or tune anything" in readme[seventh:eighth]
    assert "never used to fit, choose or tune anything" in readme[eighth:ninth]
    assert "never used to fit, choose or tune anything" in readme[ninth:tenth]
    assert "never used to fit, choose or tune anything" in readme[tenth:eleventh]
    assert "never used to fit, choose or tune anything" in readme[eleventh:twelfth]
    assert "never used to fit, choose or tune anything" in readme[twelfth:thirteenth]
    assert "never used to fit, choose or tune anything" in readme[thirteenth:fourteenth]
    assert "never used to fit, choose or tune anything" in readme[fourteenth:fifteenth]
    assert "never used to fit, choose or tune anything" in readme[fifteenth:sixteenth]
    assert "never used to fit, choose or tune anything" in readme[sixteenth:seventeenth]
    assert "never used to fit, choose or tune anything" in readme[seventeenth:eighteenth]
    assert "never used to fit, choose or tune anything" in readme[eighteenth:nineteenth]
    assert "never used to fit, choose or tune anything" in readme[nineteenth:]


@pytest.mark.parametrize("space", ["blind_colsum", "heldout_cmac", "blind2_gather",
                                   "blind3_trmv", "blind4_kron",
                                   "blind5_embedding_bag", "blind6_haar2d",
                                   "blind7_rope", "blind8_median3",
                                   "blind9_lut_lerp", "blind10_mean_var",
                                   "blind11_rational", "blind12_los_max",
                                   "blind13_scan_hs", "blind14_cos_sim",
                                   "blind15_ema_cols", "blind16_haversine",
                                   "blind17_mag_phase", "blind18_movsum4",
                                   "blind19_xent_rows"])
def test_the_design_benchmark_refuses_the_kept_out_spaces(space, monkeypatch, capsys):
    import sys

    monkeypatch.syspath_prepend(str(FOLDER.parent.parent))
    from benchmarks import model_orders

    monkeypatch.setattr(sys, "argv", ["model_orders.py", "--spaces", f"triad,{space}"])
    with pytest.raises(SystemExit):
        model_orders.main()
    assert "kept out of all design" in capsys.readouterr().err


def test_the_ranking_benchmark_takes_a_blind_set_only_by_name(monkeypatch):
    monkeypatch.syspath_prepend(str(FOLDER.parent.parent))
    monkeypatch.chdir(FOLDER.parent.parent)
    from benchmarks.ranking import expand_spaces

    def stems(spaces):
        return {Path(ref.split(":")[0]).stem for ref in expand_spaces(spaces).split(",")}

    design = stems("examples")
    assert "my_space" in design and "heldout_cmac" in design and "triad" in design
    assert not {s for s in design if s.startswith("blind")}
    assert stems("blind") == {s for s in SPACES if s.startswith("blind_")}
    assert stems("blind2,matmul") == {s for s in SPACES if s.startswith("blind2_")} | {
        "matmul"}
    assert stems("blind3") == {s for s in SPACES if s.startswith("blind3_")}
    assert stems("blind4") == {s for s in SPACES if s.startswith("blind4_")}
    assert len(stems("blind4")) == 6
    assert stems("blind5") == {s for s in SPACES if s.startswith("blind5_")}
    assert len(stems("blind5")) == 6
    assert stems("blind6") == {s for s in SPACES if s.startswith("blind6_")}
    assert len(stems("blind6")) == 6
    assert stems("blind7") == {s for s in SPACES if s.startswith("blind7_")}
    assert len(stems("blind7")) == 6
    assert stems("blind8") == {s for s in SPACES if s.startswith("blind8_")}
    assert len(stems("blind8")) == 6
    assert stems("blind9") == {s for s in SPACES if s.startswith("blind9_")}
    assert len(stems("blind9")) == 6
    assert stems("blind10") == {s for s in SPACES if s.startswith("blind10_")}
    assert len(stems("blind10")) == 6
    assert stems("blind11") == {s for s in SPACES if s.startswith("blind11_")}
    assert len(stems("blind11")) == 6
    assert stems("blind12") == {s for s in SPACES if s.startswith("blind12_")}
    assert len(stems("blind12")) == 6
    assert stems("blind13") == {s for s in SPACES if s.startswith("blind13_")}
    assert len(stems("blind13")) == 6
    assert stems("blind14") == {s for s in SPACES if s.startswith("blind14_")}
    assert len(stems("blind14")) == 6
    assert stems("blind15") == {s for s in SPACES if s.startswith("blind15_")}
    assert len(stems("blind15")) == 6
    assert stems("blind16") == {s for s in SPACES if s.startswith("blind16_")}
    assert len(stems("blind16")) == 6
    assert stems("blind17") == {s for s in SPACES if s.startswith("blind17_")}
    assert len(stems("blind17")) == 6
    assert stems("blind18") == {s for s in SPACES if s.startswith("blind18_")}
    assert len(stems("blind18")) == 6
    assert stems("blind19") == {s for s in SPACES if s.startswith("blind19_")}
    assert len(stems("blind19")) == 6
    for named in ("examples/spaces/blind2_outer.py:space",
                  "examples/spaces/blind3_polyval.py:space",
                  "examples/spaces/blind4_maxpool.py:space",
                  "examples/spaces/blind5_trmm.py:space",
                  "examples/spaces/blind6_adam.py:space",
                  "examples/spaces/blind7_det3.py:space",
                  "examples/spaces/blind8_edge_diff.py:space",
                  "examples/spaces/blind9_xform4.py:space",
                  "examples/spaces/blind10_decimate4.py:space",
                  "examples/spaces/blind11_yuv_rgb.py:space",
                  "examples/spaces/blind12_gemv_t.py:space",
                  "examples/spaces/blind13_lift53.py:space",
                  "examples/spaces/blind14_im2col.py:space",
                  "examples/spaces/blind15_swiglu.py:space",
                  "examples/spaces/blind16_row_flip.py:space",
                  "examples/spaces/blind17_upwind2d.py:space",
                  "examples/spaces/blind18_rgb_hsv.py:space",
                  "examples/spaces/blind19_img_chw.py:space"):
        assert expand_spaces(f"examples,{named}").split(",")[-1] == named


def test_the_strategy_study_groups_each_blind_set_apart(monkeypatch):
    monkeypatch.syspath_prepend(str(FOLDER.parent.parent))
    from benchmarks.strategy_study import blind_set, held_out

    for stem in SPACES:
        name = resolve_space(_ref(stem), **SPACES[stem][1]).name
        assert held_out(name) == (not name.startswith("user_"))
        # "blind10_" to "blind19_" first: their first six letters are "blind1", no
        # set of their own
        two_digits = {"blind10_": "blind10", "blind11_": "blind11",
                      "blind12_": "blind12", "blind13_": "blind13",
                      "blind14_": "blind14", "blind15_": "blind15",
                      "blind16_": "blind16", "blind17_": "blind17",
                      "blind18_": "blind18", "blind19_": "blind19"}.get(name[:8])
        assert blind_set(name) == (two_digits or
                                   {"blind_": "blind", "blind2": "blind2",
                                    "blind3": "blind3", "blind4": "blind4",
                                    "blind5": "blind5", "blind6": "blind6",
                                    "blind7": "blind7", "blind8": "blind8",
                                    "blind9": "blind9"}.get(name[:6], ""))


def test_the_model_order_tools_refuse_the_next_set_by_default(monkeypatch, capsys):
    import sys

    monkeypatch.syspath_prepend(str(FOLDER.parent.parent / "benchmarks"))
    from benchmarks import model_orders_all

    refused = "s.sqlite=examples/spaces/blind19_x.py:space"
    monkeypatch.setattr(sys, "argv", ["model_orders_all.py", "--pairs", refused])
    with pytest.raises(SystemExit):
        model_orders_all.main()
    assert "the blind19 set is not reported yet" in capsys.readouterr().err
    parser = SimpleNamespace(error=lambda message: pytest.fail(message))
    # the eleventh to eighteenth sets are taken once reported, and refusing "blind1"
    # leaves them alone
    for taken in ("s.sqlite=examples/spaces/blind11_rational.py:space",
                  "s.sqlite=examples/spaces/blind12_inv4.py:space",
                  "s.sqlite=examples/spaces/blind13_lift53.py:space",
                  "s.sqlite=examples/spaces/blind14_cos_sim.py:space",
                  "s.sqlite=examples/spaces/blind15_eig2x2.py:space",
                  "s.sqlite=examples/spaces/blind16_atb8.py:space",
                  "s.sqlite=examples/spaces/blind17_dequant_gemv.py:space",
                  "s.sqlite=examples/spaces/blind18_diag_scale.py:space"):
        assert model_orders_all.store_space_pairs(parser, taken, "blind19") == [
            tuple(taken.split("=", 1))]
        assert len(model_orders_all.store_space_pairs(parser, taken, "blind1")) == 1
    # the nineteenth set's own files are refused by default, never by "blind1"
    nineteenth = "s.sqlite=examples/spaces/blind19_col_permute.py:space"
    monkeypatch.setattr(sys, "argv", ["model_orders_all.py", "--pairs", nineteenth])
    with pytest.raises(SystemExit):
        model_orders_all.main()
    assert "the blind19 set is not reported yet" in capsys.readouterr().err
    assert len(model_orders_all.store_space_pairs(parser, nineteenth, "blind1")) == 1


@pytest.mark.parametrize("tool, argv", [
    ("rerank_orders", ["--pairs", "s.sqlite=examples/spaces/blind19_x.py:space"]),
    ("handover_record", ["--spaces", "examples/spaces/blind19_x.py:space", "--out", "r.json"]),
    ("family_costs", ["--spaces", "examples/spaces/blind19_x.py:space"]),
    ("feature_dump", ["--pairs", "s.sqlite=examples/spaces/blind19_x.py:space",
                      "--out", "d.pkl"])])
def test_the_other_model_tools_refuse_the_next_set_by_default(tool, argv, monkeypatch,
                                                               capsys):
    import importlib
    import sys

    monkeypatch.syspath_prepend(str(FOLDER.parent.parent / "benchmarks"))
    module = importlib.import_module(f"benchmarks.{tool}")
    monkeypatch.setattr(sys, "argv", [f"{tool}.py", *argv])
    with pytest.raises(SystemExit):
        module.main()
    assert "the blind19 set is not reported yet" in capsys.readouterr().err


def test_the_hedge_study_summarises_each_group_of_spaces_apart(monkeypatch):
    import pandas as pd

    monkeypatch.syspath_prepend(str(FOLDER.parent.parent / "benchmarks"))
    monkeypatch.syspath_prepend(str(FOLDER.parent.parent))
    from benchmarks.hedge_study import across_spaces

    rows = [{"space": space, "strategy": "tpe", "oracle_x_95": x, "vs_tpe": 1.0,
             "runs_to_95": 4.0}
            for space, x in (("user_triad", 2.0), ("user_rowsum", 8.0),
                             ("blind2_gather", 100.0), ("blind3_tridiag", 50.0),
                             ("blind4_kron", 20.0), ("blind5_syrk", 30.0),
                             ("blind6_adam", 40.0), ("blind7_det3", 60.0),
                             ("blind8_cholesky3", 70.0), ("blind9_gelu_erf", 80.0),
                             ("blind10_mean_var", 90.0), ("blind11_rational", 95.0),
                             ("blind12_inv4", 97.0), ("blind13_lift53", 98.0),
                             ("blind14_zaxpby", 99.0), ("blind15_swiglu", 99.5),
                             ("blind16_atb8", 99.75), ("blind17_upwind2d", 99.9),
                             ("blind18_movsum4", 99.95), ("blind19_img_chw", 99.97),
                             ("heldout_cmac", 3.0))]
    lines = [line.strip() for line in across_spaces(pd.DataFrame(rows))]
    assert [line.split(" spaces")[0] for line in lines if "spaces (" in line] == [
        "design", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8",
        "blind9", "blind10", "blind11", "blind12", "blind13", "blind14", "blind15",
        "blind16", "blind17", "blind18", "blind19", "held-out"]
    tpe = [line.split()[1] for line in lines if line.startswith("tpe")]
    # a blind space never in the design mean
    assert tpe == ["4.00", "100.00", "50.00", "20.00", "30.00", "40.00", "60.00", "70.00",
                   "80.00", "90.00", "95.00", "97.00", "98.00", "99.00", "99.50", "99.75",
                   "99.90", "99.95", "99.97", "3.00"]


@pytest.mark.parametrize("stem", SPACES)
def test_points_at_both_sizes(stem):
    count, small = SPACES[stem]
    full = resolve_space(_ref(stem))
    assert isinstance(full, TuningSpace)
    assert len(full.points()) == count
    assert full.name.startswith("heldout_") == stem.startswith("heldout_")
    assert full.name.startswith("blind_") == stem.startswith("blind_")
    assert full.name.startswith("blind2_") == stem.startswith("blind2_")
    assert full.name.startswith("blind3_") == stem.startswith("blind3_")
    assert full.name.startswith("blind4_") == stem.startswith("blind4_")
    assert full.name.startswith("blind5_") == stem.startswith("blind5_")
    assert full.name.startswith("blind6_") == stem.startswith("blind6_")
    assert full.name.startswith("blind7_") == stem.startswith("blind7_")
    assert full.name.startswith("blind8_") == stem.startswith("blind8_")
    assert full.name.startswith("blind9_") == stem.startswith("blind9_")
    assert full.name.startswith("blind10_") == stem.startswith("blind10_")
    assert full.name.startswith("blind11_") == stem.startswith("blind11_")
    assert full.name.startswith("blind12_") == stem.startswith("blind12_")
    assert full.name.startswith("blind13_") == stem.startswith("blind13_")
    assert full.name.startswith("blind14_") == stem.startswith("blind14_")
    assert full.name.startswith("blind15_") == stem.startswith("blind15_")
    assert full.name.startswith("blind16_") == stem.startswith("blind16_")
    assert full.name.startswith("blind17_") == stem.startswith("blind17_")
    assert full.name.startswith("blind18_") == stem.startswith("blind18_")
    assert full.name.startswith("blind19_") == stem.startswith("blind19_")
    reduced = resolve_space(_ref(stem), **small)
    assert [p.label for p in reduced.points()] == [p.label for p in full.points()]


@pytest.mark.parametrize("stem", SPACES)
def test_first_and_last_points_are_correct_on_pocl(queue, stem):
    import pyopencl as cl

    from workbench.tuning.live import LiveEvaluator

    space = resolve_space(_ref(stem), **SPACES[stem][1])
    points = space.points()
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    evaluator = LiveEvaluator(space, timed)
    extra = [p for p in points if p.label == EXTRA.get(stem)]
    assert len(extra) == (stem in EXTRA)
    for point in (points[0], *extra, points[-1]):
        result = evaluator.evaluate(point)
        assert result.status is Status.OK, (point.label, result.log[-500:])
