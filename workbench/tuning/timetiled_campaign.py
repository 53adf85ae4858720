"""Measuring a time-tiled space on a device: the exploration runner with the
sequence evaluator, builds ahead in worker processes, every point in the store.

:func:`explore` is what ``scripts/h100_timetiling.sh`` runs per stencil and size (the
baseline set, exhaustively); :func:`check_on_device` runs the driver against the
numpy time loop at small sizes on the same device first, since the large baseline
problems are not verified point by point (their float64 reference would cost minutes
of host time per space).

It sits in the tuning layer, beside the runner and the evaluators it drives; the
stencils, their kernels and spaces are :mod:`workbench.kernels.timetiled`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import workbench.kernels.timetiled.spaces as spaces_module
from workbench.kernels.timetiled.spaces import timetiled_space
from workbench.measure.runner import TimingProtocol
from workbench.measure.store import Status
from workbench.tuning.sequence import SequenceEvaluator

#: The paper's protocol: the minimum of five runs (after one warm-up launch).
PAPER_PROTOCOL = TimingProtocol(runs=5, discard_first=0)

#: A file reference to the factories (worker processes resolve spaces from it).
SPACES_FILE = spaces_module.__file__


def exploration_name(space, *, baseline: int = 1, only: Sequence[str] | None = None
                     ) -> str:
    """The store campaign an exploration of ``space`` records into."""
    kind = "chosen" if only is not None else "baseline" if baseline else "full"
    return f"tune/{space.name}/{kind}/" + ",".join(
        f"{k}={v}" for k, v in space.problem.items())


def finished_before(store, device, stencil: str, sizes: dict[str, int], *,
                    baseline: int = 1, only: Sequence[str] | None = None) -> bool:
    """Whether ``store`` holds a finished exploration of this problem on ``device`` (a
    :class:`~workbench.measure.devices.DeviceInfo`): a script carrying its store from
    call to call skips it, where :func:`explore` would start a new campaign (a finished
    exploration asked again is measured again, on purpose, by ``workbench tune``)."""
    name = exploration_name(timetiled_space(stencil, baseline=baseline, only=only,
                                            **sizes), baseline=baseline, only=only)
    return any(c.name == name and c.is_finished
               for c in store.campaigns(device.identity.key))


def explore(stencil: str, sizes: dict[str, int], *, device, queue, store,
            baseline: int = 1, only: Sequence[str] | None = None, jobs: int = 1,
            build_options: Sequence[str] = (),
            protocol: TimingProtocol = PAPER_PROTOCOL, verify: bool = False,
            strategy: str = "exhaustive", on_progress: Callable | None = None,
            should_stop: Callable[[], bool] | None = None):
    """Every point of the space (exhaustive) or a strategy's order, recorded in
    ``store``; ``device`` is a :class:`~workbench.measure.devices.DeviceInfo`;
    ``only``: just these point labels (the model's picks, section 6)."""
    from workbench.tuning.runner import Explorer
    from workbench.tuning.strategies import make_strategy

    space = timetiled_space(stencil, baseline=baseline, only=only, **sizes)
    evaluator = SequenceEvaluator(space, queue, protocol=protocol, verify=verify,
                                  build_options=tuple(build_options))
    chosen = make_strategy(strategy)
    name = exploration_name(space, baseline=baseline, only=only)
    if jobs <= 1:
        return Explorer(space, chosen, evaluator, store=store, device=device.identity,
                        name=name, discard_first=protocol.discard_first
                        ).run(on_progress, should_stop=should_stop)
    from workbench.tuning.parallel import PrebuildPool

    probe = make_strategy(strategy)
    probe.start(space, space.points())
    order = []
    while (p := probe.ask()) is not None:
        order.append(p)
    with tempfile.TemporaryDirectory() as folder:
        ref = f"{SPACES_FILE}:{stencil}_space"
        if only is not None:   # the workers cannot be handed labels: a file can
            path = Path(folder) / "chosen.py"
            path.write_text(_CHOSEN.format(stencil=stencil, only=sorted(only)))
            ref = f"{path}:space"
        with PrebuildPool(evaluator, ref, order, device.index, jobs) as pool:
            return Explorer(space, chosen, pool, store=store, device=device.identity,
                            name=name, discard_first=protocol.discard_first
                            ).run(on_progress, should_stop=should_stop)


_CHOSEN = """from workbench.kernels.timetiled.spaces import timetiled_space


def space(**sizes):
    return timetiled_space({stencil!r}, only={only!r}, **sizes)
"""


#: Small problems for the on-device check, one per dimensionality.
CHECK_SIZES = {1: {"S1": 5000, "T": 64}, 2: {"S1": 200, "S2": 300, "T": 48},
               3: {"S1": 40, "S2": 48, "S3": 64, "T": 24}}


def check_on_device(stencils: Sequence[str], queue, *, points_per_stencil: int = 6,
                    build_options: Sequence[str] = ()) -> dict[str, list]:
    """The driver against the numpy time loop at small sizes, a few baseline-like
    points per stencil spread over the space: stencil -> [(label, status, log)]."""
    from workbench.kernels.timetiled.stencils import get_stencil

    found: dict[str, list] = {}
    for stencil in stencils:
        sizes = CHECK_SIZES[get_stencil(stencil).dims]
        space = timetiled_space(stencil, **sizes)
        evaluator = SequenceEvaluator(space, queue,
                                      protocol=TimingProtocol(runs=1, discard_first=0),
                                      build_options=tuple(build_options))
        points = space.points()
        step = max(1, len(points) // points_per_stencil)
        found[stencil] = [(p.label, e.status, e.log) for p in points[::step]
                          for e in [evaluator.evaluate(p)]]
    return found


def failures(checked: dict[str, list]) -> list[str]:
    return [f"{s} {label}: {status.value} {log[-300:]}" for s, rows in checked.items()
            for label, status, log in rows if status is not Status.OK]
