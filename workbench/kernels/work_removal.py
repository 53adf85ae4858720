"""The 'work removal' transformation of Stevens & Klöckner (2019), section 7.1.1.

``remove_work(kernel)`` derives from a loopy kernel one that performs the same
global-memory traffic -- the same arrays and index expressions, each access in its
instruction's loop nest (``within_inames``), the same iname tags and launch grid --
but none of the on-chip work: no floating-point arithmetic, no local-memory traffic
and so none of the local barriers that protected it.  Its run time is the cost of
the original's global-memory accesses "in situ", the paper's proxy feature for
access patterns that no microbenchmark describes.  ``work_removed_spec`` wraps a
catalog or user :class:`KernelSpec` so that the derived kernel goes everywhere a
catalog kernel goes; ``tag_global_accesses`` attaches the paper's access tags
(``a$aLD``) so that an in-situ feature can name the accesses it stands for.

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

Limitations: the kernel must be in loopy's initial state (remove work before
preprocessing); raw C instructions, atomic updates and calls to loopy sub-kernels
raise :class:`~workbench.errors.UnsupportedKernelError` (their accesses cannot be
seen or moved); carriers are per work item, so ILP/vector inames share one carrier
(all loads stay live, but the original's independent accumulators become one
chain); float arithmetic or local memory used to compute an *address* survives with
the index computation; a kernel split by global barriers would make loopy save
carriers that cross the split to global memory; accumulating carriers need a
constant work-group size (loopy's OpenCL targets have one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import islpy as isl
import loopy as lp
import numpy as np
import pymbolic.primitives as prim
from loopy.kernel import KernelState
from loopy.kernel.data import AddressSpace, GroupInameTag, Iname, LocalInameTag
from loopy.kernel.function_interface import CallableKernel
from loopy.kernel.instruction import (
    BarrierInstruction,
    CInstruction,
    InstructionBase,
    LegacyStringInstructionTag,
    MultiAssignmentBase,
    NoOpInstruction,
)
from loopy.symbolic import IdentityMapper, LinearSubscript, Reduction, TaggedVariable
from pymbolic.mapper import WalkMapper

from workbench.errors import UnknownNameError, UnsupportedKernelError
from workbench.kernels.base import BuildRequest, KernelRole, KernelSpec

__all__ = ["SUFFIX", "remove_work", "tag_global_accesses", "work_removed_spec"]

#: Suffix of a derived kernel's (and spec's) name.
SUFFIX = "_wr"

#: loopy warns that it counts both branches of an ``If``; the derived kernel's
#: selections are deliberate and their branches hold no operations.
_SILENCED = frozenset({"summing_if_branches_ops", "summing_if_branches"})

_HW_TAGS = (LocalInameTag, GroupInameTag)


# {{{ sorting the accesses of an instruction

class _Mode:
    """Where in an expression an access sits, which decides what becomes of it."""

    VALUE = "value"            # its value is data: a load here is a source
    GLOBAL_INDEX = "gindex"    # forms a global address: kept verbatim
    TEMP_INDEX = "tindex"      # indexes a temporary that disappears


@dataclass(frozen=True)
class _Load:
    """One global load in a value position (a *source*)."""

    key: str
    insn_id: str
    expr: prim.Expression             # verbatim: access tags and index included
    array: str
    reduction_inames: frozenset[str]  # of the reductions around it


@dataclass
class _Scan:
    """The accesses of one instruction, by role."""

    loads: list[_Load] = field(default_factory=list)
    value_temps: list[str] = field(default_factory=list)
    index_temps: set[str] = field(default_factory=set)


class _Scanner(WalkMapper):
    """Sorts the variable accesses of one expression by role (see :class:`_Mode`).

    A global load inside the index of a disappearing temporary is kept as a source:
    loopy counts it, so it has to stay.  Built on pymbolic's uncached walker on
    purpose (loopy's ``UncachedWalkMapper`` derives from the cached one): two
    textual occurrences of ``a[i]`` are two loads to loopy and must stay two.
    """

    def __init__(self, globals_: frozenset[str], temps: frozenset[str], insn_id: str,
                 scan: _Scan, counter: list[int]):
        super().__init__()
        self.globals_ = globals_
        self.temps = temps
        self.insn_id = insn_id
        self.scan = scan
        self.counter = counter

    def _access(self, expr: prim.Expression, name: str, index: object, mode: str,
                red: frozenset[str]) -> None:
        if name in self.globals_:
            if mode != _Mode.GLOBAL_INDEX:
                self.counter[0] += 1
                self.scan.loads.append(_Load(f"{name}#{self.counter[0]}", self.insn_id,
                                             expr, name, red))
            inner = _Mode.GLOBAL_INDEX
        elif name in self.temps:
            if mode == _Mode.VALUE:
                self.scan.value_temps.append(name)
            elif mode == _Mode.GLOBAL_INDEX:
                self.scan.index_temps.add(name)
            inner = _Mode.GLOBAL_INDEX if mode == _Mode.GLOBAL_INDEX \
                else _Mode.TEMP_INDEX
        else:
            inner = mode
        if index is not None:
            self.rec(index, inner, red)

    def map_variable(self, expr, mode: str, red: frozenset[str]) -> None:
        self._access(expr, expr.name, None, mode, red)

    map_tagged_variable = map_variable

    def map_subscript(self, expr, mode: str, red: frozenset[str]) -> None:
        if not isinstance(expr.aggregate, prim.Variable):
            raise UnsupportedKernelError(f"subscript of a non-variable: {expr}")
        self._access(expr, expr.aggregate.name, expr.index, mode, red)

    map_linear_subscript = map_subscript

    def map_reduction(self, expr: Reduction, mode: str, red: frozenset[str]) -> None:
        self.rec(expr.expr, mode, red | frozenset(expr.inames))

    def map_type_cast(self, expr, mode: str, red: frozenset[str]) -> None:
        self.rec(expr.child, mode, red)

    def map_resolved_function(self, expr, mode: str, red: frozenset[str]) -> None:
        pass  # the name of a function, not a variable

    map_function_symbol = map_resolved_function
    map_loopy_function_identifier = map_resolved_function

    def map_sub_array_ref(self, expr, mode: str, red: frozenset[str]) -> None:
        raise UnsupportedKernelError(
            f"array section {expr} is passed to a call; work removal does not enter "
            "calls")


# }}}


# {{{ small helpers

def _select_max(u: prim.Expression, v: prim.Expression) -> prim.Expression:
    """``max(u, v)`` as a data-dependent selection: no arithmetic operation."""
    return prim.If(prim.Comparison(u, ">", v), u, v)


def _lowest(dtype: np.dtype | None) -> object:
    """The identity of ``max`` in *dtype*, finite (no ``INFINITY`` literal needed)."""
    if dtype is None:
        return 0
    if dtype.kind == "f":
        return dtype.type(np.finfo(dtype).min)
    if dtype.kind in "iu":
        return dtype.type(np.iinfo(dtype).min)
    return dtype.type(0)


def _numpy_dtype(dtype: object) -> np.dtype | None:
    if dtype is None or dtype is lp.auto:
        return None
    return np.dtype(getattr(dtype, "numpy_dtype", dtype))


def _entry_name(kernel: lp.TranslationUnit) -> str:
    if len(kernel.entrypoints) != 1:
        raise UnsupportedKernelError(
            "work removal needs a translation unit with exactly one entry point, got "
            f"{sorted(kernel.entrypoints)}")
    return next(iter(kernel.entrypoints))


def _decouple(domains: list[isl.BasicSet], inames: frozenset[str]
              ) -> list[isl.BasicSet]:
    """Move *inames* from their domain into a nested domain of their own.

    The parent keeps the other inames (*inames* projected out: the same points);
    the child declares *inames* with the parent's inames as parameters, which is how
    loopy nests domains.  No point is added or removed, so no count changes.
    """
    where = [k for k, d in enumerate(domains)
             if inames & set(d.get_var_names(isl.dim_type.set))]
    if len(where) != 1:
        return domains
    k = where[0]
    dom = domains[k]
    names = dom.get_var_names(isl.dim_type.set)
    if not inames <= set(names) or set(names) <= inames:
        return domains
    parent = dom
    for name in inames:
        _, idx = parent.get_var_dict()[name]
        parent = parent.project_out(isl.dim_type.set, idx, 1)
    child = dom
    for name in names:
        if name not in inames:
            _, idx = child.get_var_dict()[name]
            child = child.move_dims(isl.dim_type.param, child.dim(isl.dim_type.param),
                                    isl.dim_type.set, idx, 1)
    return [*domains[:k], parent, child, *domains[k + 1:]]


# }}}


# {{{ the transformation

class _WorkRemover:
    """Builds the work-removed version of one loopy kernel (module docstring)."""

    def __init__(self, knl: lp.LoopKernel, callables_table: Mapping):
        self.knl = knl
        self.callables = callables_table
        self.temps = dict(knl.temporary_variables)
        global_temps = {n for n, t in self.temps.items()
                        if t.address_space == AddressSpace.GLOBAL}
        # What loopy's counter takes for global memory: array arguments and global
        # temporaries.
        self.globals_ = frozenset(
            {a.name for a in knl.args if isinstance(a, lp.ArrayArg)} | global_temps)
        self.data_temps = frozenset(set(self.temps) - global_temps)
        self.insn_ids = knl.get_instruction_id_generator()
        self.var_names = knl.get_var_name_generator()
        self.new_temps: dict[str, lp.TemporaryVariable] = {}
        self.new_inames: dict[str, frozenset] = {}
        self.new_domains: list[isl.BasicSet] = []
        self._init_inames: tuple[str, ...] | None = None
        self.carrier_var: dict[str, str] = {}    # load key -> its carrier
        self.added_deps: dict[str, set[str]] = {}  # store -> carrier deps it got

    # {{{ analysis

    def _check_supported(self) -> None:
        knl = self.knl
        if knl.state != KernelState.INITIAL:
            raise UnsupportedKernelError(
                f"kernel {knl.name!r} is already preprocessed or linearized; remove "
                "work from the kernel as built")
        callees = [n for n, c in self.callables.items()
                   if isinstance(c, CallableKernel) and n != knl.name]
        if callees:
            raise UnsupportedKernelError(
                f"kernel {knl.name!r} calls the loopy kernel(s) {', '.join(callees)}; "
                "work removal does not enter callees")
        for insn in knl.instructions:
            if isinstance(insn, CInstruction):
                raise UnsupportedKernelError(
                    f"instruction {insn.id!r} of {knl.name!r} is raw C code; work "
                    "removal cannot see which memory it accesses")
            if getattr(insn, "atomicity", ()):
                raise UnsupportedKernelError(
                    f"instruction {insn.id!r} of {knl.name!r} is atomic; work removal "
                    "would change its memory semantics")
            if isinstance(insn, MultiAssignmentBase) and len(insn.assignees) > 1 \
                    and any(n in self.globals_ for n in insn.assignee_var_names()):
                raise UnsupportedKernelError(
                    f"instruction {insn.id!r} of {knl.name!r} stores several results "
                    "of a call to global memory; not supported")

    def _scan(self) -> None:
        counter = [0]
        self.scans: dict[str, _Scan] = {}
        temps = frozenset(self.temps)
        for insn in self.knl.instructions:
            if not isinstance(insn, MultiAssignmentBase):
                continue
            scan = _Scan()
            scanner = _Scanner(self.globals_, temps, insn.id, scan, counter)
            scanner(insn.expression, _Mode.VALUE, frozenset())
            for assignee in insn.assignees:
                if isinstance(assignee, (prim.Subscript, LinearSubscript)):
                    mode = _Mode.GLOBAL_INDEX if assignee.aggregate.name in self.globals_ \
                        else _Mode.TEMP_INDEX
                    scanner(assignee.index, mode, frozenset())
            for pred in insn.predicates:
                scanner(pred, _Mode.GLOBAL_INDEX, frozenset())
            self.scans[insn.id] = scan

    def _find_index_temporaries(self) -> None:
        """Index temporaries, and the instructions kept verbatim to compute them."""
        writers: dict[str, list[str]] = {}
        for insn in self.knl.instructions:
            if isinstance(insn, MultiAssignmentBase):
                for name in insn.assignee_var_names():
                    writers.setdefault(name, []).append(insn.id)
        index_temps: set[str] = set()
        for scan in self.scans.values():
            index_temps |= scan.index_temps & self.data_temps
        verbatim: set[str] = set()
        todo = list(index_temps)
        while todo:
            for wid in writers.get(todo.pop(), ()):
                if wid in verbatim:
                    continue
                verbatim.add(wid)
                reads = self.knl.id_to_insn[wid].read_dependency_names() & self.data_temps
                todo += sorted(reads - index_temps)
                index_temps |= reads
        self.index_temps = frozenset(index_temps)
        self.verbatim = frozenset(verbatim)

    def _is_store(self, insn: InstructionBase) -> bool:
        return isinstance(insn, MultiAssignmentBase) and any(
            n in self.globals_ for n in insn.assignee_var_names())

    def _data_flow(self) -> None:
        """Which sources reach which temporary (to a fixed point), and which store."""
        reaching: dict[str, set[str]] = {t: set() for t in self.data_temps}
        writers = [i for i in self.knl.instructions if isinstance(i, MultiAssignmentBase)
                   and i.id not in self.verbatim and not self._is_store(i)]

        def flow_into(insn: MultiAssignmentBase) -> list[str]:
            scan = self.scans[insn.id]
            keys = [ld.key for ld in scan.loads]
            for t in scan.value_temps:
                if t not in self.index_temps:  # an index value is not data
                    keys += sorted(reaching[t] - set(keys))
            return keys

        changed = True
        while changed:
            changed = False
            for insn in writers:
                keys = set(flow_into(insn))
                for name in insn.assignee_var_names():
                    if name in reaching and not keys <= reaching[name]:
                        reaching[name] |= keys
                        changed = True
        self.store_sources = {
            insn.id: flow_into(insn) for insn in self.knl.instructions
            if self._is_store(insn) and insn.id not in self.verbatim}
        self.consumers: dict[str, list[str]] = {}
        for sid, keys in self.store_sources.items():
            for k in keys:
                self.consumers.setdefault(k, []).append(sid)

    def _load_stays_in_store(self, insn: MultiAssignmentBase) -> bool:
        """A store whose one source is a plain load of its own: ``out[i] = a[j, i]``."""
        sources = self.store_sources[insn.id]
        direct = {ld.key for ld in self.scans[insn.id].loads if not ld.reduction_inames}
        return len(sources) == 1 and sources[0] in direct

    # }}}

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
    module docstring for how, and for the limitations.
    """
    if isinstance(kernel, lp.LoopKernel):
        kernel = lp.make_program(kernel)
    name = _entry_name(kernel)
    kernel = lp.expand_subst(kernel)
    knl = _WorkRemover(kernel[name], kernel.callables_table).run()
    return lp.rename_callable(kernel.with_kernel(knl), name, name + SUFFIX)


# }}}


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
