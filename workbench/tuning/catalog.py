"""The catalog's search spaces, from the tunable kernels of
:mod:`workbench.kernels.tunable`, and the time-tiled stencils' spaces of
:mod:`workbench.kernels.timetiled` (``tt_<stencil>``); each is a factory of its
problem size (``n``; a time-tiled space's ``S1``.., ``T``).

Every space of the tunable kernels limits work groups to 64..1024 work items and 48 KiB of local memory,
and keeps only shapes that divide the problem, so that every work item is busy and
no guard is generated.
"""

from __future__ import annotations

import inspect
import zlib

import numpy as np

from workbench.errors import TuningError, UnknownNameError
from workbench.kernels.timetiled.hexspaces import HEXAGONAL_SPACES
from workbench.kernels.timetiled.spaces import TIMETILED_SPACES
from workbench.kernels.tunable import (
    lift_stencils,
    lift_vectors,
    matmul,
    stencil2d,
    transpose,
)
from workbench.tuning.space import Point, TuningSpace

#: Per-group local memory every space stays within (the smallest common limit).
LOCAL_MEMORY_LIMIT = 48 * 1024
POW2 = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def _shape(*names):
    return lambda point: tuple(int(point[n]) for n in names)


def _inputs(module, n):
    return lambda rng=None: module.make_inputs(n, rng or np.random.default_rng(0))


def stencil2d_space(n: int = 8192) -> TuningSpace:
    return TuningSpace(
        name="stencil2d",
        description=f"5-point Jacobi step on a {n}x{n} float32 grid: group shape, rows "
                    "and columns per work item, local-memory tile or global loads",
        tune_params={"bx": (8, 16, 32, 64, 128, 256), "by": (1, 2, 4, 8, 16, 32),
                     "cy": (1, 2, 4, 8), "cx": (1, 2, 4), "tile": ("global", "local")},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % (bx*cx) == 0 and n % (by*cy) == 0",
                      lambda p: p["tile"] == "global" or p["by"] >= 2,
                      lambda p: stencil2d.local_bytes(p) <= LOCAL_MEMORY_LIMIT),
        problem={"n": n}, group_size=_shape("bx", "by"),
        template=lambda s: stencil2d.template(*s), structure=("tile",),
        bindings=lambda p: stencil2d.bindings(p, n), local_bytes=stencil2d.local_bytes,
        make_inputs=_inputs(stencil2d, n), reference=stencil2d.reference)


def matmul_space(n: int = 2048) -> TuningSpace:
    return TuningSpace(
        name="matmul",
        description=f"{n}x{n} float32 matrix product: group shape, rows and columns of "
                    "c per work item, local-memory panels or global loads",
        tune_params={"tx": (8, 16, 32, 64, 128, 256), "ty": (1, 2, 4, 8, 16, 32),
                     "wy": (1, 2, 4, 8, 16), "wx": (1, 2, 4), "tile": ("global", "local")},
        restrictions=("tx*ty >= 64 and tx*ty <= 1024", "wx*wy <= 32",
                      "n % (tx*wx) == 0 and n % (ty*wy) == 0 and n % tx == 0",
                      lambda p: p["tile"] == "global" or p["tx"] % p["ty"] == 0,
                      lambda p: matmul.local_bytes(p) <= LOCAL_MEMORY_LIMIT),
        problem={"n": n}, group_size=_shape("tx", "ty"),
        template=lambda s: matmul.template(*s), structure=("tile",),
        bindings=lambda p: matmul.bindings(p, n), local_bytes=matmul.local_bytes,
        make_inputs=_inputs(matmul, n), reference=matmul.reference, rtol=1e-3)


def transpose_space(n: int = 8192) -> TuningSpace:
    return TuningSpace(
        name="transpose",
        description=f"{n}x{n} float32 transpose: group shape, rows and columns per work "
                    "item, local-memory tile (with or without padding) or direct",
        tune_params={"bx": (8, 16, 32, 64, 128, 256), "by": (1, 2, 4, 8, 16, 32),
                     "cy": (1, 2, 4, 8, 16), "cx": (1, 2, 4), "tile": ("global", "local"),
                     "pad": (0, 1)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % (bx*cx) == 0 and n % (by*cy) == 0",
                      lambda p: p["tile"] == "local" or p["pad"] == 0,
                      lambda p: p["tile"] == "global" or (
                          p["by"] * p["cy"] % p["bx"] == 0
                          and p["bx"] * p["cx"] % p["by"] == 0),
                      lambda p: transpose.local_bytes(p) <= LOCAL_MEMORY_LIMIT),
        problem={"n": n}, group_size=_shape("bx", "by"),
        template=lambda s: transpose.template(*s), structure=("tile",),
        bindings=lambda p: transpose.bindings(p, n), local_bytes=transpose.local_bytes,
        make_inputs=_inputs(transpose, n), reference=transpose.reference, rtol=0.0)


