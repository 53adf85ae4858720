#!/usr/bin/env bash
# Blind evaluation data on the H100, in one device command (carrying .whl):
#     [BLIND_SET=blind2|...|blind19] bash scripts/h100_blind_spaces.sh OUTDIR [SECONDS]
#         [SPACE...]
#  1. the blind spaces of the set, examples/spaces/blind_*.py (BLIND_SET=blind, the
#     default), examples/spaces/blind2_*.py (BLIND_SET=blind2, the second set),
#     examples/spaces/blind3_*.py (BLIND_SET=blind3, the third set),
#     examples/spaces/blind4_*.py (BLIND_SET=blind4, the fourth set),
#     examples/spaces/blind5_*.py (BLIND_SET=blind5, the fifth set),
#     examples/spaces/blind6_*.py (BLIND_SET=blind6, the sixth set),
#     examples/spaces/blind7_*.py (BLIND_SET=blind7, the seventh set),
#     examples/spaces/blind8_*.py (BLIND_SET=blind8, the eighth set),
#     examples/spaces/blind9_*.py (BLIND_SET=blind9, the ninth set),
#     examples/spaces/blind10_*.py (BLIND_SET=blind10, the tenth set),
#     examples/spaces/blind11_*.py (BLIND_SET=blind11, the eleventh set),
#     examples/spaces/blind12_*.py (BLIND_SET=blind12, the twelfth set),
#     examples/spaces/blind13_*.py (BLIND_SET=blind13, the thirteenth set),
#     examples/spaces/blind14_*.py (BLIND_SET=blind14, the fourteenth set),
#     examples/spaces/blind15_*.py (BLIND_SET=blind15, the fifteenth set),
#     examples/spaces/blind16_*.py (BLIND_SET=blind16, the sixteenth set),
#     examples/spaces/blind17_*.py (BLIND_SET=blind17, the seventeenth set),
#     examples/spaces/blind18_*.py (BLIND_SET=blind18, the eighteenth set) or
#     examples/spaces/blind19_*.py (BLIND_SET=blind19, the nineteenth set), all issue #33, each
#     measured exhaustively with -cl-nv-verbose build logs;
#  2. the same spaces a second time into another store, space by space as long as a
#     whole space still fits the time (judged by what the space took in pass 1).
# Nothing here is fitted, ranked or tuned with a model: the data is kept out of all
# design and reported once the method is fixed (examples/spaces/README.md, "Blind").
# Everything ends up in OUTDIR/$BLIND_SET.tgz (the stores checkpointed, logs, provenance;
# every file named after the set: blind-spaces.sqlite, blind2-spaces.sqlite, ...).
# SECONDS (default 230) bounds the whole script, the prelude included. SPACEs named
# (blind_X) get pass 2 alone, into SET-spaces-run2b.sqlite: a later call's second
# pass of the spaces an earlier call had no time left for (its caches start empty).
# BLIND_REDO="blind_X ..." measures those spaces alone, both passes, into
# SET-spaces-redo.sqlite and SET-spaces-redo-run2.sqlite (a space whose every point an
# earlier call rejected, after its check was mended; the earlier stores stay as they were).
set -uo pipefail
out=${1:?output folder}; budget=${2:-230}; only=("${@:3}")
end=$(( $(date +%s) + budget ))
bash .whl/prelude.sh && export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 || exit 1
# loopy's and pyopencl's caches start empty: the first pass's build costs are first-time
export XDG_CACHE_HOME=$(mktemp -d) PYTHONWARNINGS=ignore::UserWarning
set_=${BLIND_SET:-blind}
case $set_ in blind|blind2|blind3|blind4|blind5|blind6|blind7|blind8|blind9|blind10|blind11|blind12|blind13|blind14|blind15|blind16|blind17|blind18|blind19) ;;
  *) echo "BLIND_SET is blind or blind2 to blind19, not $set_" >&2; exit 2;; esac
dir="$out/$set_"; mkdir -p "$dir"
left() { echo $(( end - $(date +%s) )); }
# the device copy has no git metadata of its own: the dev machine writes the commit
# measured into BLIND_COMMIT beside the scripts
commit=$(cat BLIND_COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)

