"""Work removal for kernel specs and tags for global accesses.

:func:`work_removed_spec` wraps a :class:`~workbench.kernels.base.KernelSpec` so
that the derived kernel goes everywhere a catalog kernel goes;
:func:`tag_global_accesses` attaches the 2019 paper's access tags (``a$aLD``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import loopy as lp
from loopy.kernel.data import AddressSpace
from loopy.kernel.instruction import LegacyStringInstructionTag
from loopy.symbolic import IdentityMapper, TaggedVariable

from workbench.errors import UnknownNameError
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec
from workbench.kernels.work_removal.helpers import _entry_name
from workbench.kernels.work_removal.transform import SUFFIX, remove_work

# {{{ specs

def work_removed_spec(spec: KernelSpec) -> KernelSpec:
    """*spec* with every build passed through :func:`remove_work`, named ``<name>_wr``.

    Parameters, size cases, group sizes and inputs are those of *spec*: the
    derived kernel takes the same arguments and needs nothing new.  Its results
    are not the original's, so there is no numerical reference.  It is always a
    measurement kernel: it measures a (test) kernel's memory traffic in situ.
    """
    original_build = spec.build

    def build(request: BuildRequest) -> lp.TranslationUnit:
        return remove_work(original_build(request))

    return dataclasses.replace(
        spec, name=spec.name + SUFFIX, build=build, role=KernelRole.MEASUREMENT,
        description=f"{spec.name} with its on-chip work removed (global-memory "
                    f"accesses only). {spec.description}",
        reference=lambda inputs, params: {}, variant_reference=None)


# }}}


# {{{ access tags

class _Tagger(IdentityMapper):
    """Turns ``a`` into ``a$<tag>`` (a :class:`TaggedVariable`) for the given arrays."""

    def __init__(self, tags: Mapping[str, str]):
        super().__init__()
        self.tags = {name: LegacyStringInstructionTag(tag) for name, tag in tags.items()}

    def map_variable(self, expr, *args, **kwargs):
        if expr.name in self.tags:
            return TaggedVariable(expr.name, frozenset({self.tags[expr.name]}))
        return expr

    def map_tagged_variable(self, expr, *args, **kwargs):
        if expr.name in self.tags:
            return TaggedVariable(expr.name, expr.tags | {self.tags[expr.name]})
        return expr


def tag_global_accesses(kernel: lp.TranslationUnit, tags: Mapping[str, str]
                        ) -> lp.TranslationUnit:
    """Tag every access (loads and stores) of the global arrays in *tags*
    (array name -> tag), as if each were written ``a$aLD[i]`` in the kernel text.

    loopy's ``MemAccess.variable_tags`` then hold ``LegacyStringInstructionTag``
    with that value -- the form loopy itself gives the ``$`` syntax -- and the
    tags survive :func:`remove_work`, so the 2019 paper's in-situ features
    (``f_mem_access_tag:aLD``) can select the accesses they stand for.
    """
    if isinstance(kernel, lp.LoopKernel):
        kernel = lp.make_program(kernel)
    knl = kernel[_entry_name(kernel)]
    arrays = {a.name for a in knl.args if isinstance(a, lp.ArrayArg)} | {
        n for n, t in knl.temporary_variables.items()
        if t.address_space == AddressSpace.GLOBAL}
    for name in tags:
        if name not in arrays:
            raise UnknownNameError(f"global array of {knl.name!r}", name, arrays)
    mapper = _Tagger(tags)
    return kernel.with_kernel(knl.copy(
        instructions=[i.with_transformed_expressions(mapper) for i in knl.instructions],
        substitutions={n: r.copy(expression=mapper(r.expression))
                       for n, r in knl.substitutions.items()}))


# }}}
