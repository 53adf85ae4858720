"""Building a campaign's kernels ahead of the device, on other cores.

A configuration's first launch pays for loopy's code generation and the OpenCL
driver's compiler; on a GPU that is most of what a small configuration costs, and a
campaign that builds one kernel after another leaves a many-core host idle.
:func:`warm` generates and builds one kernel (a spec and its build request: every size
case of it reuses the build) in another process, with its own context on the same
device, and leaves the results in loopy's and pyopencl's disk caches, where the
measuring process finds them: those caches must be on (no ``LOOPY_NO_CACHE`` or
``PYOPENCL_NO_CACHE``) and shared (one host, one ``XDG_CACHE_HOME``).

:class:`LocalPrebuilder` runs :func:`warm` in a process pool (``calibrate --jobs N``);
the Dask campaign sends it to its CPU workers.  Timings are untouched: they come from
profiling events on the device, and the measuring process still launches each kernel
once before timing it.  A kernel that fails to build fails here silently and again,
recorded, in the measuring process.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import time

from workbench.kernels import BuildRequest, KernelSpec

_WORKER: dict = {}


def warm(context, spec: KernelSpec, request: BuildRequest) -> float:
    """Generate and build one kernel for ``context``'s device; the seconds it took.

    Kernels whose argument types are only known at launch (none in the shipped sets)
    are left to the measuring process: their cache entries depend on the arguments.
    """
    start = time.perf_counter()
    try:
        executor = spec.build(request).executor(context)
        if not executor.has_runtime_typed_args:
            executor.translation_unit_info(None)
    except Exception:  # noqa: BLE001 - the measuring process records the failure
        pass
    return time.perf_counter() - start


def _init_worker(device_index: int) -> None:
    from workbench.measure.devices import list_devices, open_device

    _WORKER["context"], _ = open_device(list_devices()[device_index])


def _warm_pickled(payload: bytes, request: BuildRequest) -> float:
    import cloudpickle

    spec = _WORKER.get(payload)
    if spec is None:
        spec = _WORKER[payload] = cloudpickle.loads(payload)
    return warm(_WORKER["context"], spec, request)


class LocalPrebuilder:
    """``workers`` processes building ahead, in the order the kernels are submitted.

    A campaign submits every kernel it will build when it starts and waits for each
    one before it measures it, so that the measuring process never builds the same
    kernel at the same time as a worker.
    """

    def __init__(self, device_index: int, workers: int):
        ctx = multiprocessing.get_context("spawn")   # OpenCL contexts do not survive fork
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                           initializer=_init_worker,
                                           initargs=(device_index,))
        self.workers = workers
        self._futures: dict = {}
        self._payloads: dict[str, bytes] = {}
        self.warm_s = 0.0      # the workers' build seconds, summed

    def submit(self, spec: KernelSpec, request: BuildRequest) -> None:
        key = (spec.name, request)
        if key in self._futures:
            return
        import cloudpickle   # the specs' builders are closures: plain pickle refuses them

        payload = self._payloads.get(spec.name)
        if payload is None:
            payload = self._payloads[spec.name] = cloudpickle.dumps(spec)
        self._futures[key] = self.pool.submit(_warm_pickled, payload, request)

    def wait(self, spec: KernelSpec, request: BuildRequest) -> None:
        future = self._futures.pop((spec.name, request), None)
        if future is not None:
            try:
                self.warm_s += future.result()
            except cf.process.BrokenProcessPool:
                pass   # a worker died: the measuring process builds this one itself

    def close(self) -> None:
        for future in self._futures.values():
            future.cancel()
        self._futures.clear()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalPrebuilder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
