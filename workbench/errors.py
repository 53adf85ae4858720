"""Every error and warning the workbench raises on purpose.

Expected user mistakes (an unknown kernel, a missing parameter, a malformed group
size...) are :class:`WorkbenchError` subclasses; the CLI and the UI turn them into
one readable line instead of a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class WorkbenchError(Exception):
    """Base class of every error the workbench reports to its user."""


class UnknownNameError(WorkbenchError, KeyError):
    """A kernel, variant, parameter, device or property name that does not exist."""

    def __init__(self, what: str, name: str, known: Iterable[str], said: str | None = None):
        """``said``: the whole message, where "unknown X. Did you mean Y?" would mislead."""
        self.what = what
        self.name = name
        self.known = sorted(known)
        close = difflib.get_close_matches(name, self.known, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        listing = ", ".join(self.known) if len(self.known) <= 12 else \
            ", ".join(self.known[:12]) + ", ..."
        msg = said or f"unknown {what} {name!r}.{hint} Known: {listing}"
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would quote the message otherwise
        return self.args[0]


class ParameterError(WorkbenchError):
    """A parameter value is missing, malformed or violates the kernel's assumptions."""


class SizeError(ParameterError):
    """A kernel size below 1: 0 leaves the kernel no work (its prediction was a bare
    launch), a negative one is no size at all."""


class GroupSizeError(WorkbenchError):
    """A work-group size that cannot be parsed or does not fit the kernel."""


class UnsupportedKernelError(WorkbenchError):
    """A kernel whose properties cannot be extracted (data-dependent bounds, dtypes...)."""


class DeviceError(WorkbenchError):
    """No OpenCL device matches, or the OpenCL runtime is unusable."""


class StoreError(WorkbenchError):
    """A measurement store that cannot be opened, is not a store, or is too new."""


class ModelError(WorkbenchError):
    """A model that cannot be fitted, loaded or evaluated."""


class BarvinokMissingError(WorkbenchError):
    """islpy without barvinok: loopy would estimate the counts of a non-rectangular
    loop nest, and the footprints cannot be counted at all."""


class TuningError(WorkbenchError):
    """A search space that is empty or malformed, or an exploration that cannot run."""


class UnknownModelNameError(UnknownNameError, ModelError):
    """An unknown feature or parameter name of a model expression; both a ModelError
    and an UnknownNameError."""


class WorkbenchWarning(UserWarning):
    """Base class of the workbench's warnings."""


class DistributedError(WorkbenchError):
    """A Dask cluster that cannot run a campaign or an exploration."""


class SchedulerUnreachableError(DistributedError):
    """No Dask scheduler answers at the given address in time."""


class WorkerDeviceError(DistributedError, DeviceError):
    """A device worker without the requested OpenCL device, or device workers that see
    different devices; both a DistributedError and a DeviceError."""


class VersionMismatchError(DistributedError):
    """Workers whose libraries differ from the client's: their kernels and timings
    would not be those of one software stack."""
