"""What the compiler decided for a built kernel: registers, spills, shared memory.

With the build option ``-cl-nv-verbose`` NVIDIA's OpenCL build log carries ptxas's
report, one block per entry function::

    ptxas info    : Compiling entry function 'heat2d_band' for 'sm_90a'
    ptxas info    : Function properties for heat2d_band
    ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 32 registers, used 1 barriers, 2432 bytes smem

Registers per work item are known only after the build, and they bound how many work
groups share a multiprocessor (:mod:`workbench.models.occupancy`).  This module reads
them from such a log (:func:`parse_build_log`), and keeps them per configuration in a
versioned file (:class:`BuildInfoFile`, written by ``workbench build-info``) keyed by
what selects one build: kernel, variant, dtype and work-group size (the size
parameters stay symbolic in the build, so every size case shares it).

Other vendors' logs (pocl's is empty) give no report: the parser then returns an empty
mapping, and a file built there holds configurations without registers.
"""

from __future__ import annotations

import json
import lzma
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.shipped_files import read_shipped_text, shipped_path

SCHEMA = "workbench.build_info"
SCHEMA_VERSION = 1

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+) bytes smem")
_STACK = re.compile(r"(\d+) bytes stack frame")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True)
class KernelBuildInfo:
    """ptxas's report on one entry function."""

    kernel: str
    registers: int
    spill_stores: int = 0     # bytes
    spill_loads: int = 0      # bytes
    shared_bytes: int = 0     # static shared memory (smem)
    stack_bytes: int = 0      # stack frame: private arrays ptxas could not keep in registers
    barriers: int = 0

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0


def parse_build_log(log: str) -> dict[str, KernelBuildInfo]:
    """ptxas's report per entry function named in a ``-cl-nv-verbose`` build log; an
    empty mapping when the log has none (another vendor, no option)."""
    found: dict[str, KernelBuildInfo] = {}
    current, spills, stack = None, (0, 0), 0
    for line in (log or "").splitlines():
        if m := _ENTRY.search(line):
            current, spills, stack = m.group(1), (0, 0), 0
        elif m := _PROPS.search(line):
            current = m.group(1)
        elif m := _SPILL.search(line):
            spills = (int(m.group(1)), int(m.group(2)))
            stack = int(s.group(1)) if (s := _STACK.search(line)) else 0
        elif (m := _USED.search(line)) and current is not None:
            barriers = _BARRIERS.search(line)
            smem = _SMEM.search(line)
            found[current] = KernelBuildInfo(
                current, int(m.group(1)), *spills,
                shared_bytes=int(smem.group(1)) if smem else 0, stack_bytes=stack,
                barriers=int(barriers.group(1)) if barriers else 0)
    return found


def registers_of(log: str, kernel: str | None = None) -> int | None:
    """Registers per work item of ``kernel`` (or of the log's only kernel)."""
    found = parse_build_log(log)
    if kernel is not None:
        return found[kernel].registers if kernel in found else None
    return next(iter(found.values())).registers if len(found) == 1 else None


# {{{ one build per configuration

@dataclass(frozen=True)
class BuildKey:
    """What selects one build of a kernel: every size case of it shares the build."""

    kernel: str
    variant: str
    dtype: str
    group_size: tuple[int, ...]

    @property
    def text(self) -> str:
        return "|".join((self.kernel, self.variant, self.dtype,
                         "x".join(map(str, self.group_size))))

    @classmethod
    def parse(cls, text: str) -> BuildKey:
        try:
            kernel, variant, dtype, group = text.split("|")
            return cls(kernel, variant, dtype, tuple(int(g) for g in group.split("x")))
        except ValueError:
            raise WorkbenchError(f"malformed build-info key {text!r}: expected "
                                 "kernel|variant|dtype|GxGxG") from None

    @classmethod
    def of(cls, config) -> BuildKey:
        """The build of a stored configuration (a ``ConfigKey`` or anything with its
        kernel, variant, dtype and group_size)."""
        return cls(config.kernel, config.variant, str(getattr(config.dtype, "value",
                                                              config.dtype)),
                   tuple(int(g) for g in config.group_size))


@dataclass(frozen=True)
class BuildRecord:
    """One configuration's build: the report of its entry function, or why none."""

    status: str                        # "built", "failed"
    info: KernelBuildInfo | None = None  # None: failed, or a log without a report
    build_s: float = 0.0
    message: str = ""                  # the failure, or the log's tail when it had no report

    def to_dict(self) -> dict:
        out = {"status": self.status, "build_s": round(self.build_s, 4)}
        if self.info is not None:
            out.update({k: v for k, v in asdict(self.info).items()})
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> BuildRecord:
        info = None
        if "registers" in data:
            info = KernelBuildInfo(
                str(data["kernel"]), int(data["registers"]),
                int(data.get("spill_stores", 0)), int(data.get("spill_loads", 0)),
                int(data.get("shared_bytes", 0)), int(data.get("stack_bytes", 0)),
                int(data.get("barriers", 0)))
        return cls(str(data.get("status", "built")), info, float(data.get("build_s", 0.0)),
                   str(data.get("message", "")))


@dataclass(frozen=True)
class BuildInfoFile:
    """Build records per configuration on one device, with their provenance."""

    device: Mapping[str, str]                  # platform, device, driver, vendor
    build_options: tuple[str, ...]
    records: Mapping[BuildKey, BuildRecord]
    provenance: Mapping[str, object] = field(default_factory=dict)  # versions, date, command

    def info(self, config) -> KernelBuildInfo | None:
        """The report of a configuration's build (a ``ConfigKey`` or a
        :class:`BuildKey`); None when it is not in the file or has no report."""
        key = config if isinstance(config, BuildKey) else BuildKey.of(config)
        record = self.records.get(key)
        return record.info if record is not None else None

    @property
    def with_registers(self) -> int:
        return sum(r.info is not None for r in self.records.values())

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION,
                "device": dict(self.device), "build_options": list(self.build_options),
                "provenance": dict(self.provenance),
                "configurations": {k.text: r.to_dict()
                                   for k, r in sorted(self.records.items(),
                                                      key=lambda kv: kv[0].text)}}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n")
        return path


def load_build_info(path: str | Path) -> BuildInfoFile:
    """A file written by :meth:`BuildInfoFile.save`, or one compressed from it with
    ``xz -9`` (a name ending in ``.xz``, or ``X.json`` where only ``X.json.xz`` exists:
    sample_data ships its files that way to keep the tracked tree small, issue #25); a
    clear error for anything else."""
    path = shipped_path(path)
    try:
        data = json.loads(read_shipped_text(path))
    except (OSError, EOFError, lzma.LZMAError, json.JSONDecodeError) as err:
        raise WorkbenchError(f"cannot read build info {path}: {err}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise WorkbenchError(f"{path} is not a build-info file (schema {SCHEMA!r})")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise WorkbenchError(f"{path}: build-info schema version "
                             f"{data.get('schema_version')!r}, this workbench reads "
                             f"{SCHEMA_VERSION}")
    records = {BuildKey.parse(k): BuildRecord.from_dict(v)
               for k, v in data.get("configurations", {}).items()}
    return BuildInfoFile(dict(data.get("device", {})), tuple(data.get("build_options", ())),
                         records, dict(data.get("provenance", {})))

# }}}