#: The input sizes the Lift benchmarks are measured at (the paper: 512^2 to 8192^2).
LIFT_SIZES = (512, 2048, 8192)


def _lift_common(bench: lift_stencils.StencilBenchmark, n: int, aligned: bool = False
                 ) -> dict:
    """What every Lift space of one benchmark shares: launch shape, template, numbers,
    inputs and the numpy reference (``aligned``: the inputs also in the aligned layout
    that vector loads read, :mod:`~workbench.kernels.tunable.lift_vectors`)."""

    def make_inputs(rng=None):
        inputs = lift_stencils.make_inputs(bench, n, rng or np.random.default_rng(0))
        if aligned:
            inputs.update(lift_vectors.aligned_inputs(inputs, bench.radius))
        return inputs

    return dict(
        problem={"n": n},
        group_size=lambda p: (int(p["bx"]),) if p["launch"] == "1d"
        else (int(p["bx"]), int(p["by"])),
        template=lambda s: lift_stencils.template(bench, *s),
        bindings=lambda p: lift_stencils.bindings(p, n),
        local_bytes=lambda p: lift_stencils.local_bytes(bench, p),
        make_inputs=make_inputs,
        reference=lambda inputs: lift_stencils.reference(bench, inputs), rtol=bench.rtol)


def _per_benchmark(make, prefix: str, what: str) -> dict:
    """Space factories of the problem size, one per Lift benchmark, by space name."""
    def factory_of(benchmark: str):
        def factory(n: int = 8192) -> TuningSpace:
            return make(benchmark, n)
        factory.__doc__ = f"Lift's {benchmark} benchmark, {what} (:func:`{make.__name__}`)."
        return factory
    return {f"{prefix}{name}": factory_of(name) for name in lift_stencils.BENCHMARKS}


def lift_space(benchmark: str, n: int = 8192) -> TuningSpace:
    """One of the Lift paper's eight stencil benchmarks (its Table 2) on an n x n
    float32 grid: launch, group shape, work per item, local tiles, unrolling."""
    bench = lift_stencils.BENCHMARKS[benchmark]
    return TuningSpace(
        name=f"lift_{benchmark}",
        description=f"{bench.title} on a {n}x{n} float32 grid (Lift's Table 2): 1D or 2D "
                    "launch, group shape, rows and columns per work item, local tiles, "
                    "unrolled or looped coarsening",
        tune_params={"bx": (16, 32, 64, 128, 256, 512), "by": (1, 2, 4, 8),
                     "cy": (1, 2, 4, 8), "cx": (1, 2), "tile": ("global", "local"),
                     "launch": ("2d", "1d"), "unroll": (False, True)},
        restrictions=("bx*by >= 64 and bx*by <= 1024",
                      "n % (bx*cx) == 0 and n % (by*cy) == 0",
                      # tiles of at most 16 rows and 512 columns: 360-410 variants per
                      # size, so that three sizes give the paper's 1,000 points
                      "by*cy <= 16 and bx*cx <= 512",
                      # a 1D launch has one row of lanes that sweeps every row itself
                      lambda p: p["launch"] == "2d" or (
                          p["by"] == 1 and p["cy"] == 1 and p["tile"] == "global"),
                      # the halo's rows are spread over the group's rows
                      lambda p: p["tile"] == "global" or p["by"] >= bench.radius,
                      lambda p: not p["unroll"] or p["cx"] * p["cy"] > 1,
                      lambda p: lift_stencils.local_bytes(bench, p) <= LOCAL_MEMORY_LIMIT),
        structure=("tile", "launch", "unroll"), **_lift_common(bench, n))


#: The Lift benchmarks' spaces, by space name (``lift_jacobi5``, ...).
LIFT_SPACES = _per_benchmark(lift_space, "lift_", "paper-sized space")

