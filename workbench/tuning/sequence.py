"""Points that are launch sequences, timed as one (the driver of time-tiled stencils).

It lives in the tuning layer, not beside the stencils: nothing here knows a stencil,
and the command line, the Dask workers and the dashboard all pick their evaluator
with :func:`evaluator_for` without importing the kernels.

A time-tiled stencil advances ``T`` steps as ``T / t_T`` launches of one band
kernel (eq. 2 of the paper with overlapped tiles: every tile of a band is
independent, so a band is one wavefront).  :func:`run_sequence` enqueues them back to
back on an in-order queue, ping-ponging between two scratch arrays, and returns one
event that spans them all: first start to last end, so the gaps between launches (the
paper's T_sync per wavefront) are part of the time, as they are of a real run.

:class:`SequenceEvaluator` is the exploration runner's live evaluator for spaces
with a :class:`~workbench.tuning.space.LaunchSequence`: the same preparation,
build, timing protocol and verification, with the launch replaced by the sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from workbench.errors import TuningError
from workbench.tuning.live import LiveEvaluator
from workbench.tuning.space import LaunchSequence


@dataclass(frozen=True)
class _Profile:
    start: int
    end: int


class SpanEvent:
    """The events of a sequence as one: waits for the last, profiled from the first
    start to the last end (nanoseconds, as OpenCL's profiling info)."""

    def __init__(self, events: Sequence):
        self.events = tuple(events)
        self.first, self.last = self.events[0], self.events[-1]

    def wait(self) -> None:
        self.last.wait()

    @property
    def profile(self) -> _Profile:
        return _Profile(self.first.profile.start, self.last.profile.end)

    @property
    def gap_s(self) -> float:
        """Mean idle time between consecutive launches, seconds (0 for one launch)."""
        if len(self.events) < 2:
            return 0.0
        busy = sum(e.profile.end - e.profile.start for e in self.events)
        span = self.last.profile.end - self.first.profile.start
        return (span - busy) * 1e-9 / (len(self.events) - 1)


def run_sequence(launch: Callable, queue, args: Mapping, sequence: LaunchSequence,
                 count: int, scratch: tuple) -> tuple[SpanEvent, object]:
    """``count`` launches in a row; launch ``b`` reads ``args[input]`` (b = 0) or the
    previous launch's output, and writes ``scratch[b % 2]``; with
    ``sequence.index``, launch ``b`` gets ``b`` in that argument.  In place
    (``input == output``): ``args[input]`` is copied into ``scratch[0]`` first (not
    timed: the span starts at the first launch) and every launch updates that copy.
    Returns the spanning event and the last launch's outputs."""
    if count < 1:
        raise TuningError(f"a launch sequence needs at least one launch, got {count}")
    src, events, outputs = args[sequence.input], [], None
    if sequence.in_place:
        _copy(queue, scratch[0], src)
        src = scratch[0]
    for b in range(count):
        dst = src if sequence.in_place else scratch[b % 2]
        given = {**args, sequence.input: src, sequence.output: dst}
        if sequence.index is not None:
            given[sequence.index] = b
        event, outputs = launch(queue, **given)
        events.append(event)
        src = dst
    return SpanEvent(events), outputs


def _copy(queue, dst, src) -> None:
    import pyopencl as cl

    cl.enqueue_copy(queue, dst.data, src.data, byte_count=src.nbytes)


class SequenceEvaluator(LiveEvaluator):
    """:class:`~workbench.tuning.live.LiveEvaluator` for a space whose points are
    launch sequences; each evaluation records its ``launches``."""

    def __init__(self, space, queue, **options):
        if space.sequence is None:
            raise TuningError(f"space {space.name!r} has no launch sequence")
        super().__init__(space, queue, **options)
        self._scratch: tuple | None = None

    def _scratch_arrays(self, args) -> tuple:
        # copies of the input: the boundary layer no launch writes is already right
        if self._scratch is None:
            first = args[self.space.sequence.input]
            self._scratch = (first.copy(), first.copy())
        return self._scratch

    def _run(self, point, kernel, launch, costs, extra):
        sequence = self.space.sequence
        count = int(sequence.count(point))
        args = self._inputs()
        scratch = self._scratch_arrays(args)

        def whole(queue, **given):
            return run_sequence(launch, queue, given, sequence, count, scratch)

        return super()._run(point, kernel, whole, costs, {**extra, "launches": count})


def evaluator_for(space, queue, **options) -> LiveEvaluator:
    """The live evaluator a space needs: a space with a
    :class:`~workbench.tuning.space.LaunchSequence` is timed whole, any other point
    by its one launch; ``options`` are :class:`LiveEvaluator`'s."""
    if space.sequence is not None:
        return SequenceEvaluator(space, queue, **options)
    return LiveEvaluator(space, queue, **options)