{ date -u +%FT%TZ; echo "command: BLIND_SET=$set_ bash scripts/h100_blind_spaces.sh $*"
  echo "commit: $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  echo "cpus: $(nproc)"; python3 --version
  python3 -m pip list 2>/dev/null | grep -i -E "loopy|islpy|pyopencl|numpy|pymbolic|pytools|pocl"
} > "$dir/environment-$set_-spaces.txt" 2>&1

if [ "$set_" = blind ]; then
  spaces=(96:blind_conv2d_5x5 96:blind_colsum 70:blind_logsumexp 80:blind_batched_transpose
          96:blind_box27)
elif [ "$set_" = blind2 ]; then
  spaces=(90:blind2_matvec 96:blind2_outer 65:blind2_gather 84:blind2_resize
          63:blind2_batched_matmul4 84:blind2_rgb_gray)
elif [ "$set_" = blind3 ]; then
  spaces=(80:blind3_polyval 100:blind3_trmv 90:blind3_potential 75:blind3_spmv_ell
          68:blind3_rmsnorm 75:blind3_tridiag)
elif [ "$set_" = blind4 ]; then
  spaces=(108:blind4_distance 88:blind4_maxpool 71:blind4_row_scatter 84:blind4_kron
          80:blind4_pointwise_conv 90:blind4_blur_v)
elif [ "$set_" = blind5 ]; then
  spaces=(96:blind5_syrk 99:blind5_trmm 60:blind5_pixel_shuffle 84:blind5_channel_affine
          70:blind5_embedding_bag 80:blind5_nearest_centroid)
elif [ "$set_" = blind6 ]; then
  spaces=(120:blind6_block_match 84:blind6_depthwise_conv 78:blind6_transpose_add
          112:blind6_banded_matvec 95:blind6_adam 96:blind6_haar2d)
elif [ "$set_" = blind7 ]; then
  spaces=(96:blind7_sobel 65:blind7_complex_mul 75:blind7_softmax 114:blind7_conv1d_long
          66:blind7_rope 72:blind7_det3)
elif [ "$set_" = blind8 ]; then
  spaces=(90:blind8_dot_partials 65:blind8_box_muller 78:blind8_edge_diff 72:blind8_cholesky3
          96:blind8_laplace4 78:blind8_median3)
elif [ "$set_" = blind9 ]; then
  spaces=(76:blind9_row_cumsum 100:blind9_xform4 70:blind9_lut_lerp 70:blind9_gelu_erf
          90:blind9_warp_affine 90:blind9_unit_rows16)
elif [ "$set_" = blind10 ]; then
  spaces=(84:blind10_bitonic_step 100:blind10_trisolve4 99:blind10_varcoef3d
          100:blind10_aos3_split 64:blind10_mean_var 100:blind10_decimate4)
elif [ "$set_" = blind11 ]; then
  spaces=(100:blind11_fft_stage 90:blind11_quant_rows 64:blind11_argmax_rows
          96:blind11_winograd_in 84:blind11_yuv_rgb 100:blind11_rational)
elif [ "$set_" = blind12 ]; then
  spaces=(69:blind12_inv4 100:blind12_quat_rotate 80:blind12_gemv_t
          96:blind12_aniso_diff 80:blind12_leaky_res 80:blind12_los_max)
elif [ "$set_" = blind13 ]; then
  spaces=(80:blind13_color_gamma 80:blind13_cross_norm 100:blind13_lift53
          64:blind13_masked_mean 74:blind13_seg_minmax 60:blind13_scan_hs)
elif [ "$set_" = blind14 ]; then
  spaces=(80:blind14_alpha_over 70:blind14_zaxpby 100:blind14_trilinear
          96:blind14_im2col 80:blind14_clip_count 64:blind14_cos_sim)
elif [ "$set_" = blind15 ]; then
  spaces=(110:blind15_div3d 68:blind15_top2_rows 80:blind15_ema_cols
          80:blind15_obj_xform 80:blind15_swiglu 84:blind15_eig2x2)
elif [ "$set_" = blind16 ]; then
  spaces=(64:blind16_atb8 72:blind16_maxabs_pool3 80:blind16_fir_taps
          75:blind16_row_flip 80:blind16_haversine 80:blind16_col_l2norm)
elif [ "$set_" = blind17 ]; then
  spaces=(80:blind17_softplus_rows 70:blind17_mag_phase 90:blind17_redblack_sor
          72:blind17_dequant_gemv 72:blind17_upwind2d 66:blind17_box_blur_2pass)
