"""Conventions of the tunable kernels: one symbolic template per structure.

A tunable kernel is written once as a loopy *template* whose numbers (work-group
extents, work per item, group counts, derived trip counts) are integer parameters
(``lp.ValueArg``).  loopy counts such a template exactly, symbolically in those
numbers, so the properties of every point of a tuning space that shares its
structure come from one extraction; a point's kernel is the template with its
numbers fixed (:func:`instantiate`), the only kernel ever generated and run.
Templates must therefore be affine in their inames with the numbers as
coefficients of parameters only where loopy needs it (domains: ``0 <= l0 < L0``);
products such as ``g1*L1*C`` may appear in subscripts, which loopy counts by
coefficients.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import loopy as lp
import numpy as np

from workbench.kernels._util import BENIGN_WARNINGS, LANG_VERSION


@dataclass(frozen=True, eq=False)
class Template:
    """A loopy kernel with symbolic numbers ``symbols``."""

    kernel: lp.TranslationUnit
    symbols: tuple[str, ...]


def symbols(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(names)


def template_kernel(domains: Sequence[str], instructions: str, arguments: Sequence,
                    parameters: Sequence[str], *, name: str,
                    tags: Mapping[str, str], all_lanes: bool = False) -> lp.TranslationUnit:
    """``lp.make_kernel`` with every number an int32 parameter, those that bound a loop
    assumed positive (ISL only knows the parameters of domains)."""
    bounding = [p for p in parameters
                if any(re.search(rf"\b{p}\b", d) for d in domains)]
    knl = lp.make_kernel(
        list(domains), instructions,
        [*arguments, *(lp.ValueArg(p, np.int32) for p in parameters)],
        name=name, assumptions=" and ".join(f"{p} >= 1" for p in bounding),
        lang_version=LANG_VERSION, target=lp.PyOpenCLTarget(),
        silenced_warnings=list(BENIGN_WARNINGS))
    knl = lp.tag_inames(knl, dict(tags))
    # ``all_lanes``: an instruction that no lane index appears in (zeroing a private
    # accumulator) still runs in every lane
    return lp.add_inames_for_unused_hw_axes(knl) if all_lanes else knl


def instantiate(template: Template, values: Mapping[str, int]) -> lp.TranslationUnit:
    """The template with its numbers fixed: a concrete kernel for one point."""
    missing = [s for s in template.symbols if s not in values]
    if missing:
        raise ValueError(f"no value for template number(s) {', '.join(missing)}")
    return lp.fix_parameters(template.kernel,
                             **{s: int(values[s]) for s in template.symbols})
