"""The state the panels share: the chosen kernel and device, the store, the model.

A :class:`Session` is a small observable object (traitlets, as the widgets are): a
panel changes it and the others, observing it, follow.  That is all the wiring the
dashboard does; a panel built on its own makes a session of its own.

Loading a store's dataset means extracting the properties of every kernel build in
it (seconds for a full campaign), so a session can load in the background: panels
show ``loading`` and are updated when :attr:`Session.data` arrives.
"""

from __future__ import annotations

import enum
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import traitlets

from workbench.errors import DeviceError, UnknownNameError
from workbench.kernels import KernelSpec, format_group_size
from workbench.measure.devices import POCL_PLATFORM, DeviceInfo, list_devices
from workbench.measure.provenance import DeviceIdentity
from workbench.measure.samples import ShippedData, shipped_data
from workbench.models import FittedModel, load_model, load_store_dataset
from workbench.reports import predictions

#: Held while a dataset is built.  Loads are heavy and loopy/islpy keep global
#: caches; one at a time also keeps two panels from building the same data twice.
DATA_LOCK = threading.RLock()


class DeviceKind(enum.Enum):
    OPENCL = "opencl"      # found on this machine: can be measured
    SHIPPED = "shipped"    # data shipped with the workbench: explored only


@dataclass(frozen=True)
class DeviceChoice:
    """A device the user can pick: an OpenCL device here, or a shipped dataset."""

    kind: DeviceKind
    label: str
    opencl: DeviceInfo | None = None
    shipped: ShippedData | None = None

    @classmethod
    def of_opencl(cls, info: DeviceInfo) -> DeviceChoice:
        return cls(DeviceKind.OPENCL, opencl_label(info), opencl=info)

    @classmethod
    def of_shipped(cls, data: ShippedData) -> DeviceChoice:
        return cls(DeviceKind.SHIPPED, f"{data.device} (shipped data, no GPU needed)",
                   shipped=data)

    @property
    def measurable(self) -> bool:
        return self.kind is DeviceKind.OPENCL

    @property
    def device_name(self) -> str:
        return self.opencl.name if self.opencl is not None else self.shipped.device


def opencl_label(info: DeviceInfo) -> str:
    """A device list's entry: pocl's CPU device by its processor, without the build
    target pocl puts first (``pthread-skylake-avx512-Intel(R) Xeon(R) Processor`` with
    its platform's long name did not fit the dashboard's list at a laptop's width)."""
    if POCL_PLATFORM in info.platform:
        cpu = re.sub(r"^(pthread|cpu|basic|tbb)-[\w.-]*?-(?=[A-Z])", "", info.name)
        return f"{cpu} (pocl CPU, OpenCL device {info.index})"
    return f"{info.name} ({info.platform}, OpenCL device {info.index})"


def available_devices(include_opencl: bool = True) -> tuple[DeviceChoice, ...]:
    """Shipped datasets first (they work anywhere), then this machine's OpenCL devices.

    A machine without an OpenCL runtime simply offers the shipped data.
    """
    choices = [DeviceChoice.of_shipped(d) for d in shipped_data()]
    if include_opencl:
        try:
            choices += [DeviceChoice.of_opencl(d) for d in list_devices()]
        except DeviceError:
            pass
    return tuple(choices)


def resolve_device(selector: str | int | DeviceInfo | DeviceChoice | None,
                   choices: tuple[DeviceChoice, ...]) -> DeviceChoice | None:
    """``None``: the first choice; a shipped folder name (``"h100"``); an OpenCL index;
    or a case-insensitive substring of a choice's label."""
    if isinstance(selector, DeviceChoice):
        return selector
    if isinstance(selector, DeviceInfo):
        return DeviceChoice.of_opencl(selector)
    if selector is None or selector == "":
        return choices[0] if choices else None
    if isinstance(selector, int) or str(selector).isdigit():
        for c in choices:
            if c.opencl is not None and c.opencl.index == int(selector):
                return c
    wanted = str(selector).lower()
    for c in choices:
        if c.shipped is not None and c.shipped.name.lower() == wanted:
            return c
    for c in choices:
        if wanted in c.label.lower():
            return c
    raise UnknownNameError("device", str(selector), [c.label for c in choices])


@dataclass(frozen=True)
class KernelSelection:
    """The kernel build and sizes the picker chose; parameters may still be missing
    (the properties panel says which), unknown ones are refused here."""

    spec: KernelSpec
    variant: str
    dtype: str
    params: tuple[tuple[str, int], ...]
    group_size: tuple[int, ...]

    @classmethod
    def make(cls, spec: KernelSpec, variant: str | None = None, dtype: str | None = None,
             params: Mapping[str, int] | None = None,
             group_size: str | tuple[int, ...] | None = None) -> KernelSelection:
        request = spec.request(variant, dtype, group_size)
        params = dict(params or {})
        unknown = sorted(set(params) - set(spec.parameters))
        if unknown:
            raise UnknownNameError(f"parameter of {spec.name!r}", unknown[0], spec.parameters)
        return cls(spec, request.variant, request.dtype.value,
                   tuple(sorted((k, int(v)) for k, v in params.items())), request.group_size)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def params_dict(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def params_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.params)

    @property
    def group_size_text(self) -> str:
        return format_group_size(self.group_size)


def default_params(spec: KernelSpec, variant: str | None = None) -> dict[str, int]:
    """The first size case of the kernel's default exponent: a size that runs."""
    try:
        cases = spec.cases(spec.default_p, variant)
    except Exception:  # noqa: BLE001 - a user kernel has no size cases
        return {}
    return dict(cases[0]) if cases else {}


