"""Where and with what a measurement was taken.

A kernel time means nothing without the device, driver and software stack that
produced it: a driver update or a different loopy release can move timings by
more than the effects a model tries to capture. Every stored measurement
therefore carries a :class:`DeviceIdentity`, the :func:`library_versions`, the
:func:`host_name` and a :func:`utc_now_iso` timestamp, so that a result can be
traced back (and a mixed data set detected) long after the campaign ran.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from workbench.errors import StoreError

#: Distribution name of the workbench itself, as installed by pip.
WORKBENCH_DISTRIBUTION = "gpu-perf-workbench"

#: Third-party distributions whose versions can change kernel timings or the
#: code that is generated, in the order they are reported.
_TRACKED_DISTRIBUTIONS: tuple[str, ...] = (
    "numpy", "loopy", "islpy", "pyopencl", "pymbolic", "pytools", "scipy", "pandas",
)

UNKNOWN = "unknown"


def _clean(text: object) -> str:
    # OpenCL runtimes pad names with blanks and even NUL bytes; stripping them keeps
    # the same device from showing up under two identities.
    return str(text).strip().strip("\x00").strip()


@dataclass(frozen=True)
class DeviceIdentity:
    """The OpenCL device a measurement ran on.

    ``platform``, ``device`` and ``driver`` identify it (a driver update is a
    different device as far as timings go); ``vendor`` is descriptive only and is
    not part of :attr:`key`.
    """

    platform: str
    device: str
    driver: str
    vendor: str = ""

    def __post_init__(self) -> None:
        for name in ("platform", "device", "driver", "vendor"):
            object.__setattr__(self, name, _clean(getattr(self, name)))

    @property
    def key(self) -> str:
        """Stable short identifier, used to group and look up measurements."""
        return f"{self.platform}|{self.device}|{self.driver}"

    def to_dict(self) -> dict[str, str]:
        return {"platform": self.platform, "device": self.device,
                "driver": self.driver, "vendor": self.vendor}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> DeviceIdentity:
        """Inverse of :meth:`to_dict`; ``vendor`` may be absent (older records)."""
        try:
            return cls(platform=str(data["platform"]), device=str(data["device"]),
                       driver=str(data["driver"]), vendor=str(data.get("vendor", "")))
        except KeyError as exc:
            raise StoreError(f"device identity lacks the field {exc.args[0]!r}: "
                             f"{dict(data)!r}") from None

    def __str__(self) -> str:
        return f"{self.device} ({self.platform}, driver {self.driver})"


def _distribution_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return UNKNOWN


def _islpy_has_barvinok() -> str:
    # Importing islpy is the only way to know whether it was built with barvinok
    # (counting needs it); done lazily and guarded so a broken islpy never stops
    # a measurement from being recorded.
    try:
        import islpy
    except Exception:  # noqa: BLE001 - any failure means "cannot tell"
        return UNKNOWN
    return "yes" if hasattr(islpy.Set, "card") else "no"


@functools.lru_cache(maxsize=1)
def _library_versions_cached() -> tuple[tuple[str, str], ...]:
    versions: dict[str, str] = {"python": platform.python_version()}
    for dist in _TRACKED_DISTRIBUTIONS:
        versions[dist] = _distribution_version(dist)
    if versions["islpy"] == UNKNOWN:  # the barvinok build ships the same module
        versions["islpy"] = _distribution_version("islpy-barvinok")
    versions["islpy_barvinok"] = _islpy_has_barvinok()
    versions["workbench"] = _distribution_version(WORKBENCH_DISTRIBUTION)
    if versions["workbench"] == UNKNOWN:  # run from a source tree, not installed
        from workbench import __version__
        versions["workbench"] = f"{__version__} (source tree)"
    return tuple(versions.items())


def library_versions() -> dict[str, str]:
    """Versions of Python and of every library that shapes generated code or timings.

    Read from installed distribution metadata (cheap, no heavy imports) except for
    the barvinok flag of islpy. Missing libraries read ``"unknown"``. The result is
    computed once per process: versions cannot change under a running interpreter.
    """
    return dict(_library_versions_cached())


def host_name() -> str:
    """Name of the machine, so that results from several hosts can be told apart."""
    try:
        name = socket.gethostname()
    except OSError:
        name = ""
    return name or platform.node() or UNKNOWN


def utc_now_iso() -> str:
    """Current time as an ISO-8601 UTC string; sorts chronologically as text."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")
