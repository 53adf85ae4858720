"""Registers per work item, read from NVIDIA's OpenCL build log.

With the build option ``-cl-nv-verbose`` the driver's log carries ptxas's report::

    ptxas info    : Compiling entry function 'heat2d_band' for 'sm_90a'
    ptxas info    : Function properties for heat2d_band
    ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 32 registers, used 1 barriers, 2432 bytes smem

(the exploration runner stores that log with each point, ``extra["build_log"]``).
The paper could not use registers in its model, since they are known only after the
build; we read them from there, so the concurrency ``k`` of a built point respects
the register file too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_USED = re.compile(r"Used (\d+) registers")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True)
class KernelRegisters:
    kernel: str
    registers: int
    spill_stores: int = 0     # bytes
    spill_loads: int = 0      # bytes

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0


def parse_registers(log: str) -> dict[str, KernelRegisters]:
    """Registers (and spills) per kernel named in a ``-cl-nv-verbose`` build log; an
    empty mapping when the log has no ptxas report (another vendor, no option)."""
    found: dict[str, KernelRegisters] = {}
    current, spills = None, (0, 0)
    for line in (log or "").splitlines():
        if m := _ENTRY.search(line):
            current, spills = m.group(1), (0, 0)
        elif m := _PROPS.search(line):
            current = m.group(1)
        elif m := _SPILL.search(line):
            spills = (int(m.group(1)), int(m.group(2)))
        elif (m := _USED.search(line)) and current is not None:
            found[current] = KernelRegisters(current, int(m.group(1)), *spills)
    return found


def registers_of(log: str, kernel: str | None = None) -> int | None:
    """Registers per work item of ``kernel`` (or of the log's only kernel)."""
    found = parse_registers(log)
    if kernel is not None:
        return found[kernel].registers if kernel in found else None
    return next(iter(found.values())).registers if len(found) == 1 else None
