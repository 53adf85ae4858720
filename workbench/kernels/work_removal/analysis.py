"""The analysis phase of work removal: what a kernel's data flow looks like.

:class:`_Analysis` checks that the kernel is supported, sorts the accesses of
every instruction (:mod:`.scan`), finds the index temporaries and the
instructions kept verbatim to compute them, and runs the static data-flow
analysis that tells which sources reach which store.  The rewriting phase,
:class:`~workbench.kernels.work_removal.transform._WorkRemover`, builds on it; its
module docstring describes the design.
"""

from __future__ import annotations

from collections.abc import Mapping

import loopy as lp
import pymbolic.primitives as prim
from loopy.kernel import KernelState
from loopy.kernel.data import AddressSpace
from loopy.kernel.function_interface import CallableKernel
from loopy.kernel.instruction import CInstruction, InstructionBase, MultiAssignmentBase
from loopy.symbolic import LinearSubscript

from workbench.errors import UnsupportedKernelError
from workbench.kernels.work_removal.scan import _Mode, _Scan, _Scanner


class _Analysis:
    """The data flow of one loopy kernel, as work removal needs it.

    After :meth:`_check_supported`, :meth:`_scan`, :meth:`_find_index_temporaries`
    and :meth:`_data_flow` (in this order) it holds ``scans`` (instruction ->
    :class:`~.scan._Scan`), ``index_temps`` and ``verbatim`` (the instructions that
    compute them), ``store_sources`` (store -> the sources reaching it) and
    ``consumers`` (source -> the stores it reaches).
    """

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
