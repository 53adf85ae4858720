"""Home of the time model and tile-size selection for time-tiled stencils (Prajapati
et al., "Accurate analytical time model and tile-size selection for GPU stencils";
``../shared/papers/prajapati-stencil-time-model-tile-size-selection.txt``).  Not built
yet.

What will live here: loopy generators of time-tiled stencils (each work group loads
its tile with halo into local memory, advances t_T time steps there between
barriers, writes back; a driver launches the wavefronts), the paper's section-4 model
(wavefronts N_w, tiles per wavefront w, memory terms m_i, m_o, m', compute c, the
concurrency k from local memory and, read after the build, registers; T_tile(k) and
T_alg) with its feasibility constraints, the microbenchmarks for L, tau_sync, T_sync
and C_iter, and the model registered as a family and a ranker for tuning.
"""
