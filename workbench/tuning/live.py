"""Evaluating points on an OpenCL device, each cost timed on its own.

For a point: build its loopy kernel (``transform``), generate code (``codegen``),
compile with the OpenCL driver (``build``, with ``build_options``, e.g. NVIDIA's
``-cl-nv-verbose`` whose log names registers and spills), then launch it with the
invoker loopy's executor would use: one warm-up launch and ``runs`` timed ones
(``run``; the kernel time is the minimum after ``discard_first``, from profiling
events).  Code generation follows the executor's own steps (types, preprocessing,
linearization, device code, invoker), so nothing is generated or compiled twice.
loopy and pyopencl cache these steps on disk: for the first-time costs of a campaign
to be real, those caches must start empty (point ``XDG_CACHE_HOME`` at a fresh
folder, as ``scripts/h100_tuning.sh`` does).

Inputs are made once per space (the space's ``make_inputs``) and shared by every
point; each result is compared with the space's ``reference`` (``verify``).
"""

from __future__ import annotations

import math
import threading
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from workbench.errors import TuningError
from workbench.measure.runner import TimingProtocol
from workbench.measure.store import Status
from workbench.tuning.evaluation import Cost, Evaluation
from workbench.tuning.space import Point, TuningSpace

#: The timing protocol of an exploration: fewer runs than a calibration, since a
#: tuner measures many variants once each (Kernel Tuner's default is 7).
TUNING_PROTOCOL = TimingProtocol(runs=10, discard_first=1)


@dataclass(frozen=True)
class PreparedPoint:
    """A point's kernel, its scheduled form and device code, and what they cost."""

    point: Point
    kernel: object
    code: str | None
    costs: Mapping[Cost, float]
    failure: str | None = None       # the log, when preparing failed
    invoker: object = None           # loopy's Python launcher (with a context)


def prepare_point(space: TuningSpace, point: Point, context=None) -> PreparedPoint:
    """``transform`` and ``codegen`` of one point (no device needed).

    Code generation takes the path of loopy's own executor (type inference,
    preprocessing, linearization, device code, the Python invoker), so that the
    launch that follows generates nothing again; with ``context`` the executor is
    the one of that context.
    """
    import loopy as lp
    from loopy.codegen import generate_code_v2

    costs: dict[Cost, float] = {}
    start = time.perf_counter()
    try:
        kernel = space.build(point)
        costs[Cost.TRANSFORM] = time.perf_counter() - start
        start = time.perf_counter()
        invoker = None
        if context is None:
            scheduled = lp.linearize(lp.preprocess_kernel(kernel))
            code = generate_code_v2(scheduled).device_code()
        else:
            executor = kernel.executor(context)
            scheduled = executor.get_typed_and_scheduled_translation_unit(None)
            result = generate_code_v2(scheduled)
            code = result.device_code()
            invoker = executor.get_invoker(scheduled, executor.entrypoint, result)
        costs[Cost.CODEGEN] = time.perf_counter() - start
    except Exception:  # noqa: BLE001 - a point that does not build is recorded
        costs.setdefault(Cost.TRANSFORM, time.perf_counter() - start)
        return PreparedPoint(point, None, None, costs, traceback.format_exc())
    return PreparedPoint(point, kernel, code, costs, invoker=invoker)


def compile_code(context, code: str, build_options: tuple[str, ...] = ()
                 ) -> tuple[float, str | None, str, object]:
    """(seconds, failure log or None, build log, program) of the OpenCL compilation."""
    import pyopencl as cl

    start = time.perf_counter()
    try:
        program = cl.Program(context, code).build(options=list(build_options))
    except cl.Error:
        return time.perf_counter() - start, traceback.format_exc(), "", None
    seconds = time.perf_counter() - start
    try:
        log = "\n".join(program.get_build_info(d, cl.program_build_info.LOG)
                        for d in context.devices)
    except cl.Error:
        log = ""
    return seconds, None, log.strip(), program


def launcher(prepared: PreparedPoint, program):
    """A callable ``(queue, **args) -> (event, outputs)`` that launches a built point
    as loopy's executor does, without generating or building anything again."""
    from loopy.target.pyopencl_execution import _Kernels

    kernels = _Kernels()
    for name in program.kernel_names.split(";"):
        setattr(kernels, name, getattr(program, name))
    return lambda queue, **args: prepared.invoker(kernels, queue, None, None, False,
                                                  **args)


