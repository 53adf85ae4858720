"""Building every configuration of a calibration set, without running it, for the
compiler's report: registers, spills and shared memory per configuration
(``workbench build-info``; the file format is :mod:`workbench.hardware.build_info`).

One build per kernel, variant, dtype and work-group size (the size parameters stay
symbolic, so every size case shares it), in the order a campaign would build them.
With ``jobs > 1`` the builds run in a pool of spawned processes, each with its own
context on the same device (OpenCL contexts do not survive fork).  pyopencl keeps no
binary cache for NVIDIA's and pocl's source builds, so every build is a real one and
its log is the compiler's.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from workbench.hardware.build_info import (
    BuildInfoFile,
    BuildKey,
    BuildRecord,
    KernelBuildInfo,
    parse_build_log,
)
from workbench.kernels import BuildRequest, DType, KernelSpec
from workbench.measure.devices import DeviceInfo
from workbench.measure.provenance import library_versions, utc_now_iso


@dataclass(frozen=True)
class PlannedBuild:
    spec: KernelSpec
    request: BuildRequest

    @property
    def key(self) -> BuildKey:
        return BuildKey(self.spec.name, self.request.variant, self.request.dtype.value,
                        tuple(self.request.group_size))


def planned_builds(specs: Iterable[KernelSpec], dtypes: Sequence[str],
                   max_work_group_size: int) -> list[PlannedBuild]:
    """Every build of ``specs`` in ``dtypes`` whose group fits the device (as a
    campaign filters them), each once."""
    seen, out = set(), []
    for spec in specs:
        for dtype in dtypes:
            if DType(dtype) not in spec.dtypes:
                continue
            for variant in spec.variants:
                for group in spec.group_sizes():
                    if math.prod(group) > max_work_group_size:
                        continue
                    planned = PlannedBuild(spec, spec.request(variant, dtype, group))
                    if planned.key not in seen:
                        seen.add(planned.key)
                        out.append(planned)
    return out


def _entry_names(translation_unit) -> tuple[str, ...]:
    return tuple(getattr(translation_unit, "entrypoints", ()) or ())


def build_one(context, spec: KernelSpec, request: BuildRequest,
              options: Sequence[str]) -> BuildRecord:
    """Generate the code of one configuration and build it for ``context``'s device;
    its record (the report of its entry function, when the log has one)."""
    import loopy as lp

    import pyopencl as cl

    start = time.perf_counter()
    try:
        translation_unit = spec.build(request)
        code = lp.generate_code_v2(translation_unit).device_code()
        program = cl.Program(context, code).build(options=list(options))
        log = "\n".join(program.get_build_info(d, cl.program_build_info.LOG)
                        for d in context.devices)
    except Exception:  # noqa: BLE001 - a configuration that does not build is recorded
        return BuildRecord("failed", None, time.perf_counter() - start,
                           traceback.format_exc(limit=3)[-2000:])
    seconds = time.perf_counter() - start
    return BuildRecord("built", _chosen(parse_build_log(log), _entry_names(
        translation_unit)), seconds, "" if "ptxas" in log else log.strip()[-300:])


def _chosen(found: dict[str, KernelBuildInfo], entries: tuple[str, ...]
            ) -> KernelBuildInfo | None:
    """The entry point's report; of several device kernels, the one that needs most
    registers (it limits occupancy)."""
    for name in entries:
        if name in found:
            return found[name]
    return max(found.values(), key=lambda i: i.registers) if found else None


_WORKER: dict = {}


def _init_worker(device_index: int) -> None:
    from workbench.measure.devices import list_devices, open_device

    _WORKER["context"], _ = open_device(list_devices()[device_index])


def _build_pickled(payload: bytes, request: BuildRequest, options: tuple[str, ...]
                   ) -> BuildRecord:
    import cloudpickle

    spec = _WORKER.get(payload)
    if spec is None:
        spec = _WORKER[payload] = cloudpickle.loads(payload)
    return build_one(_WORKER["context"], spec, request, options)


def collect_build_info(device: DeviceInfo, builds: Sequence[PlannedBuild], *,
                       options: Sequence[str] = (), jobs: int = 1,
                       provenance: dict | None = None,
                       on_record: Callable[[BuildKey, BuildRecord], None] | None = None,
                       ) -> BuildInfoFile:
    """Build every planned configuration on ``device``; their records as one file."""
    options = tuple(options)
    records: dict[BuildKey, BuildRecord] = {}

    def keep(planned: PlannedBuild, record: BuildRecord) -> None:
        records[planned.key] = record
        if on_record is not None:
            on_record(planned.key, record)

    start = time.perf_counter()
    if jobs <= 1:
        from workbench.measure.devices import open_device

        context, _ = open_device(device)
        for planned in builds:
            keep(planned, build_one(context, planned.spec, planned.request, options))
    else:
        import cloudpickle   # the specs' builders are closures: plain pickle refuses them

        payloads: dict[str, bytes] = {}
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx,
                                    initializer=_init_worker,
                                    initargs=(device.index,)) as pool:
            futures = {}
            for planned in builds:
                name = planned.spec.name
                if name not in payloads:
                    payloads[name] = cloudpickle.dumps(planned.spec)
                futures[pool.submit(_build_pickled, payloads[name], planned.request,
                                    options)] = planned
            for future in cf.as_completed(futures):
                try:
                    record = future.result()
                except Exception as err:  # noqa: BLE001 - a worker died: recorded
                    record = BuildRecord("failed", None, 0.0, f"worker failed: {err!r}")
                keep(futures[future], record)
    meta = {"created": utc_now_iso(), "library_versions": library_versions(),
            "wall_s": round(time.perf_counter() - start, 2), "jobs": jobs,
            "compute_units": device.compute_units,
            "max_work_group_size": device.max_work_group_size,
            "local_mem_bytes": device.local_mem_bytes}
    meta.update(provenance or {})
    return BuildInfoFile(device.identity.to_dict(), options, records, meta)
