"""Home of the IR-feature performance model for model-guided exploration (Lift:
low-level features of a high-level IR, PCA and k-nearest neighbours;
``../shared/papers/lift-ir-feature-performance-model.txt``).  Not built yet.

What will live here: the paper's Table 1 features taken from loopy kernels before
any code generation (global and local sizes, local memory per group, global and local
loads and stores per work item, cache lines per warp access, barriers, branches and
loop bodies), a scikit-learn pipeline (standardization, PCA keeping 95% of the
variance, kNN with k = 5 on throughput normalized per input) evaluated leave one
benchmark out, and the model registered as a family and as a tuning strategy.
"""