elif [ "$set_" = blind18 ]; then
  spaces=(90:blind18_permute3d 60:blind18_layernorm_rows 84:blind18_premul_pack
          80:blind18_movsum4 84:blind18_rgb_hsv 80:blind18_diag_scale)
else
  spaces=(80:blind19_pad_reflect 60:blind19_xent_rows 80:blind19_causal_mask
          70:blind19_img_chw 80:blind19_particle_push 80:blind19_col_permute)
fi
tune() {  # store log file seconds
  local store=$1 log=$2 file=$3 seconds=$4 start=$(date +%s)
  echo "== $file (limit ${seconds} s)" | tee -a "$dir/$log"
  timeout -s INT "$seconds" python3 -m workbench tune "examples/spaces/$file.py:space" \
    --strategy exhaustive --jobs 12 --device NVIDIA --build-option=-cl-nv-verbose \
    --no-progress --store "$dir/$store" 2>&1 | tee -a "$dir/$log"
  took[$file]=$(( $(date +%s) - start ))
  echo "$file wall time: ${took[$file]} s" | tee -a "$dir/$log"
}
declare -A took
# ~0.2 s a point with 12 workers, plus ~20 s to start, make inputs and references
need() { echo $(( $1 / 4 + 25 )); }

store1=$set_-spaces.sqlite; log1=tune-$set_-run1.log
store2=$set_-spaces-run2.sqlite; log2=tune-$set_-run2.log
if [ -n "${BLIND_REDO:-}" ]; then
  kept=(); for entry in "${spaces[@]}"; do
    for name in $BLIND_REDO; do [ "${entry#*:}" = "$name" ] && kept+=("$entry"); done
  done
  spaces=("${kept[@]}"); store1=$set_-spaces-redo.sqlite; log1=tune-$set_-redo-run1.log
  store2=$set_-spaces-redo-run2.sqlite; log2=tune-$set_-redo-run2.log
  mv "$dir/environment-$set_-spaces.txt" "$dir/environment-$set_-spaces-redo.txt"
fi
if [ "${#only[@]}" -gt 0 ]; then
  kept=(); for entry in "${spaces[@]}"; do
    for name in "${only[@]}"; do [ "${entry#*:}" = "$name" ] && kept+=("$entry"); done
  done
  spaces=("${kept[@]}"); store2=$set_-spaces-run2b.sqlite; log2=tune-$set_-run2b.log
fi

# 1. the spaces, pass 1 (each may take up to twice its estimate; 20 s kept for packing)
[ "${#only[@]}" -gt 0 ] || for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  limit=$(( $(need "$points") * 2 )); room=$(( $(left) - 20 ))
  [ "$room" -gt 30 ] || { echo "no time left for $file (pass 1)" | tee -a "$dir/$log1"; continue; }
  tune "$store1" "$log1" "$file" $(( limit < room ? limit : room ))
done

# 2. pass 2: a space only if all of it fits (a partial run says nothing of its best point)
for entry in "${spaces[@]}"; do
  points=${entry%%:*}; file=${entry#*:}
  # (named spaces: the caller gave the time they took in pass 1; the timeout bounds them)
  # (a space's pass 1 time, a fifth more, else the estimate: pass 2's builds hit the cache)
  if [ -n "${took[$file]:-}" ]; then expect=$(( took[$file] * 6 / 5 + 5 ))
  else expect=$(( $(need "$points") + 10 )); fi
  if [ "${#only[@]}" -eq 0 ] && [ $(( $(left) - 15 )) -lt "$expect" ]; then
    echo "skipped $file (pass 2): $(left) s left" | tee -a "$dir/$log2"; continue
  fi
  tune "$store2" "$log2" "$file" $(( $(left) - 15 ))
done

for db in "$dir"/*.sqlite; do
  python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.execute("PRAGMA journal_mode=DELETE"); c.close()
PY
done
env_file="$dir/environment-$set_-spaces${BLIND_REDO:+-redo}.txt"
[ -n "${BLIND_REDO:-}" ] && echo "BLIND_REDO: $BLIND_REDO" >> "$env_file"
echo "finished $(date -u +%FT%TZ), $(left) s of the budget left" >> "$env_file"
tar czf "$out/$set_.tgz" -C "$out" "$set_" && rm -rf "$dir"
ls -l "$out"
