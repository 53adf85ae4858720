"""Table 2 across devices: weights fitted on one GPU predicting another's run times.

Stevens and Klöckner fit the same properties on every GPU, so that the weights "are
directly comparable across devices".  Two questions follow, answered here for two
devices (or more) in both precisions:

* **errors**: how much worse are a device's test (and unseen) kernels predicted by
  weights fitted on another device than by its own?  Every model is fitted on each
  device as it is shipped (the linear model on the measurement kernels; the overlap
  model of ``models/overlap-fp64.json`` on the measurement and test kernels), then
  predicts every device's kernels by Table 1's protocol (256-work-item groups), and
  the geometric-mean relative error is reported per precision, beside the same
  device's own error and their ratio;
* **weights**: each device's weights (or expression parameters) side by side, with
  their unit and the ratio between the devices.

A model is fitted once per device; nothing here prints or writes files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ParameterError
from workbench.measure import MeasurementStore
from workbench.measure.store import resolve_store_path
from workbench.models import build_dataset, get_family
from workbench.models.contract import FittedModel
from workbench.models.dataset import store_device, train_on_roles
from workbench.properties import (
    GlobalAccess,
    GlobalMinLoadStore,
    KernelLaunch,
    LocalAccess,
    LocalBarriers,
    OpCount,
    ThreadGroups,
    parse_feature,
)
from workbench.reports.tables import table1

#: The kernels whose errors are reported: Table 1's test kernels and the unseen set.
EVALUATED_ROLES = ("test", "unseen")


@dataclass(frozen=True)
class ModelChoice:
    """A model as the cross-device table fits it: the unified linear model
    (``expression`` None) or an expression model file, and the roles it trains on."""

    name: str
    expression: str | None = None
    train_roles: tuple[str, ...] = ("measurement",)


LINEAR = ModelChoice("linear")


def default_models(root: str | Path) -> tuple[ModelChoice, ...]:
    """The linear model and the overlap model (overlap-fp64, the H100 default until
    2026-11-26), as on the H100."""
    path = Path(root) / "models" / "overlap-fp64.json"
    return (LINEAR, ModelChoice("overlap-fp64", str(path), ("measurement", "test")))


@dataclass(frozen=True)
class DeviceMeasurements:
    """One device's stores (the same device in each) and a label for the tables."""

    label: str
    stores: tuple[str, ...]
    device: Mapping = field(default_factory=dict, compare=False, hash=False)
    measurements: tuple = field(default=(), compare=False, hash=False, repr=False)


def load_device(stores: Sequence[str | Path], label: str | None = None,
                selector: str | None = None, unseen: Sequence[str | Path] = (),
                kernels: Sequence[str] = ()) -> DeviceMeasurements:
    """Every successful measurement of one device in ``stores``, and the unseen
    kernels' rows of ``unseen`` (that campaign's overhead kernel is no training row);
    the label defaults to the device's name.  Each store must hold that one device (or
    ``selector`` names it).  ``kernels``: only these (all when empty)."""
    if not stores:
        raise ParameterError("a device needs at least one store")
    ms, identity = [], None
    for path in (*stores, *unseen):
        with MeasurementStore.open(path, create=False, readonly=True) as store:
            device = store_device(store, selector)
            if identity is not None and device.key != identity.key:
                raise ParameterError(f"{path} holds {device.device}, not {identity.device}: "
                                     "one device per side")
            identity = device
            rows = store.measurements(device_key=device.key)
        if path in unseen:
            rows = [m for m in rows if m.extra.get("role") == "unseen"]
        ms += [m for m in rows if not kernels or m.key.kernel in kernels]
    return DeviceMeasurements(label or identity.device,
                              tuple(str(s) for s in (*stores, *unseen)),
                              identity.to_dict(), tuple(ms))


#: A device folder's layout (``sample_data/h100``): the catalog in both precisions,
#: and the unseen kernels.
CATALOG_STORE = "measurements-fp64.sqlite"
UNSEEN_STORE = "unseen.sqlite"


def load_folder(folder: str | Path, label: str | None = None) -> DeviceMeasurements:
    """A device folder laid out as ``sample_data/h100`` (its unseen store is optional)."""
    folder = Path(folder)
    catalog = resolve_store_path(folder / CATALOG_STORE)
    if catalog is None:
        raise ParameterError(f"{folder} has no {CATALOG_STORE} (the catalog in both "
                             "precisions, as sample_data/h100 has)")
    unseen = resolve_store_path(folder / UNSEEN_STORE)
    return load_device([catalog], label, unseen=[unseen] if unseen else [])




@dataclass(frozen=True)
class CrossDeviceTable2:
    """``errors``: model, kernels (test/unseen), dtype, data (the device predicted),
    weights (the device fitted), rel_error, same_device_error, ratio (cross / same);
    ``weights``: model, property, label, unit, one value column per device, ratio of
    the second device's to the first's; ``models``: (model, device label) -> fit."""

    errors: pd.DataFrame
    weights: pd.DataFrame
    models: Mapping[tuple[str, str], FittedModel]

    def cross_only(self) -> pd.DataFrame:
        """The rows where one device's weights predict another device."""
        return self.errors[self.errors["data"] != self.errors["weights"]].reset_index(
            drop=True)


def _granularity(choice: ModelChoice, spec) -> tuple[str, int | None]:
    if spec is None:
        return "workitem", None
    return spec.granularity, spec.subgroup_size


