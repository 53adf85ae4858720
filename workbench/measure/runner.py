"""Timing one kernel configuration by the unified-model paper's protocol (section 4.2).

Kernel time comes from OpenCL profiling events (start to end of the kernel), so
host-device transfers and Python overhead never enter it.  Buffers are allocated once
per configuration and reused for every timed run; the first runs are discarded and
the minimum of the rest is kept, with every raw time returned for the store.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.errors import ParameterError
from workbench.kernels import BuildRequest, KernelSpec
from workbench.kernels.base import entry_kernel


@dataclass(frozen=True)
class TimingProtocol:
    runs: int = 30
    discard_first: int = 4

    def __post_init__(self):
        if self.runs < 1 or not 0 <= self.discard_first < self.runs:
            raise ParameterError(
                f"timing protocol needs runs > discard_first >= 0, got {self.runs} runs "
                f"discarding {self.discard_first}")



class ConfigurationFailed(Exception):
    """A configuration that could not be built or launched; ``log`` says why."""

    def __init__(self, stage: str, log: str):
        super().__init__(f"{stage} failed")
        self.stage = stage  # "build" or "launch"
        self.log = log


def array_bytes(kernel, params: Mapping[str, int]) -> int:
    """Bytes of every global array argument of a loopy kernel at ``params``."""
    import loopy as lp
    from pymbolic import evaluate

    knl = entry_kernel(kernel)
    total = 0
    for arg in knl.args:
        if isinstance(arg, lp.ArrayArg) and arg.shape not in (None, lp.auto):
            elements = 1
            for extent in arg.shape:
                elements *= int(evaluate(extent, dict(params)))
            total += elements * np.dtype(arg.dtype.numpy_dtype).itemsize
    return total


def _array_order(arg) -> str:
    """'F' when the first axis is the contiguous one (column-major), else 'C'."""
    from loopy.kernel.array import FixedStrideArrayDimTag

    tags = arg.dim_tags or ()
    if len(tags) > 1 and isinstance(tags[0], FixedStrideArrayDimTag) and tags[0].stride == 1:
        return "F"
    return "C"


INT32_MAX = 2**31 - 1


def launch_facts(kernel, params: Mapping[str, int]) -> tuple[int, int]:
    """(work groups launched, largest array element count) at ``params``.

    The element count matters because loopy indexes with the int32 size parameters.
    """
    import loopy as lp
    from pymbolic import evaluate

    knl = entry_kernel(kernel)
    gsize, _ = knl.get_grid_size_upper_bounds_as_exprs(kernel.callables_table)
    groups = 1
    for g in gsize:
        groups *= int(evaluate(g, dict(params)))
    largest = 0
    for arg in knl.args:
        if isinstance(arg, lp.ArrayArg) and arg.shape not in (None, lp.auto):
            elements = 1
            for extent in arg.shape:
                elements *= int(evaluate(extent, dict(params)))
            largest = max(largest, elements)
    return groups, largest


class KernelRunner:
    """Builds, allocates and times catalog kernels on one OpenCL queue."""

    def __init__(self, queue, seed: int = 0):
        self.queue = queue
        self.rng = np.random.default_rng(seed)
        self._executors: dict[tuple[str, BuildRequest], object] = {}
        self._built: dict[tuple[str, BuildRequest], object] = {}
        self._random = None

    def kernel(self, spec: KernelSpec, request: BuildRequest):
        key = (spec.name, request)
        if key not in self._built:
            try:
                self._built[key] = spec.build(request)
            except Exception:  # noqa: BLE001 - any builder failure is a build failure
                raise ConfigurationFailed("build", traceback.format_exc()) from None
        return self._built[key]

    def executor(self, spec: KernelSpec, request: BuildRequest):
        key = (spec.name, request)
        if key not in self._executors:
            self._executors[key] = self.kernel(spec, request).executor(self.queue)
        return self._executors[key]

    def allocate(self, spec: KernelSpec, request: BuildRequest, params: Mapping[str, int]
                 ) -> dict:
        """Device buffers (and scalars) for one size case, reused across group sizes.

        Timing needs realistic, not particular, data: arrays are filled on the device
        with uniform values in [0.5, 1.5) (safe for division, powers and rsqrt), so a
        campaign never builds gigabytes of inputs on the host.  Scalars come from the
        spec's own inputs at its small check size.
        """
        import loopy as lp
        import pyopencl.array as cla
        from pymbolic import evaluate

        import pyopencl as cl

        knl = self.kernel(spec, request)
        kernel_args = entry_kernel(knl).args
        args: dict = {}
        scalars = None
        for arg in kernel_args:
            if isinstance(arg, lp.ArrayArg):
                shape = tuple(int(evaluate(e, dict(params))) for e in arg.shape)
                dtype = np.dtype(arg.dtype.numpy_dtype)
                try:
                    buf = cla.empty(self.queue, shape, dtype, order=_array_order(arg))
                    if dtype.kind == "f":
                        self._generator.fill_uniform(buf, a=0.5, b=1.5)
                    else:
                        buf.fill(0)
                except cl.Error:
                    raise ConfigurationFailed("launch", traceback.format_exc()) from None
                args[arg.name] = buf
            elif isinstance(arg, lp.ValueArg) and arg.name not in params:
                if scalars is None:
                    scalars = spec.inputs(spec.check_params or params, request.dtype,
                                          self.rng, request.variant)
                args[arg.name] = scalars[arg.name]
        args.update(params)
        self.queue.finish()
        return args

    @property
    def _generator(self):
        if self._random is None:
            import pyopencl.clrandom as clrandom
            self._random = clrandom.PhiloxGenerator(self.queue.context, seed=12345)
        return self._random

    def run_once(self, spec: KernelSpec, request: BuildRequest, args: Mapping) -> float:
        import pyopencl as cl
        from loopy.diagnostic import LoopyError

        executor = self.executor(spec, request)
        try:
            evt, _ = executor(self.queue, **args)
            evt.wait()
        except LoopyError:
            raise ConfigurationFailed("build", traceback.format_exc()) from None
        except cl.RuntimeError as err:
            stage = "build" if "BUILD_PROGRAM_FAILURE" in str(err) else "launch"
            raise ConfigurationFailed(stage, traceback.format_exc()) from None
        except Exception:  # noqa: BLE001 - argument and launch errors of every kind
            raise ConfigurationFailed("launch", traceback.format_exc()) from None
        return (evt.profile.end - evt.profile.start) * 1e-9

    def time(self, spec: KernelSpec, request: BuildRequest, args: Mapping,
             protocol: TimingProtocol) -> list[float]:
        return [self.run_once(spec, request, args) for _ in range(protocol.runs)]

