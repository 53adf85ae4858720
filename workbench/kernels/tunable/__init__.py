"""Tunable kernels: loopy templates whose numbers a tuning space chooses.

Each module holds one computation with its structural choices, its numbers as
template parameters (:mod:`.common`), a numpy reference and input maker:
:mod:`.stencil2d` (5-point Jacobi), :mod:`.matmul` (dense product), :mod:`.transpose`.
The search spaces built from them are in :mod:`workbench.tuning.catalog`.
"""
