"""The transformation: :func:`remove_work` and the :class:`_WorkRemover` behind it.

The analysis of the kernel's data flow is in :mod:`.analysis` (on the accesses
sorted by :mod:`.scan`); this module rewrites the kernel from it.

Design
------
The hard part is keeping the loads alive.  An optimizing OpenCL compiler deletes a
load whose value reaches no store, and of a series of loads that overwrite one
register it keeps only the last.  So every loaded value has to reach a global store
through operations the compiler cannot see through -- and those must not be
floating-point arithmetic.

*Why not select by a runtime argument.*  Rewriting ``out[i] = x[i] + y[i]`` as
``out[i] = wr_select == 0 ? x[i] : y[i]`` keeps both loads in loopy's counts, but
C's ``?:`` evaluates only the chosen operand: at run time one load simply does not
happen.  Loading into variables first does not help for long: the compiler may sink
the loads back into the branches, or unswitch the uniform condition out of a loop
and then keep only the last iteration's load.  The kernel would time a fraction of
the traffic it claims.  Whatever selects must depend on the *loaded data*, so no new
kernel argument is needed (and none is added).

*What the derived kernel computes.*  Every operation of the original data flow is
replaced by a data-dependent selection, ``max(u, v)`` written ``u > v ? u : v``
(loopy's ``If`` of a ``Comparison``).  Both operands are needed to evaluate the
comparison, so no load can be skipped, sunk or deleted.  The price is one compare
and select per load, operations neither loopy's op counter nor the model knows
(there are no ``f_op_float*`` properties) and less than the paper's own global
microbenchmarks spend (they store the *sum* of what they fetch).  In effect the
kernel evaluates the original data-flow graph with all arithmetic replaced by
``max``, which makes its results checkable: ``transpose_wr`` still transposes,
``matmul_naive_wr`` gives ``c[i, j] = max(max_k a[i, k], max_k b[k, j])``.

*How values travel.*  Global loads in value positions (not inside an index) are
"sources"; a static data-flow analysis over temporaries (a fixed point that ignores
order) finds which sources reach which store.  Each source gets a private carrier:

* a load that is its store's only source stays in the store (``out[i] = a[j, i]``);
* a load whose instruction writes a temporary (the fetch ``a_fetch[..] = a[..]``
  of a prefetch, ``p0 = x[0, i]``), or that sits in a reduction
  (``sum(k, a[i, k]*b[k, j])``), or that shares its store with other sources is
  hoisted into an instruction with the same access expression, the same loop nest
  (``within_inames`` plus the enclosing reduction inames, so a reduction keeps its
  loop) and the same predicates;
* if that nest lies within every consuming store's nest, a plain private variable
  carries the value (each store execution reads the value of its own iteration).
  Otherwise the load runs several times per store, or in work items whose
  consumers never ran it (a tile fetch spread over the work group), and the carrier
  *accumulates*: it starts at the dtype's lowest value, set at the top of every
  work item, and after each load becomes ``v > c ? v : c``;
* a store selects among the carriers of all sources that reach it (a chain of
  private values when there are more than two); one with no source stores 0.

Dependencies of surviving instructions are routed through the dropped ones; each
store also depends on its carriers' last writers, unless the value reaches it only
around a loop (the load comes after the store in the loop body), where that edge
would close a cycle and the accumulated value of earlier iterations is used, as in
the original.

*What is dropped.*  Every instruction that writes a temporary without a global
access in it: ``acc = acc + e``, ``r2 = d0*d0 + ...``, the whole ``k_inner`` loop
over the local tiles of a tiled matrix product (a reduction without global loads
collapses to its carriers).  All temporaries but index temporaries disappear; the
local tiles are replaced by the carriers, so no local memory is left and loopy
inserts no barriers; explicit local barriers go, global ones stay.  No reduction
operator survives.  Inames left without instructions (``k_inner``, the summation
index of ``arith``) are projected out of the domain, which keeps the other inames'
points.  A dropped instruction whose hardware-parallel inames no surviving
instruction uses leaves a no-op in them, because loopy sizes the launch grid over
all instructions.

*What is kept verbatim.*  Index arithmetic: a temporary read in the index of a
global access, in a predicate, or by another such instruction is an *index
temporary*, and the instructions writing it are kept as they are (their loads then
feed addresses).  Value arguments (``alpha``, ``h2``) are no longer read but stay
in the signature, so the derived kernel takes the same inputs.

*A loopy pitfall the transformation avoids.*  Without barriers in a loop, loopy
bounds the loop using every local iname of the loop's instructions.  When two of
them use different local inames on one axis (the fetches of ``a`` and ``b`` in a
tiled product), the constraints of both then bound the loop for both, and loads go
missing at run time although loopy still counts them.  (The original kernel is
safe only because its barriers make local inames unusable in loop bounds.)  Such
inames are moved into a nested domain of their own, which leaves the set of points,
hence every count, unchanged and turns their constraints into guards.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import islpy as isl
import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from loopy.kernel.data import AddressSpace, GroupInameTag, Iname, LocalInameTag
from loopy.kernel.instruction import (
    BarrierInstruction,
    InstructionBase,
    MultiAssignmentBase,
    NoOpInstruction,
)

from workbench.errors import UnsupportedKernelError
from workbench.kernels.work_removal.analysis import _Analysis
from workbench.kernels.work_removal.helpers import (
    _decouple,
    _entry_name,
    _lowest,
    _numpy_dtype,
    _select_max,
)
from workbench.kernels.work_removal.scan import _Load

#: Suffix of a derived kernel's (and spec's) name.
SUFFIX = "_wr"

#: loopy warns that it counts both branches of an ``If``; the derived kernel's
#: selections are deliberate and their branches hold no operations.
_SILENCED = frozenset({"summing_if_branches_ops", "summing_if_branches"})

_HW_TAGS = (LocalInameTag, GroupInameTag)


# {{{ the transformation

class _WorkRemover(_Analysis):
    """Builds the work-removed version of one loopy kernel (module docstring)."""

    def __init__(self, knl: lp.LoopKernel, callables_table: Mapping):
        super().__init__(knl, callables_table)
        self.insn_ids = knl.get_instruction_id_generator()
        self.var_names = knl.get_var_name_generator()
        self.new_temps: dict[str, lp.TemporaryVariable] = {}
        self.new_inames: dict[str, frozenset] = {}
        self.new_domains: list[isl.BasicSet] = []
        self._init_inames: tuple[str, ...] | None = None
        self.carrier_var: dict[str, str] = {}    # load key -> its carrier
        self.added_deps: dict[str, set[str]] = {}  # store -> carrier deps it got

    # {{{ building blocks

    def _iname_tags(self, iname: str) -> frozenset:
        if iname in self.new_inames:
            return self.new_inames[iname]
        return self.knl.iname_tags(iname)

    def _hw_inames(self, inames: Iterable[str], tag_types: tuple[type, ...] = _HW_TAGS
                   ) -> frozenset[str]:
        return frozenset(i for i in inames
                         if any(isinstance(t, tag_types) for t in self._iname_tags(i)))

    def _init_local_inames(self) -> tuple[str, ...]:
        """Fresh local inames spanning the whole work group, so that the initial
        value of a carrier is set in every work item (made once)."""
        if self._init_inames is None:
            _, lsize = self.knl.get_grid_size_upper_bounds_as_exprs(self.callables)
            names = []
            for axis, size in enumerate(lsize):
                if not isinstance(size, (int, np.integer)):
                    raise UnsupportedKernelError(
                        f"kernel {self.knl.name!r} has a non-constant work-group size "
                        f"along axis {axis}; work removal needs a constant one")
                names.append(self.var_names(f"wr_lid{axis}"))
                self.new_inames[names[-1]] = frozenset({LocalInameTag(axis)})
            if names:
                cond = " and ".join(f"0 <= {n} < {int(s)}" for n, s in zip(names, lsize))
                self.new_domains.append(
                    isl.BasicSet(f"{{ [{', '.join(names)}]: {cond} }}"))
            self._init_inames = tuple(names)
        return self._init_inames

    def _temp(self, base: str, dtype: np.dtype | None) -> str:
        name = self.var_names(base)
        self.new_temps[name] = lp.TemporaryVariable(
            name, dtype, shape=(), address_space=AddressSpace.PRIVATE)
        return name

    def _var_dtype(self, name: str) -> np.dtype | None:
        if name in self.new_temps:
            return _numpy_dtype(self.new_temps[name].dtype)
        if name in self.knl.arg_dict:
            return _numpy_dtype(self.knl.arg_dict[name].dtype)
        return _numpy_dtype(self.temps[name].dtype)

    def _assign(self, base_id: str, target: str, expr: object,
                within: Iterable[str], predicates: Iterable, deps: Iterable[str]
                ) -> lp.Assignment:
        return lp.Assignment(
            prim.Variable(target), expr, id=self.insn_ids(base_id),
            within_inames=frozenset(within), predicates=frozenset(predicates),
            happens_after=frozenset(deps))

    # }}}

    # {{{ emitting instructions

    def _emit_carrier(self, load: _Load, insn: MultiAssignmentBase,
                      out: list[InstructionBase]) -> tuple[str, str | None]:
        """Append the instructions that bring *load* into its carrier.

        Returns the id of the instruction holding the load (its dependencies are
        filled in later) and the id of the carrier's last writer, None for a load
        that reaches no store (kept, as in the original, but never read).
        """
        dtype = self._var_dtype(load.array)
        inames = frozenset(insn.within_inames) | load.reduction_inames
        predicates = frozenset(insn.predicates)
        consumers = [self.knl.id_to_insn[s] for s in self.consumers.get(load.key, ())]
        base = f"wr_{load.array}"
        if not consumers:
            ld = self._assign(f"wr_load_{insn.id}", self._temp(f"{base}_unused", dtype),
                              load.expr, inames, predicates, ())
            out.append(ld)
            return ld.id, None
        carrier = self._temp(f"{base}_carrier", dtype)
        self.carrier_var[load.key] = carrier
        if all(inames <= s.within_inames and predicates <= s.predicates
               for s in consumers):
            ld = self._assign(f"wr_load_{insn.id}", carrier, load.expr, inames,
                              predicates, ())
            out.append(ld)
            return ld.id, ld.id
        init = self._assign(
            f"wr_init_{insn.id}", carrier, _lowest(dtype),
            self._hw_inames(insn.within_inames, (GroupInameTag,))
            | frozenset(self._init_local_inames()), (), ())
        value = self._temp(f"{base}_value", dtype)
        ld = self._assign(f"wr_load_{insn.id}", value, load.expr, inames, predicates, ())
        update = self._assign(
            f"wr_update_{insn.id}", carrier,
            _select_max(prim.Variable(value), prim.Variable(carrier)),
            inames, predicates, (ld.id, init.id))
        out += [init, ld, update]
        return ld.id, update.id

    def _rewrite_store(self, insn: MultiAssignmentBase, deps: frozenset[str],
                       carrier_last: Mapping[str, str]) -> list[InstructionBase]:
        """The store, now storing a selection among its sources' carriers."""
        sources = self.store_sources[insn.id]
        if self._load_stays_in_store(insn):
            (load,) = [ld for ld in self.scans[insn.id].loads if ld.key == sources[0]]
            return [insn.copy(expression=load.expr, happens_after=deps)]
        added = {carrier_last[k] for k in sources if k in carrier_last}
        self.added_deps[insn.id] = added
        deps = set(deps) | added
        exprs = [prim.Variable(self.carrier_var[k]) for k in sources]
        helpers: list[InstructionBase] = []
        if not exprs:
            dtype = self._var_dtype(insn.assignee_var_names()[0])
            value: object = dtype.type(0) if dtype is not None else 0
        else:
            value = exprs[0]
            for e in exprs[1:-1]:  # a chain of private values, not a nested tree
                dtypes = [self._var_dtype(v.name) for v in (e, value)]
                tmp = self._temp("wr_max", None if None in dtypes
                                 else np.result_type(*dtypes))
                h = self._assign(f"wr_max_{insn.id}", tmp, _select_max(e, value),
                                 insn.within_inames, insn.predicates, deps)
                helpers.append(h)
                deps = {*deps, h.id}
                value = prim.Variable(tmp)
            if len(exprs) > 1:
                value = _select_max(exprs[-1], value)
        return [*helpers, insn.copy(expression=value, happens_after=frozenset(deps))]

    def _grid_anchors(self, kept: Sequence[InstructionBase],
                      dropped: Iterable[InstructionBase]) -> list[InstructionBase]:
        """No-ops in the hardware inames that only dropped instructions used."""
        used = set().union(*(self._hw_inames(i.within_inames) for i in kept))
        anchors = []
        for insn in dropped:
            hw = self._hw_inames(insn.within_inames)
            if hw - used:
                anchors.append(NoOpInstruction(id=self.insn_ids(f"wr_grid_{insn.id}"),
                                               within_inames=hw))
                used |= hw
        return anchors

    def _break_cycles(self, insns: list[InstructionBase]) -> list[InstructionBase]:
        """Drop the added store-on-carrier dependencies that close a cycle.

        One arises where a value reaches a store only around a loop (the load comes
        after the store in the loop body); the store then reads the carrier's value
        from earlier iterations, as the original read the temporary's.
        """
        deps = {i.id: set(i.depends_on) for i in insns}

        def reaches(src: str, dst: str) -> bool:
            todo, seen = [src], set()
            while todo:
                cur = todo.pop()
                if cur == dst:
                    return True
                if cur not in seen:
                    seen.add(cur)
                    todo.extend(deps.get(cur, ()))
            return False

        result = []
        for insn in insns:
            closing = {d for d in self.added_deps.get(insn.id, ())
                       if reaches(d, insn.id)}
            if closing:
                deps[insn.id] -= closing
                insn = insn.copy(happens_after=frozenset(deps[insn.id]))
            result.append(insn)
        return result

    def _mixed_local_inames(self, insns: Sequence[InstructionBase]
                            ) -> list[frozenset[str]]:
        """Groups of local inames that share a barrier-free loop with other local
        inames on the same axis (see 'A loopy pitfall' in the module docstring)."""
        def local_axes(insn: InstructionBase) -> dict[int, str]:
            return {t.axis: iname for iname in insn.within_inames
                    for t in self._iname_tags(iname) if isinstance(t, LocalInameTag)}

        loops = {i for insn in insns for i in insn.within_inames
                 if not self._hw_inames({i})}
        groups: set[frozenset[str]] = set()
        for loop in sorted(loops):
            axes = [local_axes(i) for i in insns if loop in i.within_inames]
            mixed = {ax for ax in set().union(*axes)
                     if len({a[ax] for a in axes if ax in a}) > 1}
            groups |= {frozenset(a.values()) for a in axes if mixed & set(a)}
        return sorted(groups, key=sorted)

    # }}}

    def run(self) -> lp.LoopKernel:
        knl = self.knl
        self._check_supported()
        self._scan()
        self._find_index_temporaries()
        self._data_flow()

        # What survives as it is, what is rewritten, what goes.
        plan: list[tuple[str, InstructionBase]] = []
        for insn in knl.instructions:
            if isinstance(insn, BarrierInstruction):
                local = insn.synchronization_kind == "local" and insn.mem_kind == "local"
                plan.append(("drop" if local else "keep", insn))
            elif isinstance(insn, NoOpInstruction) or insn.id in self.verbatim:
                plan.append(("keep", insn))
            elif self._is_store(insn):
                plan.append(("store", insn))
            elif isinstance(insn, MultiAssignmentBase):
                plan.append(("hoist", insn))
            else:
                raise UnsupportedKernelError(
                    f"instruction {insn.id!r} of {knl.name!r} is a "
                    f"{type(insn).__name__}, which work removal does not know")
        dropped = {i.id: i for action, i in plan if action in ("drop", "hoist")}

        # The carriers of every source.
        carrier_last: dict[str, str] = {}
        stands_for: dict[str, set[str]] = {}  # dropped insn -> its carriers' writers
        inherits: dict[str, str] = {}         # hoisted load insn -> its original
        carriers: list[InstructionBase] = []
        for action, insn in plan:
            if action not in ("store", "hoist") or (
                    action == "store" and self._load_stays_in_store(insn)):
                continue
            for ld in self.scans[insn.id].loads:
                load_id, last = self._emit_carrier(ld, insn, carriers)
                inherits[load_id] = insn.id
                if last is not None:
                    carrier_last[ld.key] = last
                    stands_for.setdefault(insn.id, set()).add(last)

        memo: dict[str, frozenset[str]] = {}

        def resolve(dep: str, seen: frozenset[str] = frozenset()) -> frozenset[str]:
            """A dependency on *dep*, routed through dropped instructions."""
            if dep not in dropped:
                return frozenset({dep})
            if dep in memo:
                return memo[dep]
            if dep in seen:
                return frozenset()
            result = set(stands_for.get(dep, ()))
            for d in dropped[dep].depends_on:
                result |= resolve(d, seen | {dep})
            memo[dep] = frozenset(result)
            return memo[dep]

        def resolved(insn: InstructionBase) -> frozenset[str]:
            return frozenset().union(*(resolve(d) for d in insn.depends_on))

        final: list[InstructionBase] = []
        for insn in carriers:
            if insn.id in inherits:
                insn = insn.copy(happens_after=frozenset(insn.depends_on)
                                 | resolved(knl.id_to_insn[inherits[insn.id]]))
            final.append(insn)
        for action, insn in plan:
            if action == "keep":
                final.append(insn.copy(happens_after=resolved(insn)))
            elif action == "store":
                final += self._rewrite_store(insn, resolved(insn), carrier_last)
        final += self._grid_anchors(final, dropped.values())
        final = self._break_cycles(final)

        temps = {n: t for n, t in self.temps.items()
                 if n in self.index_temps or n in self.globals_}
        temps.update(self.new_temps)
        inames = dict(knl.inames)
        inames.update({n: Iname(n, tags) for n, tags in self.new_inames.items()})
        # Inames only dropped work used (k_inner, the summation of arith) go: an
        # unused iname is a loopy warning, and a loop without instructions is no
        # structure to keep.  Projecting them out keeps the other inames' points.
        used = set().union(*(i.within_inames for i in final))
        unused = sorted(set(knl.all_inames()) - used)
        result = lp.remove_unused_inames(knl.copy(
            instructions=final, temporary_variables=temps,
            domains=[*knl.domains, *self.new_domains], inames=inames,
            silenced_warnings=knl.silenced_warnings | _SILENCED), unused)
        domains = list(result.domains)
        for group in self._mixed_local_inames(final):
            domains = _decouple(domains, group)
        priorities = frozenset(
            kept for kept in (tuple(i for i in prio if i in used)
                              for prio in knl.loop_priority) if len(kept) > 1)
        return result.copy(domains=domains, loop_priority=priorities,
                           inames={n: v for n, v in inames.items() if n in used})


def remove_work(kernel: lp.TranslationUnit) -> lp.TranslationUnit:
    """The work-removed version of *kernel*, named ``<name>_wr``.

    Same global loads and stores (arrays, index expressions, loop nests, counts),
    same iname tags and launch grid; no floating-point arithmetic, no local memory,
    no local barriers; every loaded value still reaches a global store.  See the
    module docstring for how, and the package's (:mod:`workbench.kernels.work_removal`)
    for the limitations.
    """
    if isinstance(kernel, lp.LoopKernel):
        kernel = lp.make_program(kernel)
    name = _entry_name(kernel)
    kernel = lp.expand_subst(kernel)
    knl = _WorkRemover(kernel[name], kernel.callables_table).run()
    return lp.rename_callable(kernel.with_kernel(knl), name, name + SUFFIX)


# }}}