def kernel_inputs(kernel, inputs: Mapping) -> dict:
    """The inputs a point's kernel takes, each in the shape the kernel declares: a
    space may make inputs that only some of its kernels read (an aligned copy for
    vector loads), and a kernel may see a grid as rows of vectors (same bytes)."""
    import loopy as lp

    from workbench.kernels.base import entry_kernel

    out = {}
    for arg in entry_kernel(kernel).args:
        value = inputs.get(arg.name)
        if value is None:
            continue
        if isinstance(arg, lp.ValueArg):
            # make_inputs' values go to the device as arrays: a scalar there failed
            # every point with pyopencl's "truth value of an array ... is ambiguous"
            raise TuningError(
                f"make_inputs returned {arg.name!r}, which the kernel takes as a value "
                f"(lp.ValueArg), not an array: leave it out of make_inputs and give it "
                f"in the space's problem={{{arg.name!r}: ...}} (loopy also infers a size "
                "from the shape of an array that has it)")
        shape = getattr(arg, "shape", None)
        if shape is not None and all(isinstance(x, (int, np.integer)) for x in shape):
            shape = tuple(int(x) for x in shape)
            if value.shape != shape and math.prod(shape) == value.size:
                value = value.reshape(shape)
        out[arg.name] = value
    return out


class LiveEvaluator:
    """Measures points of one space on one OpenCL queue."""

    #: the longest the first check waits for the check's warm-up thread
    WARM_UP_WAIT_S = 120.0

    def __init__(self, space: TuningSpace, queue, *,
                 protocol: TimingProtocol = TUNING_PROTOCOL, verify: bool = True,
                 build_options: tuple[str, ...] = (), seed: int = 0):
        self.space = space
        self.queue = queue
        self.protocol = protocol
        self.verify = verify and space.reference is not None
        self.build_options = tuple(build_options)
        self.rng = np.random.default_rng(seed)
        self._host: dict | None = None
        self._device: dict | None = None
        self._expected: dict | None = None
        # points prepared and built before they are asked for (:meth:`prepare_ahead`)
        self._ahead: dict[str, _Built] = {}
        self._warmed: set = set()    # (output dtype, expected dtype) checks compiled
        self._warm_lock = threading.Lock()
        self._warming: threading.Thread | None = None

    def prepare_inputs(self) -> None:
        """Make the space's inputs and reference now (once per space, as the first point
        would): the explorer calls it before asking for a first point, so that a model
        ranking beside it (:mod:`.early`) is often done by then and the first point
        measured is the model's pick rather than an early draw.  With verification, a
        thread of its own compiles the check meanwhile (:meth:`_warm_check`, for the
        space's first point's outputs), whatever point comes first: a first pick known
        only once a ranking ends no longer has the check's compilation to wait for
        after its own build (live run 32: permute3d's first evaluation waited 1.2 s
        for the model's preparation after its inputs were made)."""
        if self.verify and self._warming is None:
            # not a daemon: a run that ends before its first check (a budget of 0, a
            # stop, inputs that fail) waits for it at exit rather than leaving the
            # interpreter while the thread is inside pyopencl
            self._warming = threading.Thread(target=self._warm_first_point,
                                             name="workbench-check-warm-up")
            self._warming.start()
        self._inputs()

    def _warm_first_point(self) -> None:
        try:
            points = self.space.points()
            if points:
                self._warm_check(self.space.build(points[0]))
        except Exception:  # noqa: BLE001 - only a head start: the check says what fails
            pass

    def _inputs(self) -> dict:
        import pyopencl.array as cla

        if self._device is None:
            # (a ValueError's traceback before: said to the user, once, for the space)
            if self.space.make_inputs is None:
                raise TuningError(
                    f"space {self.space.name!r} has no make_inputs: measuring its points "
                    "needs make_inputs(rng), which returns the kernel's input arrays "
                    "(ranking and --replay do not)")
            self._host = self.space.make_inputs(self.rng)
            self._device = {k: cla.to_device(self.queue, np.ascontiguousarray(v))
                            for k, v in self._host.items()}
            if self.verify:   # compared on the device: no large transfer per point
                self._expected = {k: cla.to_device(self.queue, np.ascontiguousarray(v))
                                  for k, v in self.space.reference(self._host).items()}
        return self._device

    def prepare_ahead(self, point: Point) -> None:
        """Prepare, compile and ready the verification of ``point`` now, before it is
        asked for: the explorer calls it on a strategy's known first point while
        another thread makes the inputs (:meth:`prepare_inputs`), so that once they
        exist only the launch and the check are left.  The point's costs are measured
        here as usual, while the inputs thread (and a ranking's) run beside it;
        :meth:`evaluate` records that it was built beside the inputs
        (``built_beside_inputs``)."""
        if point.label in self._ahead:
            return
        built = self._build(point)
        if built.program is not None and self.verify:
            self._warm_check(built.prepared.kernel)
        self._ahead[point.label] = built

    def _build(self, point: Point) -> _Built:
        prepared = prepare_point(self.space, point, self.queue.context)
        if prepared.failure is not None:
            return _Built(prepared, None, None, "", None)
        seconds, failure, log, program = compile_code(
            self.queue.context, prepared.code, self.build_options)
        return _Built(prepared, seconds, failure, log, program)

    def evaluate(self, point: Point, costs: Mapping[Cost, float] | None = None,
                 build_log: str = "") -> Evaluation:
        """Prepare, compile, run and verify one point.

        ``costs``: the point was prepared and built elsewhere (a worker of
        :mod:`.parallel`), which paid these costs and left the results in loopy's and
        pyopencl's caches; preparing and building here again only reads those caches,
        and the given costs (and the compiler's ``build_log``, which a binary read
        from the cache does not repeat) are recorded instead.
        """
        built = self._ahead.pop(point.label, None)
        extra: dict = {}
        if built is not None:
            extra["built_beside_inputs"] = True
        else:
            built = self._build(point)
        prepared = built.prepared
        if costs is None:
            costs = dict(prepared.costs)
        costs = dict(costs)
        if prepared.failure is not None:
            return Evaluation(point, Status.BUILD_FAILED, None, costs,
                              log=prepared.failure, extra=extra)
        costs.setdefault(Cost.BUILD, built.build_s)
        build_log = build_log or built.log
        if build_log:
            extra["build_log"] = build_log[-4000:]
        if built.failure is not None:
            return Evaluation(point, Status.BUILD_FAILED, None, costs, log=built.failure,
                              extra=extra)
        return self._run(point, prepared.kernel, launcher(prepared, built.program), costs,
                         extra)

    def _run(self, point, kernel, launch, costs, extra) -> Evaluation:
        import pyopencl as cl

        inputs = self._inputs()   # made once per space: no cost here
        try:
            args = kernel_inputs(kernel, inputs)
        except TuningError as err:   # the space's mistake, said in its words
            return Evaluation(point, Status.LAUNCH_FAILED, None, costs, log=str(err),
                              extra=extra)
        start = time.perf_counter()
        raw: list[float] = []
        try:
            outputs = None
            for _ in range(self.protocol.runs + 1):     # the first launch warms up
                evt, outputs = launch(self.queue, **args)
                evt.wait()
                raw.append((evt.profile.end - evt.profile.start) * 1e-9)
        except (cl.Error, RuntimeError, ValueError, TypeError):
            costs[Cost.RUN] = time.perf_counter() - start
            return Evaluation(point, Status.LAUNCH_FAILED, None, costs,
                              log=traceback.format_exc(), extra=extra)
        costs[Cost.RUN] = time.perf_counter() - start
        timed = tuple(raw[1:])
        kept = min(timed[self.protocol.discard_first:])
        status, log = Status.OK, ""
        if self.verify:
            start = time.perf_counter()
            if self._warming is not None:
                # its kernels are the check's: compiled once, the wait is the check's
                # (bounded: a warm-up that hangs leaves the check to compile them)
                self._warming.join(self.WARM_UP_WAIT_S)
            status, log = self._check(kernel, outputs)
            costs[Cost.VERIFY] = time.perf_counter() - start
        return Evaluation(point, status, kept if status is Status.OK else None, costs,
                          timed, log, extra)

    def _check(self, kernel, outputs) -> tuple[Status, str]:
        import pyopencl.array as cla

        from workbench.kernels.base import entry_kernel

        names = [a.name for a in entry_kernel(kernel).args if getattr(a, "is_output", False)]
        got = dict(zip(names, outputs if isinstance(outputs, (tuple, list)) else (outputs,)))
        rtol = self.space.rtol
        for name, want in self._expected.items():
            have = got.get(name)
            if have is not None and have.shape != want.shape and have.size == want.size:
                have = have.reshape(want.shape)   # vectors of a grid: the same grid
            if have is None or have.shape != want.shape:
                return Status.WRONG_RESULT, f"{name}: missing or of another shape"
            excess = check_excess(have, want, rtol).get()
            # written so that a NaN (garbage, or a kernel's 0/0) fails: it compares
            # false with anything, and a plain ``>`` passed it
            if not float(excess) <= rtol * 1e-3:
                worst = float(cla.max(abs(_signed(have) - _signed(want))).get())
                log = f"{name}: largest difference {worst:g}"
                if name not in self._host:
                    # loopy allocated it: what the kernel leaves unwritten is garbage,
                    # which a first user space (a stencil's boundary) often meets
                    log += (f" ({name} is not in make_inputs, so the kernel got it "
                            "uninitialized: if it leaves elements unwritten on purpose, "
                            "return it from make_inputs filled as the reference expects, "
                            "e.g. np.zeros)")
                return Status.WRONG_RESULT, log
        return Status.OK, ""

    def _warm_check(self, kernel) -> None:
        """Compile the check's device kernels for ``kernel``'s outputs now, on a few
        elements: pyopencl builds each elementwise and reduction kernel on its first
        use, and on a first point that made the check 0.6 s of a 0.7 s evaluation (the
        H200, live run 30).  The reference's dtype is taken where it is made already,
        else float64 and then the output's own: a user's numpy reference is often
        computed in double precision (all six of blind17's), and the check of a
        float32 output against it is another set of kernels.  Each guess is dropped
        once the reference exists (another thread makes it) and has another dtype: in
        live run 32 the second warm-up outlasted short inputs."""
        import pyopencl.array as cla

        from workbench.kernels.base import entry_kernel

        # one thread at a time: a first pick's warm-up waits for the space's, which
        # compiled the same kernels, rather than compiling them a second time beside it
        with self._warm_lock:
            self._warm_outputs(entry_kernel(kernel).args, cla)

    def _warm_outputs(self, args, cla) -> None:
        for arg in args:
            numpy_dtype = getattr(getattr(arg, "dtype", None), "numpy_dtype", None)
            if not getattr(arg, "is_output", False) or numpy_dtype is None:
                continue
            have = np.dtype(numpy_dtype)
            for guess in (np.dtype(np.float64), have):
                made = (self._expected or {}).get(arg.name)
                want = guess if made is None else made.dtype
                if (have, want) in self._warmed:
                    continue
                try:
                    check_excess(cla.zeros(self.queue, 4, have),
                                 cla.zeros(self.queue, 4, want), self.space.rtol).get()
                except Exception:  # noqa: BLE001 - only a head start: the check says what fails
                    continue
                self._warmed.add((have, want))


@dataclass(frozen=True)
class _Built:
    """A point prepared and compiled (or failed at either step)."""

    prepared: PreparedPoint
    build_s: float | None
    failure: str | None
    log: str
    program: object


def check_excess(have, want, rtol: float):
    """On the device: the largest amount by which ``have`` misses ``want`` beyond the
    relative tolerance (a one-element array)."""
    import pyopencl.array as cla

    have, want = _signed(have), _signed(want)
    return cla.max(abs(have - want) - rtol * abs(want))


def _signed(values):
    """Unsigned integers as int64 on the device: their difference may be negative, and
    pyopencl's arithmetic on them raised ``OverflowError`` (an RGBA8 packing space's
    uint32 words)."""
    return values.astype(np.int64) if values.dtype.kind == "u" else values
