"""Variant families: alternative implementations of one computation, for model-guided
selection (2019 paper, 'choosing among variants').

A family fixes the problem (the kernel's size parameters) and enumerates candidate
implementations: catalog kernel, variant and work-group size.  A model ranks them by
predicted time; measuring them all says how good the predicted pick really is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from workbench.errors import UnknownNameError
from workbench.kernels.candidate import Candidate


@dataclass(frozen=True)
class VariantFamily:
    name: str
    description: str
    candidates: tuple[Candidate, ...]


def _params(**values: int) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(values.items()))


_SQUARE_2D = ((8, 8), (16, 8), (16, 16), (32, 8), (24, 16), (32, 16), (64, 4))


def matmul_family(n: int) -> VariantFamily:
    """Square matmul: tile (= group) shapes with local prefetch, and without (naive)."""
    cands = [Candidate("matmul_tiled", "square", g, _params(n=n, m=n, l=n))
             for g in ((8, 8), (16, 8), (16, 16), (24, 16), (32, 16), (32, 32))]
    cands += [Candidate("matmul_naive", "default", g, _params(n=n))
              for g in ((16, 8), (16, 16), (32, 16), (32, 32))]
    return VariantFamily(f"matmul-n{n}", "tiled (prefetching) vs naive, tile shapes",
                         tuple(cands))


def finite_diff_family(n: int) -> VariantFamily:
    return VariantFamily(f"finite_diff-n{n}", "work-group shapes of the 5-point stencil",
                         tuple(Candidate("finite_diff", "default", g, _params(n=n))
                               for g in _SQUARE_2D))


def transpose_family(n: int) -> VariantFamily:
    cands = [Candidate("transpose", v, g, _params(n=n))
             for v in ("prefetch", "read_strided", "write_strided")
             for g in ((16, 16), (32, 8), (32, 16))]
    return VariantFamily(f"transpose-n{n}", "prefetching vs strided transposes",
                         tuple(cands))


def convolution_family(n: int) -> VariantFamily:
    return VariantFamily(f"convolution-n{n}", "work-group shapes of the 7x7 convolution",
                         tuple(Candidate("convolution", "default", g, _params(n=n))
                               for g in ((8, 8), (16, 8), (16, 16), (32, 8), (32, 16))))


def nbody_family(n: int) -> VariantFamily:
    return VariantFamily(f"nbody-n{n}", "work-group sizes of the n-body kernel",
                         tuple(Candidate("nbody", "default", (g,), _params(n=n))
                               for g in (64, 128, 256, 384, 512, 1024)))


FAMILY_BUILDERS = {"matmul": matmul_family, "finite_diff": finite_diff_family,
                   "transpose": transpose_family, "convolution": convolution_family,
                   "nbody": nbody_family}


def default_families(sizes: Mapping[str, tuple[int, ...]] | None = None
                     ) -> tuple[VariantFamily, ...]:
    """The families of the issue, at sizes that fill a large GPU (override for CPUs)."""
    sizes = dict(sizes or {"matmul": (2048,), "finite_diff": (8192,),
                           "transpose": (8192,), "convolution": (1024,),
                           "nbody": (65536,)})
    unknown = set(sizes) - set(FAMILY_BUILDERS)
    if unknown:
        raise UnknownNameError("variant family", sorted(unknown)[0], FAMILY_BUILDERS)
    return tuple(FAMILY_BUILDERS[name](n) for name, ns in sizes.items() for n in ns)