def cross_device_table2(devices: Sequence[DeviceMeasurements],
                        models: Sequence[ModelChoice] = (LINEAR,), *,
                        bootstrap: int = 50, group_workitems: int | None = 256
                        ) -> CrossDeviceTable2:
    """Fit every model on every device and predict every device (see the module
    docstring); ``bootstrap`` resamples give the linear weights' intervals."""
    if len({d.label for d in devices}) != len(devices) or len(devices) < 2:
        raise ParameterError("the cross-device table needs two or more devices with "
                             "different labels")
    fitted: dict[tuple[str, str], FittedModel] = {}
    rows = []
    for choice in models:
        family = get_family("unified-linear" if choice.expression is None else "expression")
        spec = None if choice.expression is None else family.spec(choice.expression)
        granularity, subgroup = _granularity(choice, spec)
        data = {d.label: build_dataset(d.measurements, granularity=granularity,
                                       subgroup_size=subgroup) for d in devices}
        for d in devices:
            train = data[d.label]
            if choice.train_roles != ("measurement",):
                train = train_on_roles(train, choice.train_roles)
            # the linear model as the paper fits it (free least squares): the shipped
            # cross-device tables were made so
            options = {"bootstrap": bootstrap, "non_negative": False} if spec is None \
                else {"model": spec}
            fitted[choice.name, d.label] = family.fit(
                train, device=dict(d.device),
                provenance={"store": ", ".join(Path(s).name for s in d.stores),
                            "trained_on_roles": ",".join(choice.train_roles),
                            "cross_device_table": True}, **options)
        for target in devices:
            for source in devices:
                model = fitted[choice.name, source.label]
                for role in EVALUATED_ROLES:
                    frame = data[target.label]
                    if not (frame["role"] == role).any():
                        continue
                    t1 = table1(model, frame, group_workitems=group_workitems, role=role)
                    for dtype, err in t1.per_dtype.items():
                        rows.append({"model": choice.name, "kernels": role, "dtype": dtype,
                                     "data": target.label, "weights": source.label,
                                     "rel_error": float(err)})
                    rows.append({"model": choice.name, "kernels": role, "dtype": "both",
                                 "data": target.label, "weights": source.label,
                                 "rel_error": float(t1.cross_kernel)})
    errors = pd.DataFrame(rows, columns=["model", "kernels", "dtype", "data", "weights",
                                         "rel_error"])
    same = errors[errors["data"] == errors["weights"]].set_index(
        ["model", "kernels", "dtype", "data"])["rel_error"]
    errors["same_device_error"] = [same.get((r.model, r.kernels, r.dtype, r.data), np.nan)
                                   for r in errors.itertuples()]
    errors["ratio"] = errors["rel_error"] / errors["same_device_error"]
    return CrossDeviceTable2(errors, side_by_side(fitted, [d.label for d in devices]),
                             fitted)


# -- weights side by side ---------------------------------------------------------------

_PRODUCT = re.compile(r"\b(p_\w+)\s*\*\s*(f_[^\s,()*+]+(?:\([^)]*\))?)")


def parameter_features(expression: str) -> dict[str, str]:
    """Which feature each parameter of an expression multiplies (``p_add*f_op_...``)."""
    return {p: f for p, f in _PRODUCT.findall(expression)}


def weight_unit(feature: str, granularity: str = "workitem") -> str:
    """The unit of a weight on ``feature``: seconds per what it counts."""
    try:
        f = parse_feature(feature)
    except Exception:  # noqa: BLE001 - a feature this module cannot name
        return "s per unit of " + feature
    who = "sub-group " if granularity == "subgroup" else ""
    if isinstance(f, OpCount):
        return f"s per {who}operation"
    if isinstance(f, (GlobalAccess, LocalAccess, GlobalMinLoadStore)):
        return f"s per {who}access"
    if isinstance(f, LocalBarriers):
        return f"s per {who}barrier"
    if isinstance(f, ThreadGroups):
        return "s per work group"
    if isinstance(f, KernelLaunch):
        return "s per launch"
    return "s per unit"


def _weights_of(model: FittedModel) -> pd.DataFrame:
    params = model.report_data()["parameters"]
    value = "weight_s_per_op" if "weight_s_per_op" in params else "value"
    granularity = getattr(model, "granularity", "workitem")
    features = parameter_features(getattr(model, "expression", "") or "")
    labels = params["label"] if "label" in params else params["property"]
    out = pd.DataFrame({"property": params["property"],
                        # an expression parameter is named by the feature it multiplies
                        "label": [features.get(p, lab) for p, lab in
                                  zip(params["property"], labels)],
                        "value": params[value].astype(float)})
    out["unit"] = [weight_unit(features.get(p, p), granularity) for p in out["property"]]
    return out


def side_by_side(fitted: Mapping[tuple[str, str], FittedModel], labels: Sequence[str]
                 ) -> pd.DataFrame:
    """model, property, label, unit, one column per device, and ``B / A`` for the
    first two devices (a property one device lacks is left empty)."""
    frames = []
    for name in dict.fromkeys(m for m, _ in fitted):
        merged = None
        for label in labels:
            w = _weights_of(fitted[name, label]).rename(columns={"value": label})
            merged = w if merged is None else merged.merge(
                w, on=["property", "label", "unit"], how="outer")
        merged.insert(0, "model", name)
        if len(labels) >= 2:
            merged[f"{labels[1]} / {labels[0]}"] = merged[labels[1]] / merged[labels[0]]
        frames.append(merged)
    return pd.concat(frames, ignore_index=True)
