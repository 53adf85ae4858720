"""Tuning: search strategies compared on a catalog space or one of the user's own
(``FILE.py:VAR`` at its sizes, as ``workbench tune`` takes it) (:mod:`workbench.tuning`).

Two sources:

* **replay** (the default) of the shipped H100 measurements of every point of the
  space (``sample_data/h100/tuning.sqlite``, ``lift.sqlite`` for the Lift
  benchmarks' spaces, ``timetiling.sqlite`` for the time-tiled ones; a space without
  shipped measurements says so; one's own, from the store named, as ``workbench tune
  FILE.py:VAR --replay STORE`` does): every chosen strategy replayed from the same
  records (:func:`workbench.tuning.study.compare_strategies`), shown as the tuning
  report's best-so-far figure and table.  Each part (the exhaustive order and random
  search, each model's ranking, the rankers learnt from other programs' spaces, ``knn``
  and ``xgb``, TPE over its seeds) is computed once per space and kept, so that
  switching back to a space or a strategy already seen is instant;
* **live** on an OpenCL device of this machine, at a small problem size (``n``: every
  extent of a time-tiled space; one's own at the sizes typed): each chosen strategy
  explores the space with an evaluation budget (:class:`Explorer` with the space's
  live evaluator, a time-tiled point timed as its whole band sequence), the progress
  and best-so-far curves updated as points are measured, with a cancel button.  A
  point an earlier strategy of the same run has measured is not measured again: its
  recorded evaluation (and costs) is reused, as replay does.

Both run in a background thread; failures show in the ``wb-error`` area.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import ipywidgets as widgets
import pandas as pd
import plotly.graph_objects as go

from workbench.errors import DeviceError, TuningError, WorkbenchError
from workbench.measure import DeviceInfo, find_device, open_device
from workbench.reports.tuning import exploration_figure, tuning_table
from workbench.tuning.catalog import SPACES
from workbench.ui.errors_view import ErrorArea
from workbench.ui.in_turn import handle_in_turn
from workbench.ui.tuning_parts import (  # noqa: F401 - constants are the panel's API
    BASE, DEFAULT_MODELS, EXHAUSTIVE, LEARNED, LIFT_STORE, LIVE, RANDOM, REPLAY, RUN_SOURCE,
    SHIPPED_MODELS, SOURCE, TPE, TUNING_STORE, Cancelled, LockedStart, ReplaySpace,
    ReusingEvaluator, SpaceChoice, StoppableReplay, merge_comparisons, own_replay_stores,
    replay_stores, select_strategies, shipped_path, strategy_key,
)
from workbench.ui.tuning_widgets import (
    live_figure, live_summary, live_table, opencl_devices, own_space_widgets, run_widgets,
    strategy_boxes,
)
from workbench.ui.html_table import render_table
from workbench.ui.session import DATA_LOCK, Session


class TuningPanel(widgets.VBox):
    """Compare search strategies on a catalog space or one's own (module docstring).

    ``replay_store``: the exhaustively measured store replayed (default: the shipped
    H100 one); ``models``: label -> fitted model or model file, each a
    ``model:<label>`` strategy (default: the shipped H100 linear and overlap models);
    ``device``: the OpenCL device of live runs (an index, a name substring or a
    :class:`DeviceInfo`; default: the session's device when it is one, else the
    default device, pocl's CPU device).
    """

    def __init__(self, session: Session | None = None, *,
                 replay_store: str | Path | None = None,
                 models: Mapping[str, object] | None = None, device=None,
                 space: str = "matmul", live_size: int = 256, budget: int = 12,
                 tpe_seeds: int = 3, errors: ErrorArea | None = None):
        self.session = session if session is not None else Session()
        self.errors = errors if errors is not None else ErrorArea()
        self.replay_store = (Path(replay_store) if replay_store is not None
                             else shipped_path(TUNING_STORE))
        if models is None:
            models = {label: path for label, relative in SHIPPED_MODELS.items()
                      if (path := shipped_path(relative)) is not None}
        self.models: dict[str, object] = dict(models)   # files are loaded when needed
        self.comparison = None          # the replayed comparison shown (every strategy)
        self.shown = None               # ... and restricted to the chosen strategies
        self.table_frame = pd.DataFrame()   # the table's numbers (the report's summary)
        self.live_results: list = []    # (label, ExplorationResult) of the latest live run
        self._live_view: dict | None = None   # its figure, table and note
        self.figure: go.FigureWidget | None = None
        self._replay_spaces: dict[tuple, ReplaySpace] = {}
        self._parts: dict[tuple, object] = {}
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        # a run owns the view until its last one; a choice changed meanwhile marks it stale
        self._view_lock, self._run_view, self._view_stale = threading.Lock(), False, False
        self._devices = opencl_devices()

        self.space = widgets.Dropdown(description="space", options=list(SPACES),
                                      value=space)
        self.space.add_class("wb-tuning-space")
        # a space of one's own, as `workbench tune FILE.py:VAR --param ... [--replay
        # STORE]` takes it (the tab offered the catalog's only: newuser19's finding)
        self.own_space, self.own_sizes, self.store, self.own_controls = own_space_widgets()
        self.source = widgets.ToggleButtons(
            options=[("replay the H100 measurements", REPLAY),
                     ("live on this machine", LIVE)], value=REPLAY,
            style={"button_width": "250px"})   # 220 px cut "replay the H100 measurements"
        self.source.add_class("wb-tuning-source")
        self.device = widgets.Dropdown(description="device",
                                       options=[(d.label, d.index) for d in self._devices],
                                       layout=widgets.Layout(width="480px"))
        self.device.add_class("wb-tuning-device")
        self.size = widgets.BoundedIntText(value=live_size, min=8, max=16384,
                                           description="n", layout=widgets.Layout(
                                               width="160px"))
        self.size.add_class("wb-tuning-size")
        self.budget = widgets.IntText(value=budget, description="evaluations",
                                      layout=widgets.Layout(width="180px"))
        self.budget.add_class("wb-tuning-budget")
        self.live_controls = widgets.HBox([self.device, self.size, self.budget],
                                          layout=widgets.Layout(flex_flow="row wrap"))
        self.strategies = strategy_boxes(self.models)
        self.tpe_seeds = widgets.BoundedIntText(value=tpe_seeds, min=1, max=100,
                                                description="seeds",
                                                layout=widgets.Layout(width="140px"))
        self.tpe_seeds.add_class("wb-tuning-tpe-seeds")
        (self.run_button, self.cancel_button, self.progress, self.progress_label,
         self.run_row) = run_widgets()
        self.note = widgets.HTML()
        self.note.add_class("wb-tuning-note")
        self.figure_box = widgets.Box()
        # the replay's table is wider than a laptop's dashboard: it scrolls in its box
        self.table = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.table.add_class("wb-tuning-table")

        children = [widgets.HBox([self.space, self.source]), self.own_controls,
                    self.live_controls,
                    # wraps: the strategies' row is wider than a 1280 px laptop's dashboard
                    widgets.HBox([*self.strategies.values(), self.tpe_seeds],
                                 layout=widgets.Layout(flex_flow="row wrap")),
                    self.run_row, self.note, self.figure_box, self.table]
        if errors is None:
            children.append(self.errors)
        super().__init__(children)
        self.add_class("wb-tuning-panel")

        self.run_button.on_click(self.errors.guard(SOURCE, lambda _: self.run()))
        self.cancel_button.on_click(self.errors.guard(SOURCE, lambda _: self.cancel()))
        refresh = self.errors.guard(SOURCE, lambda *_: self.refresh())
        for w in (self.space, self.source, self.tpe_seeds, *self.strategies.values(),
                  self.own_space, self.own_sizes, self.store):
            w.observe(refresh, names="value")
        self.session.observe(self.errors.guard(SOURCE, lambda _: self._follow_session()),
                             names="device")
        with self.errors.catching(SOURCE):
            self._choose_device(device)
            self.refresh()
        handle_in_turn(self, self.session.lock)

    # -- the public API --------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def choice(self) -> SpaceChoice:
        """The space the panel tunes: the user's own where its field names one, else
        the catalog's (raises on sizes it cannot read)."""
        return SpaceChoice.of(self.space.value, self.own_space.value, self.own_sizes.value)

    def chosen(self) -> list[str]:
        """The checked strategies (keys of :attr:`strategies`)."""
        return [k for k, box in self.strategies.items() if box.value]

    def run(self, wait: bool = False) -> None:
        """Replay or explore live with the chosen strategies, in the background (raises
        on bad input; the run button shows it).  ``wait``: until it has ended."""
        if self.running:
            raise WorkbenchError("a tuning run is already running; cancel it first")
        if not self.chosen():
            raise TuningError("choose at least one strategy")
        self.errors.clear(RUN_SOURCE)   # the last run's failure, if any
        if self.source.value == REPLAY:
            self._start_replay()
        else:
            self._start_live()
        if wait:
            self.wait()

    def cancel(self) -> None:
        """Stop after the current point (a live run keeps what it measured)."""
        if self.running:
            self._cancel.set()
            self.cancel_button.disabled = True
            self.progress_label.value = "cancelling after the current point..."

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background run (scripts and tests); True once none runs."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def target_device(self) -> DeviceInfo:
        """The OpenCL device a live run measures on."""
        if not self._devices:
            raise DeviceError("no OpenCL device on this machine (install pocl-opencl-icd "
                              "or a GPU driver): only the replay can run here")
        for d in self._devices:
            if d.index == self.device.value:
                return d
        raise DeviceError("choose an OpenCL device")

    def refresh(self) -> None:
        """Show what the current choices show without computing: the replay kept for
        them, or the latest live run of this space, else a hint to press run."""
        live = self.source.value == LIVE
        own = bool(self.own_space.value.strip())
        self.live_controls.layout.display = None if live else "none"
        self.space.disabled = self.size.disabled = own     # the own space's sizes rule
        self.own_sizes.layout.display = None if own else "none"
        self.store.layout.display = None if own and not live else "none"
        self.tpe_seeds.disabled = live or not self.strategies[TPE].value
        self.strategies[RANDOM].description = "random (seed 0)" if live \
            else "random (expected)"
        with self._view_lock:   # a run shows its own progress, and its result when done
            deferred = self._run_view
            self._view_stale |= deferred
        if not deferred:
            self._show_view()

    def _show_view(self) -> None:
        try:
            choice = self.choice()
            if choice.own:
                choice.space()     # a wrong path or name is said before any run
            if self.source.value == REPLAY:
                self._stores(choice)
        except WorkbenchError as err:
            self._clear(html.escape(str(err)))
            return
        if self.source.value == LIVE:
            view = self._live_view
            if view is not None and view["space"] == choice.key:
                self.figure = view["figure"]
                self.figure_box.children = (view["figure"],)
                self.table_frame, self.table.value = view["frame"], view["table"]
                self.note.value = view["note"]
            else:
                self._clear("press run to explore the space live on "
                            + (html.escape(self.device.label or "") or "a device"))
            return
        missing = self._missing_parts(choice)
        if missing or self._data_key(choice) not in self._replay_spaces:
            where = (f"the measurements of {choice.ref} in {self.store.value.strip()}"
                     if choice.own else f"the H100 measurements of {choice.ref}")
            self._clear("press run to replay "
                        + html.escape(", ".join(self.chosen()) or "the strategies")
                        + " on " + html.escape(where))
        else:
            self._show_replay(choice)

    # -- replay -----------------------------------------------------------------------

    def _parts_wanted(self) -> list:
        keys = self.chosen()
        parts: list = [BASE]
        parts += [("model", k.removeprefix("model:")) for k in keys if k.startswith("model:")]
        parts += [("learned", k) for k in keys if k in LEARNED]
        if TPE in keys:
            parts.append((TPE, self.tpe_seeds.value))
        return parts

    def _stores(self, choice: SpaceChoice) -> list[Path]:
        """The stores a replay of ``choice`` reads (none: a TuningError saying so)."""
        if choice.own:
            return own_replay_stores(self.store.value, choice)
        return replay_stores(choice.ref, self.replay_store)

    def _data_key(self, choice: SpaceChoice) -> tuple:
        return (tuple(map(str, self._stores(choice))), choice.key)

    def _part_key(self, choice: SpaceChoice, part) -> tuple:
        return (*self._data_key(choice), part)

    def _missing_parts(self, choice: SpaceChoice) -> list:
        return [p for p in self._parts_wanted()
                if self._part_key(choice, p) not in self._parts]

    def _start_replay(self) -> None:
        choice = self.choice()
        self._stores(choice)   # none: says so
        missing = self._missing_parts(choice)
        self.errors.clear(SOURCE)
        if not missing:   # kept: nothing to compute
            self._show_replay(choice)
            self.progress_label.value = "shown from the kept replay"
            return
        pool = None
        if choice.own:
            # the user's file and store read here: a wrong one is said by the run
            # button (from the thread, its message came after the button's success)
            data = self._replay_space(choice)
            if any(p[0] == "model" for p in missing if p != BASE):
                # a model ranks a kernel(point) space in counting processes forked
                # now, not from the replay's thread (as workbench tune forks them)
                from workbench.tuning.parallel import counting_pool_ahead
                pool = counting_pool_ahead(data.space)
        self._begin(len(missing), f"replaying {choice.label}...")
        # filed under the store named now, whatever the field says once it ends
        self._start(threading.Thread(
            target=self._replay,
            args=(choice, self._data_key(choice), missing, self.chosen(), pool),
            daemon=True, name="workbench-tuning-replay"))

    def _replay_space(self, choice: SpaceChoice, key: tuple | None = None) -> ReplaySpace:
        from workbench.measure import MeasurementStore
        from workbench.tuning.replay import load_space_evaluations

        key = key if key is not None else self._data_key(choice)
        if key not in self._replay_spaces:
            space = choice.space()
            stores = [Path(s) for s in key[0]]
            evaluations = load_space_evaluations(stores, space)
            devices = set()
            for path in stores:
                with MeasurementStore.open(path, create=False, readonly=True) as store:
                    devices |= {d.device for d in store.devices()}
            devices = sorted(devices)
            self._replay_spaces[key] = ReplaySpace(
                space, StoppableReplay(space, evaluations, lambda: self._cancel.is_set()),
                ", ".join(devices))
        return self._replay_spaces[key]

    def _replay(self, choice: SpaceChoice, key: tuple, parts: list, keys: list[str],
                pool=None) -> None:
        from workbench.tuning.strategies import make_strategy
        from workbench.tuning.study import compare_strategies

        began = time.perf_counter()
        name = choice.label
        try:
            data = self._replay_space(choice, key)
            for i, part in enumerate(parts):
                if self._cancel.is_set():
                    raise Cancelled("cancelled")
                if part == BASE:
                    what = "the exhaustive order and random search"
                    compute = lambda: compare_strategies(  # noqa: E731
                        data.space, data.evaluator, {}, tpe_seeds=0)
                elif part[0] == TPE:
                    what = f"TPE over {part[1]} seeds"
                    compute = lambda seeds=part[1]: compare_strategies(  # noqa: E731
                        data.space, data.evaluator, {}, tpe_seeds=seeds)
                elif part[0] == "learned":
                    what = f"the {part[1]} ranking, learnt from the other spaces"
                    compute = lambda key=part[1]: compare_strategies(  # noqa: E731
                        data.space, data.evaluator, {}, tpe_seeds=0,
                        strategies={key: lambda: make_strategy(key)})
                else:
                    label = part[1]
                    what = f"the ranking of model:{label}"
                    model = self._model(label)

                    def compute(label=label, model=model):
                        with DATA_LOCK:   # loopy counts, like a dataset load
                            return compare_strategies(data.space, data.evaluator,
                                                      {label: model}, tpe_seeds=0)
                self.progress_label.value = (f"{name}: replaying {what} "
                                             f"({i + 1} of {len(parts)})...")
                self._parts[(*key, part)] = compute()
                self.progress.value = i + 1
            elapsed = time.perf_counter() - began
            state, label = "success", (f"{name}: replayed in {elapsed:.1f} s (kept: "
                                       "switching back is instant)")
        except Cancelled:
            state, label = "warning", "cancelled; what was replayed before is kept"
        except Exception as err:  # noqa: BLE001 - in a thread: shown, never raised
            self.errors.show(err, RUN_SOURCE)
            state, label = "danger", "stopped by an error"
        finally:
            if pool is not None:
                pool.close()
        self._finish(state, label)

    def _show_replay(self, choice: SpaceChoice) -> None:
        """The kept parts of the chosen strategies, as one comparison, figure and table."""
        from workbench.tuning.study import summary

        data = self._replay_spaces[self._data_key(choice)]
        parts = [self._parts[self._part_key(choice, p)] for p in self._parts_wanted()]
        comparison = merge_comparisons(parts[0], parts[1:])
        keys = self.chosen()
        shown = select_strategies(comparison, keys)
        frame = summary([comparison])
        frame = frame[[strategy_key(s) in keys for s in frame["strategy"]]]
        self.comparison, self.shown = comparison, shown
        self.table_frame = frame.reset_index(drop=True)
        figure = go.FigureWidget(exploration_figure(shown))
        figure.add_class("wb-tuning-figure")
        self.figure = figure
        self.figure_box.children = (figure,)
        table = tuning_table(self.table_frame)
        self.table.value = render_table(
            table, numeric=[c for c in table.columns if c not in ("space", "strategy")],
            empty="no strategy chosen")
        problem = ", ".join(f"{k}={v}" for k, v in data.space.problem.items())
        self.note.value = (
            f"<b>{html.escape(data.space.name)}</b> ({html.escape(problem)}): "
            f"{comparison.points} points measured on {html.escape(data.device)}; best "
            f"{comparison.best_s * 1e3:.4g} ms at <code>{html.escape(comparison.best_point)}"
            f"</code>; measuring every point costs {comparison.exhaustive_s:.1f} s. Each "
            "replay stops once it has found the best; costs count ranking, code "
            "generation, build and runs.")

    def _model(self, label: str):
        model = self.models[label]
        if isinstance(model, (str, Path)):
            from workbench.models import load_model
            model = self.models[label] = load_model(model)
        return model

    # -- live ---------------------------------------------------------------------------

    def _start_live(self) -> None:
        from workbench.tuning.runner import Budget
        from workbench.tuning.strategies import make_strategy

        budget = Budget(evaluations=self.budget.value)   # refuses a budget below 1
        device = self.target_device()
        choice = self.choice()
        space = choice.space(self.size.value)    # a space of one's own at its own sizes
        points = space.points()                           # refuses an empty space
        runs = []
        for key in self.chosen():
            if key == EXHAUSTIVE:
                runs.append(("exhaustive", make_strategy("exhaustive")))
            elif key == RANDOM:
                runs.append(("random (seed 0)", make_strategy("random", seed=0)))
            elif key == TPE:
                runs.append(("tpe (seed 0)", make_strategy("tpe", seed=0)))
            elif key in LEARNED:
                runs.append((key, LockedStart(make_strategy(key))))
            else:
                label = key.removeprefix("model:")
                runs.append((key, LockedStart(make_strategy(
                    "model", model=self._model(label), label=label))))
        self.errors.clear(SOURCE)
        per_run = min(budget.evaluations, len(points))
        self.live_results, self._live_view = [], None
        pool = None
        if choice.own and any(key.startswith("model:") for key in self.chosen()):
            from workbench.tuning.parallel import counting_pool_ahead
            pool = counting_pool_ahead(space)    # as workbench tune: before the thread
        self._begin(per_run * len(runs), f"opening {device.name}...")
        self.figure = live_figure(space, device, [label for label, _ in runs])
        self.figure_box.children = (self.figure,)
        self.table.value = ""
        problem = ", ".join(f"{k}={v}" for k, v in space.problem.items())
        self.note.value = (f"<b>{html.escape(space.name)}</b> ({html.escape(problem)}): "
                           f"{len(points)} points; up to {per_run} evaluations per strategy "
                           f"on {html.escape(device.label)}; a point measured by an earlier "
                           "strategy of this run is reused with its costs")
        self._live_view = {"space": choice.key, "figure": self.figure,
                           "frame": pd.DataFrame(), "table": "", "note": self.note.value}
        self._start(threading.Thread(target=self._live,
                                     args=(space, device, runs, budget, pool),
                                     daemon=True, name="workbench-tuning-live"))

    def _live(self, space, device: DeviceInfo, runs: list, budget, pool=None) -> None:
        from workbench.tuning.runner import Explorer
        from workbench.tuning.sequence import evaluator_for

        state, message = "success", ""
        done_before = 0
        figure = self._live_view["figure"]
        try:
            _, queue = open_device(device)
            evaluator = ReusingEvaluator(evaluator_for(space, queue))
            for i, (label, strategy) in enumerate(runs):
                if self._cancel.is_set():
                    break
                curve: dict[str, list] = {"runs": [], "best": [], "cost": []}
                self.progress_label.value = f"{label}: starting..."

                def on_progress(p, i=i, label=label, curve=curve, before=done_before):
                    self.progress.value = before + p.done
                    if p.best_s is not None:
                        curve["runs"].append(p.done)
                        curve["best"].append(p.best_s * 1e3)
                        curve["cost"].append(p.cost_s)
                        with figure.batch_update():
                            left, right = figure.data[2 * i], figure.data[2 * i + 1]
                            left.x, left.y = list(curve["runs"]), list(curve["best"])
                            right.x, right.y = list(curve["cost"]), list(curve["best"])
                    best = "-" if p.best_s is None else f"{p.best_s * 1e3:.4g} ms"
                    self.progress_label.value = (
                        f"{label}: {p.done} evaluated, best {best}, tuning cost "
                        f"{p.cost_s:.1f} s; {p.evaluation.point.label}")

                result = Explorer(space, strategy, evaluator, budget=budget).run(
                    on_progress, should_stop=self._cancel.is_set)
                self.live_results.append((label, result))
                done_before += len(result.evaluations)
                self._live_table()
            measured = len(evaluator.known)
            if self._cancel.is_set():
                state = "warning"
                message = (f"cancelled after {done_before} evaluations ({measured} points "
                           "measured)")
            else:
                self.progress.max = max(done_before, 1)
                message = live_summary(self.live_results, done_before, measured)
        except Exception as err:  # noqa: BLE001 - in a thread: shown, never raised
            self.errors.show(err, RUN_SOURCE)
            state, message = "danger", f"stopped by an error after {done_before} evaluations"
        finally:
            if pool is not None:
                pool.close()
        self._finish(state, message)

    def _live_table(self) -> None:
        frame, table = live_table(self.live_results)
        self._live_view.update(frame=frame, table=table)
        if self.source.value == LIVE and self._shown_key() == self._live_view["space"]:
            self.table_frame, self.table.value = frame, table

    # -- helpers ------------------------------------------------------------------------

    def _shown_key(self):
        try:
            return self.choice().key
        except WorkbenchError:
            return None

    def _begin(self, steps: int, label: str) -> None:
        self._cancel = threading.Event()
        self.progress.value, self.progress.max = 0, max(steps, 1)
        self.progress.bar_style = ""
        self.progress_label.value = label
        self.run_button.disabled, self.cancel_button.disabled = True, False

    def _start(self, thread: threading.Thread) -> None:
        self._run_view, self._view_stale, self._thread = True, False, thread
        thread.start()

    def _finish(self, style: str, label: str) -> None:
        """A run's last view, shown again while a choice changed during it (refresh()
        leaves the view to a running run), then its end."""
        stale = True
        while stale:
            with self._view_lock:
                self._view_stale = False
            with self.errors.catching("tuning view"):   # the choices may have changed meanwhile
                self._show_view()
            with self._view_lock:
                stale = self._run_view = self._view_stale
        self._end(style, label)

    def _end(self, style: str, label: str) -> None:
        self.progress.bar_style = style
        self.run_button.disabled, self.cancel_button.disabled = False, True
        self.progress_label.value = label    # last: whoever waits on it finds the rest

    def _clear(self, note: str) -> None:
        self.figure = None
        self.figure_box.children = ()
        self.table.value = ""
        self.table_frame = pd.DataFrame()
        self.note.value = f"<i>{note}</i>"

    def _choose_device(self, selector) -> None:
        if not self._devices:
            return
        if isinstance(selector, DeviceInfo):
            self.device.value = selector.index
        elif selector is not None:
            self.device.value = find_device(selector).index
        else:
            chosen = self.session.device
            opencl = chosen.opencl if chosen is not None else None
            self.device.value = (opencl or find_device()).index

    def _follow_session(self) -> None:
        chosen = self.session.device
        if chosen is not None and chosen.opencl is not None and not self.running:
            self.device.value = chosen.opencl.index
