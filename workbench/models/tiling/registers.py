"""Registers per work item from NVIDIA's ``-cl-nv-verbose`` build log.

The parser lives in :mod:`workbench.hardware.build_info` (the occupancy features read
it too); the names the tiling model has always used stay here.  The paper could not
use registers in its model, since they are known only after the build; we read them
from the exploration runner's stored log (``extra["build_log"]``), so the concurrency
``k`` of a built point respects the register file too.
"""

from workbench.hardware.build_info import KernelBuildInfo as KernelRegisters
from workbench.hardware.build_info import parse_build_log as parse_registers
from workbench.hardware.build_info import registers_of

__all__ = ["KernelRegisters", "parse_registers", "registers_of"]