@dataclass(frozen=True, eq=False)  # eq=False: DataFrames do not compare to a bool
class LoadedData:
    """One store's dataset, and the model's predictions of it when there is a model."""

    store_path: Path
    model: FittedModel | None
    dataset: pd.DataFrame
    predictions: pd.DataFrame | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def model_label(model: FittedModel) -> str:
    """``"NVIDIA H100 80GB HBM3, unified-linear"``: the device first, for comparing."""
    device = (getattr(model, "device", None) or {}).get("device", "unknown device")
    return f"{device}, {model.family}"


def model_device_key(model: FittedModel | None) -> str | None:
    device = getattr(model, "device", None)
    return DeviceIdentity.from_dict(device).key if device else None


def load_session_data(store: str | Path, model: FittedModel | None) -> LoadedData:
    """The dataset of the model's device in ``store`` (the store's only device when
    there is no model), at the model's counting granularity, with its predictions."""
    kwargs = {}
    if model is not None and hasattr(model, "granularity"):
        kwargs = {"granularity": model.granularity,
                  "subgroup_size": getattr(model, "subgroup_size", None)}
    # (no warnings.catch_warnings here: it swaps the process-wide filters, which a
    # background thread must not do while the notebook's thread may do the same)
    with DATA_LOCK:
        dataset = load_store_dataset(store, model_device_key(model), **kwargs)
    notes = []
    pred = None
    if model is None:
        notes.append("no fitted model yet: fit one (weights panel) or run a calibration")
    elif len(dataset):
        pred = predictions(model, dataset)
    if not len(dataset):
        notes.append(f"no successful measurements in {store}")
    return LoadedData(Path(store), model, dataset, pred, tuple(notes))


_KEEP = object()


class Session(traitlets.HasTraits):
    """What the panels share.  Set ``selection`` and ``device`` directly; change the
    store and model with :meth:`use_data`, which (re)loads :attr:`data`."""

    selection = traitlets.Instance(KernelSelection, allow_none=True)
    device = traitlets.Instance(DeviceChoice, allow_none=True)
    store_path = traitlets.Unicode("")
    model = traitlets.Any(None, allow_none=True)
    data = traitlets.Instance(LoadedData, allow_none=True)
    loading = traitlets.Bool(False)
    data_error = traitlets.Unicode("")
    user_kernels = traitlets.Dict()   # name -> KernelSpec of the user's own kernels

    def __init__(self, *, background: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.background = background
        self._generation = 0
        #: Held by whoever changes the session or draws from it: a widget message
        #: of the panels (handled whole, see workbench.ui.in_turn), the picker's
        #: publishing, a panel's refresh, a background load publishing its result.
        #: Observers (the panels) run in the thread that sets a trait, and JupyterLab
        #: hands widget messages to more than one kernel thread: without one lock,
        #: an older edit can be published, or drawn, after a newer one.
        self.lock = threading.RLock()
        self._loader: threading.Thread | None = None
        self._data_wanted = False
        self._stale = False

    # -- data -----------------------------------------------------------------------

    def use_data(self, store: str | Path | None = _KEEP, model=_KEEP, *,
                 wait: bool = False) -> None:
        """Explore ``store`` with ``model`` (a fitted model or a model file); either
        left out stays as it is.

        :attr:`data` is (re)loaded once a panel has asked for it (:meth:`want_data`),
        in the background unless ``wait`` or the session was made with
        ``background=False``.
        """
        if model is not _KEEP:
            self.model = load_model(model) if isinstance(model, (str, Path)) else model
        if store is not _KEEP:
            self.store_path = str(store) if store else ""
        self._stale = True
        if self._data_wanted:
            self._reload(wait)

    def want_data(self) -> None:
        """Called by the panels that show :attr:`data`; until one does, choosing a
        store costs nothing (a properties panel alone never loads a dataset)."""
        self._data_wanted = True
        if self._stale:
            self._reload(wait=False)

    def _reload(self, wait: bool) -> None:
        self._stale = False
        with self.lock:
            self._generation += 1
            generation = self._generation
            if not self.store_path:
                self.data, self.data_error, self.loading = None, "", False
                return
            self.loading = True
        args = (generation, self.store_path, self.model)
        if self.background and not wait:
            self._loader = threading.Thread(target=self._load, args=args, daemon=True,
                                            name="workbench-session-load")
            self._loader.start()
        else:
            self._load(*args)

    def _load(self, generation: int, store: str, model) -> None:
        from workbench.ui.errors_view import one_line

        try:
            data, error = load_session_data(store, model), ""
        except Exception as err:  # noqa: BLE001 - shown by the panels, never raised
            data, error = None, one_line(err)
        with self.lock:
            if generation != self._generation:
                return  # a newer request superseded this one
            self.data_error = error
            self.data = data
            self.loading = False

    def wait_for_data(self, timeout: float | None = None) -> bool:
        """Wait for a background load; True when none is running any more."""
        loader = self._loader
        if loader is not None:
            loader.join(timeout)
            return not loader.is_alive()
        return True

    # -- devices --------------------------------------------------------------------

    def choose_device(self, choice: DeviceChoice | None) -> None:
        """Pick a device; a shipped dataset also brings its store and linear model."""
        self.device = choice
        if choice is not None and choice.shipped is not None:
            weights = choice.shipped.default_linear_weights
            self.use_data(choice.shipped.store, load_model(weights) if weights else None)

    # -- kernels --------------------------------------------------------------------

    def add_user_kernel(self, spec: KernelSpec) -> None:
        self.user_kernels = {**self.user_kernels, spec.name: spec}