#: The input sizes the rewrite spaces are measured at.
LIFT_REWRITE_SIZES = (2048, 8192)
#: One point in this many of a rewrite space's full product is kept (see below).
LIFT_REWRITE_SAMPLING = 6


def _in_rewrite_sample(values) -> bool:
    """Whether a point is in the fixed pseudo-random sample: the CRC-32 of its tuning
    numbers (not the input size, so every input has the same points) picks one in
    LIFT_REWRITE_SAMPLING, the same on every machine and in every Python."""
    text = ",".join(f"{k}={values[k]}" for k in
                    ("bx", "by", "cy", "cx", "assign", "tile", "launch", "unroll"))
    if values["vw"] != 1:   # scalar points keep the sample they had before vectors
        text += f",vw={values['vw']}"
    return zlib.crc32(text.encode()) % LIFT_REWRITE_SAMPLING == 0


def _vectorizable(p) -> bool:
    """Vectors of ``vw`` columns: blocked columns, a whole number of vectors per work
    item, global reads; a 1D launch has no row loop left to unroll."""
    return p["vw"] == 1 or (p["assign"] == "blocked" and p["tile"] == "global"
                            and p["cx"] % p["vw"] == 0
                            and (p["launch"] == "2d" or not p["unroll"]))


def lift_rewrite_space(benchmark: str, n: int = 8192) -> TuningSpace:
    """A Lift benchmark's rewrite space (the paper's section 8: very different
    implementations of one stencil): groups of 32 to 1024 work items from 8 to 512
    lanes wide, 1 to 8 rows and columns per work item, strided or blocked over the
    item, local tiles or not, unrolled or not, 1D or 2D launch, and vector width 1, 2
    or 4 (blocked columns read from global memory in ``floatw`` windows,
    :mod:`~workbench.kernels.tunable.lift_vectors`).

    The paper explores 1,000 rewrites drawn at random times about 10 thread counts; the
    full product here is a few thousand valid points per benchmark, of which a fixed
    pseudo-random one in LIFT_REWRITE_SAMPLING is kept, so that the space can be
    measured exhaustively at each input and replayed."""
    bench = lift_stencils.BENCHMARKS[benchmark]
    return TuningSpace(
        name=f"lift_rewrites_{benchmark}",
        description=f"{bench.title} on a {n}x{n} float32 grid, Lift-style rewrite space: "
                    "group shape, rows and columns per work item, strided or blocked "
                    "work assignment, local tiles, unrolling, 1D or 2D launch, "
                    "vector width",
        tune_params={"bx": (8, 16, 32, 64, 128, 256, 512), "by": (1, 2, 4, 8, 16, 32),
                     "cy": (1, 2, 4, 8), "cx": (1, 2, 4, 8),
                     "assign": lift_stencils.ASSIGNMENTS, "tile": ("global", "local"),
                     "launch": ("2d", "1d"), "unroll": (False, True),
                     "vw": lift_vectors.VECTOR_WIDTHS},
        # points stored before vector widths were scalar ones
        added_params={"vw": 1},
        # the sample first: it is the cheapest test and drops five points in six
        restrictions=(_in_rewrite_sample, _vectorizable,
                      "bx*by >= 32 and bx*by <= 1024",
                      "n % (bx*cx) == 0 and n % (by*cy) == 0",
                      "by*cy <= 64 and bx*cx <= 1024",
                      lambda p: p["launch"] == "2d" or (
                          p["by"] == 1 and p["cy"] == 1 and p["tile"] == "global"),
                      lambda p: p["tile"] == "global" or p["by"] >= bench.radius,
                      # with one element per work item, both are the same kernel
                      lambda p: p["cx"] * p["cy"] > 1 or (
                          not p["unroll"] and p["assign"] == "strided"),
                      lambda p: lift_stencils.local_bytes(bench, p) <= LOCAL_MEMORY_LIMIT),
        structure=("tile", "launch", "unroll", "assign", "vw"),
        **_lift_common(bench, n, aligned=True))


#: The rewrite spaces, by space name (``lift_rewrites_jacobi5``, ...).
LIFT_REWRITE_SPACES = _per_benchmark(lift_rewrite_space, "lift_rewrites_", "rewrite space")

