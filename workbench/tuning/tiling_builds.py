"""Registers of hexagonal/hybrid time-tiled points from a build, without a run (the
selection-with-builds option of :mod:`workbench.models.tiling.selection`).

A point is generated (loopy's transform and code generation, no device needed), then
built for the device with ``build_options`` (``-cl-nv-verbose`` on NVIDIA, whose log
names the registers per work item).  With ``jobs > 1`` the points are shared by a pool
of spawned processes, each with its own context on the device (OpenCL contexts do not
survive fork).  On a device whose log names no registers (pocl) a point's count is
None, and the model keeps its estimate there.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_CONTEXT: dict = {}


@dataclass(frozen=True)
class PointBuild:
    """One point's build: its registers per work item (None: the log names none, or
    the build failed), the seconds of code generation and of the OpenCL build."""

    label: str
    registers: int | None
    codegen_s: float
    build_s: float
    failure: str | None = None


def _context(device_index: int):
    if device_index not in _CONTEXT:
        from workbench.measure.devices import _opencl_devices

        import pyopencl as cl

        _CONTEXT[device_index] = cl.Context([_opencl_devices()[device_index][1]])
    return _CONTEXT[device_index]


def build_point(device_index: int, stencil: str, sizes: Mapping[str, int], label: str,
                build_options: tuple[str, ...] = ()) -> PointBuild:
    """Generate and build one point of ``hx_<stencil>`` at ``sizes``; no launch."""
    from workbench.hardware.build_info import parse_build_log
    from workbench.kernels.timetiled.hexspaces import hexagonal_space
    from workbench.tuning.live import compile_code, prepare_point

    from workbench.errors import WorkbenchError

    try:
        points = list(hexagonal_space(stencil, only=[label], **sizes).points())
    except WorkbenchError:
        points = []
    if len(points) != 1:
        return PointBuild(label, None, 0.0, 0.0, "not a point the generator builds")
    start = time.perf_counter()
    prepared = prepare_point(hexagonal_space(stencil, only=[label], **sizes), points[0])
    codegen = time.perf_counter() - start
    if prepared.code is None:
        return PointBuild(label, None, codegen, 0.0, prepared.failure)
    seconds, failure, log, _ = compile_code(_context(device_index), prepared.code,
                                            tuple(build_options))
    found = parse_build_log(log) if failure is None else {}
    # of several device kernels, the one that needs most registers bounds residency
    regs = max((i.registers for i in found.values()), default=None)
    return PointBuild(label, regs, codegen, seconds, failure)


def _one(args) -> PointBuild:
    try:
        return build_point(*args)
    except Exception as err:  # noqa: BLE001 - one point's failure is its record
        return PointBuild(args[3], None, 0.0, 0.0, f"{type(err).__name__}: {err}"[-300:])


def built_registers(device_index: int, stencil: str, sizes: Mapping[str, int],
                    labels: Sequence[str], build_options: Sequence[str] = (), *,
                    jobs: int = 1) -> list[PointBuild]:
    """:func:`build_point` of every label, in order (``jobs`` spawned processes)."""
    return build_points(device_index, [(stencil, sizes, lb) for lb in labels],
                        build_options, jobs=jobs)


def build_points(device_index: int, points: Sequence[tuple[str, Mapping[str, int], str]],
                 build_options: Sequence[str] = (), *, jobs: int = 1) -> list[PointBuild]:
    """:func:`build_point` of every (stencil, sizes, label), in order, in one pool (its
    processes start once for all problems)."""
    work = [(device_index, st, dict(z), lb, tuple(build_options)) for st, z, lb in points]
    if jobs <= 1 or len(work) <= 1:
        return [_one(w) for w in work]
    spawn = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(min(jobs, len(work)), mp_context=spawn) as pool:
        return list(pool.map(_one, work))