#: Every catalog space by name.  The time-tiled ones (Prajapati et al.) have no
#: symbolic template (a point is a sequence of band launches) and fewer points: their
#: tile sizes are few and coarse by design, since the tiling model, not the
#: measurement, is meant to search the wide range (``workbench tile-sizes``).
SPACES = {"stencil2d": stencil2d_space, "matmul": matmul_space,
          "transpose": transpose_space, **LIFT_SPACES, **LIFT_REWRITE_SPACES,
          **TIMETILED_SPACES,
          **HEXAGONAL_SPACES}


def get_space(name: str, **problem: int) -> TuningSpace:
    """A catalog space by name, optionally at another problem size (``n=256``)."""
    try:
        factory = SPACES[name]
    except KeyError:
        raise UnknownNameError("tuning space", name, SPACES) from None
    return factory(**problem)


def space_at_size(name: str, n: int) -> TuningSpace:
    """A catalog space with every extent ``n``: its ``n``, or each ``S<i>`` of a
    time-tiled space (whose number of steps stays its default)."""
    problem = get_space(name).problem
    if "n" in problem:
        return get_space(name, n=n)
    return get_space(name, **{k: n for k in problem if k.startswith("S")})


def resolve_space(ref: str, **problem: int) -> TuningSpace:
    """A catalog space by name, or ``FILE.py:VARIABLE`` bound to a
    :class:`TuningSpace` or to a function of the problem sizes returning one."""
    if ":" not in ref and not ref.endswith(".py"):
        return get_space(ref, **problem)
    from workbench.kernels.user import load_user_object

    found = load_user_object(ref, "tuning space", offers=_offers_a_space)
    if _is_loopy_kernel(found):
        # a kernel is callable (loopy runs it on a queue): said before it is called
        raise TuningError(
            f"{ref} is a loopy kernel, not a TuningSpace: predict and explain take a "
            "kernel; tune takes a space whose kernel(point) builds each variant "
            "(examples/kernels/my_space.py, docs/tuning.md)")
    if callable(found) and not isinstance(found, TuningSpace):
        try:
            found = found(**problem)
        except TypeError as err:
            raise TuningError(
                f"{ref}: cannot make the space with {problem or 'no sizes'}: {err}; a "
                "space's factory takes the problem sizes (--param) as keyword arguments "
                "and returns a TuningSpace, e.g. def space(n=1024): ...") from None
    elif problem:
        found = _with_problem(found, ref, problem)
    if not isinstance(found, TuningSpace):
        raise TuningError(f"{ref} is a {type(found).__name__}, not a TuningSpace")
    found.points()   # an empty space is refused here, before any measurement
    return found


def _is_loopy_kernel(value) -> bool:
    import loopy as lp

    return isinstance(value, (lp.TranslationUnit, lp.LoopKernel))


def _offers_a_space(value) -> bool:
    """A space, or a function the user's file defines (a factory): not the file's
    imports, TuningSpace itself among them."""
    from workbench.kernels.user import USER_FILE_MODULE

    return isinstance(value, TuningSpace) or (
        inspect.isfunction(value) and value.__module__ == USER_FILE_MODULE)


def format_problem(problem) -> str:
    """Sizes as --param takes them: ``n=1024,m=9``."""
    return ",".join(f"{k}={v}" for k, v in problem.items())


def _with_problem(space: TuningSpace, ref: str, problem: dict) -> TuningSpace:
    if dict(problem) != {k: v for k, v in space.problem.items() if k in problem}:
        # (was "a fixed space (problem {}); make it a function of its sizes": a reader
        # of examples/kernels/my_space.py did not know what to write)
        fixed = (f"its sizes fixed at {format_problem(space.problem)}" if space.problem
                 else "no sizes that --param can set (its kernel fixes them)")
        raise TuningError(
            f"{ref} is a TuningSpace with {fixed}; --param {format_problem(problem)} "
            "cannot change it. To tune other sizes, write a function of them that "
            "returns the space, def space(n=1024): ... return TuningSpace(..., "
            "problem={'n': n}), as examples/spaces/rowsum.py does")
    return space


__all__ = ["LIFT_REWRITE_SAMPLING", "LIFT_REWRITE_SIZES", "LIFT_REWRITE_SPACES",
           "LIFT_SIZES", "LIFT_SPACES", "LOCAL_MEMORY_LIMIT", "SPACES", "TIMETILED_SPACES",
           "Point", "get_space", "lift_rewrite_space", "lift_space", "matmul_space", "resolve_space",
           "space_at_size",
           "stencil2d_space", "transpose_space"]
