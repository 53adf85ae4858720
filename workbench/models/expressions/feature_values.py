"""Values of model-expression features, for one kernel build or for a dataset's rows.

The feature *names* and what they select are defined in
:mod:`workbench.models.expressions.features`; here they are evaluated: counts from the
kernel's symbolic properties (vectorized over parameter sets), access-to-footprint
ratios from the shared access model's footprints, bank passes, sectors, and the device
features of :mod:`workbench.models.expressions.insitu`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from workbench.errors import ModelError, WorkbenchError
from workbench.models.expressions.features import (
    AccessFilter,
    DeviceFeature,
    FeatureRef,
    FootprintFeature,
    StandardFeature,
    parse_feature_ref,
)
from workbench.models.expressions.features import (
    FLOOR,
    LOCAL_FEATURES,
    OCCUPANCY_FEATURES,
    RECURRENCE_FEATURES,
    SUBSTITUTION_FEATURES,
    VOLUME_FEATURES,
)
from workbench.models.expressions.insitu import CU_BALANCE, TWIN_TIME, compute_units, cu_balance
from workbench.properties import Granularity, KernelProperties, ThreadGroups, kernel_properties
from workbench.properties.banks import conflict_degree
from workbench.properties.extract import AccessRecord
from workbench.properties.lanes import subgroup_lanes
from workbench.properties.sectors import (
    LaneSectors,
    dense_sectors,
    lane_enumerated_sectors,
    sector_sharing,
    sectors_per_access,
)
from workbench.properties.symbolic import evaluate_many


def _as_float(value, n: int) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == object:
        arr = arr.astype(np.float64)
    return np.broadcast_to(arr.astype(np.float64), (n,)).copy() if arr.ndim == 0 \
        else arr.astype(np.float64).reshape(-1)


def build_feature_values(props: KernelProperties, refs: Sequence[FeatureRef],
                         params: Mapping[str, object], *,
                         workitem_props: KernelProperties | None = None
                         ) -> dict[str, np.ndarray]:
    """Values of input features for one kernel build over arrays of parameter sets.

    ``workitem_props`` (the same build at work-item granularity) supplies the access
    counts of AFR constraints; it defaults to ``props`` when those are per work item.
    """
    # every given value is passed on: a footprint may depend on a parameter that only
    # an index uses (a stride ``m`` in ``c[m*i]``), which is not a loop-bound parameter
    arrays = {p: np.atleast_1d(np.asarray(v)) for p, v in params.items()}
    missing = [p for p in props.parameters if p not in params]
    if missing:
        raise ModelError(f"kernel {props.kernel_name!r} needs value(s) for "
                         f"{', '.join(missing)}")
    n = int(np.broadcast_shapes(*(a.shape for a in arrays.values()))[0]) if arrays else 1
    if arrays:
        props.assumptions.check({p: arrays[p] for p in props.parameters})

    exprs: dict = {}
    filters: list[AccessFilter] = []
    for ref in refs:
        if isinstance(ref, StandardFeature):
            if ref.feature in props.counts:
                exprs[ref.name] = props.counts[ref.feature]
        elif isinstance(ref, AccessFilter):
            filters.append(ref)
            for i, rec in enumerate(props.accesses):
                if ref.selects(rec):
                    exprs["record", i] = rec.count
        elif isinstance(ref, FootprintFeature):
            footprint = _footprint_bytes_expr(workitem_props if workitem_props is not None
                                              else props)
            if footprint is not None:
                exprs[ref.name] = footprint
        elif isinstance(ref, DeviceFeature):
            raise ModelError(f"{ref.name!r} comes from the device, not from the kernel's "
                             "counts; evaluate it on a dataset (dataset_feature_values)")
        else:
            raise ModelError(f"{ref.name!r} is the measured output, not an input feature")

    afr_arrays = sorted({rec.variable for f in filters if f.afr is not None
                         for rec in props.accesses if f.selects(rec)})
    if afr_arrays:
        wi = workitem_props if workitem_props is not None else props
        if wi.granularity is not Granularity.WORKITEM:
            raise ModelError("AFR constraints need the kernel's work-item counts")
        for array in afr_arrays:
            accesses = 0
            for rec in wi.accesses:
                if rec.mtype == "global" and rec.variable == array:
                    accesses = accesses + rec.count
            try:
                used = wi.footprint(array).used
            except WorkbenchError:
                raise
            except Exception:  # noqa: BLE001 - isl/loopy errors of non-affine indices
                used = None    # unknown AFR: meets no afr constraint (module docstring)
            if used is not None:
                exprs["afr accesses", array] = accesses
                exprs["afr used", array] = used

    for array in sorted({rec.variable for f in filters if f.dram_sectors
                         for rec in props.accesses if f.selects(rec)}):
        try:   # the work-item build's footprints are the AFR's: computed once for both
            footprint = (workitem_props or props).footprint(array)
        except WorkbenchError:
            raise
        except Exception:  # noqa: BLE001 - isl/loopy errors of non-affine indices
            continue       # unknown utilization: the access needs all its sectors
        exprs["util used", array] = footprint.used
        exprs["util filled", array] = footprint.filled

    values = evaluate_many(exprs, arrays) if exprs else {}
    values = {k: _as_float(v, n) for k, v in values.items()}
    afr = {}
    for array in afr_arrays:
        if ("afr used", array) not in values:
            afr[array] = np.full(n, np.nan)
            continue
        used = values["afr used", array]
        with np.errstate(divide="ignore", invalid="ignore"):
            afr[array] = np.where(used > 0, values["afr accesses", array]
                                  / np.where(used > 0, used, 1), np.nan)

    sharing, lanes = _sector_sharing(props) if any(
        isinstance(r, AccessFilter) and (r.sectors or r.dram_sectors) for r in refs) \
        else ({}, {})
    out: dict[str, np.ndarray] = {}
    for ref in refs:
        if isinstance(ref, (StandardFeature, FootprintFeature)):
            out[ref.name] = values.get(ref.name, np.zeros(n))
        else:
            total = np.zeros(n)
            for i, rec in enumerate(props.accesses):
                if not ref.selects(rec):
                    continue
                term = values["record", i]
                if ref.bank_passes:
                    term = term * _bank_passes(rec, props)
                lane = lanes.get((rec.variable, rec.direction))
                if ref.sectors or ref.dram_sectors:
                    shared = sharing.get((rec.variable, rec.direction), 1.0) \
                        if lane is None else lane.share
                    term = term * _sectors(rec, props, lane) * shared
                if ref.dram_sectors:
                    term = term * _dram_share(rec, props, values, n, shared, lane)
                if ref.afr is not None:
                    term = np.where(ref.afr.holds(afr[rec.variable]), term, 0.0)
                total = total + term
            out[ref.name] = total
    return out


def _footprint_bytes_expr(props: KernelProperties):
    """Distinct global bytes touched, as an expression; None where ISL cannot count a
    footprint (a non-affine index, or a template's products of numbers)."""
    itemsize = {r.variable: np.dtype(r.dtype).itemsize for r in props.accesses
                if r.mtype == "global"}
    total = 0
    try:
        for array, size in sorted(itemsize.items()):
            total = total + props.footprint(array).used * size
    except WorkbenchError:
        raise
    except Exception:  # noqa: BLE001 - isl/loopy errors of non-affine indices
        return None
    return total


def _bank_passes(record: AccessRecord, props: KernelProperties) -> float:
    degree = conflict_degree(record.lid_strides, props.group_size,
                             np.dtype(record.dtype).itemsize,
                             subgroup_size=props.subgroup_size or 32)
    return np.nan if degree is None else float(degree)


def _sectors(record: AccessRecord, props: KernelProperties,
             lane: LaneSectors | None = None) -> float:
    """Sectors a sub-group's access touches, per counted access: loopy counts a global
    access once per work item where its lid(0) stride is not 0, else once per
    sub-group (a broadcast), and every access once per work item at work-item
    granularity.  Where the index divides a lane coordinate (``lane``), the lanes'
    addresses give the sectors, not loopy's strides (which drop the denominator)."""
    subgroup = props.subgroup_size or 32
    sectors = lane.own if lane is not None else sectors_per_access(
        record.lid_strides, props.group_size, np.dtype(record.dtype).itemsize,
        subgroup_size=subgroup)
    per_item = (props.granularity is Granularity.WORKITEM
                or dict(record.lid_strides).get(0, 0) != 0)
    return sectors / subgroup_lanes(props.group_size, subgroup) if per_item else sectors


def _dram_share(record: AccessRecord, props: KernelProperties, values: dict, n: int,
                shared: float, lane: LaneSectors | None = None) -> np.ndarray:
    """The share of an access's sectors (``shared`` of its own, companions counted) it
    needs from DRAM (``dramsectors`` in :mod:`.features`): its dense sectors over the
    array's utilization, at most all of them."""
    if ("util used", record.variable) not in values:
        return np.ones(n)
    subgroup = props.subgroup_size or 32
    itemsize = np.dtype(record.dtype).itemsize
    if lane is not None:
        requested, dense = shared * lane.own, lane.dense
    else:
        requested = shared * sectors_per_access(record.lid_strides, props.group_size,
                                                itemsize, subgroup_size=subgroup)
        dense = dense_sectors(record.lid_strides, props.group_size, itemsize,
                              subgroup_size=subgroup)
    used, filled = values["util used", record.variable], values["util filled", record.variable]
    with np.errstate(divide="ignore", invalid="ignore"):
        need = np.where(used > 0, dense * filled / np.where(used > 0, used, 1), requested)
    return np.minimum(need, requested) / requested


def _sector_sharing(props: KernelProperties) -> tuple[dict, dict]:
    """Per (array, direction), the share of its accesses' sectors that companions at a
    constant offset leave (:func:`~workbench.properties.sectors.sector_sharing`), and
    the sectors of those whose index divides a lane coordinate, from the lanes'
    addresses (:func:`~workbench.properties.sectors.lane_enumerated_sectors`); none
    where the kernel's access model cannot be read."""
    try:
        model = props.access_model
    except WorkbenchError:
        raise
    except Exception:  # noqa: BLE001 - loopy errors of kernels the model cannot read
        return {}, {}
    subgroup = props.subgroup_size or 32
    return (sector_sharing(model, props.group_size, subgroup_size=subgroup),
            lane_enumerated_sectors(model, props.group_size, subgroup_size=subgroup))


def parse_params_text(text: str) -> dict[str, int]:
    out = {}
    for part in str(text).split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = int(v)
    return out


def group_size_tuple(text) -> tuple[int, ...]:
    if isinstance(text, tuple):
        return text
    return tuple(int(s) for s in str(text).split("x"))


_META = ("kernel", "variant", "dtype", "group_size", "params")


#: Device features whose values come from a layer above the counts, by name: the
#: physical floor (:mod:`workbench.models.floors`) counts candidates through this module,
#: so it registers its row function here instead of being imported from here.
_ROW_FEATURE_PROVIDERS: dict[str, Callable[[pd.DataFrame], np.ndarray]] = {}


def provide_row_feature(name: str, compute: Callable[[pd.DataFrame], np.ndarray]) -> None:
    """Register how ``name`` (a device feature) is computed for a frame of rows."""
    _ROW_FEATURE_PROVIDERS[name] = compute


#: The same for candidates: ``compute(candidates, device)`` (the occupancy features)
_CANDIDATE_FEATURE_PROVIDERS: dict[str, Callable] = {}


def provide_candidate_feature(name: str, compute: Callable) -> None:
    """Register how ``name`` (a device feature) is computed for candidates on a device."""
    _CANDIDATE_FEATURE_PROVIDERS[name] = compute


def candidate_feature_provider(name: str) -> Callable | None:
    return _CANDIDATE_FEATURE_PROVIDERS.get(name)


def _device_feature_values(data: pd.DataFrame, ref: DeviceFeature,
                           granularity: Granularity, subgroup_size: int | None
                           ) -> np.ndarray:
    if ref.name == FLOOR:
        if FLOOR not in _ROW_FEATURE_PROVIDERS:  # workbench.models imports the floors
            raise ModelError(f"{FLOOR} needs workbench.models.floors imported")
        return _ROW_FEATURE_PROVIDERS[FLOOR](data)
    if ref.name in _ROW_FEATURE_PROVIDERS:
        return _ROW_FEATURE_PROVIDERS[ref.name](data)
    if ref.name in OCCUPANCY_FEATURES:
        raise ModelError(f"{ref.name} needs workbench.models.occupancy_features imported")
    if ref.name in VOLUME_FEATURES:
        raise ModelError(f"{ref.name} needs workbench.models.volume_features imported")
    if ref.name in LOCAL_FEATURES:
        raise ModelError(f"{ref.name} needs workbench.models.local_features imported")
    if ref.name in RECURRENCE_FEATURES:
        raise ModelError(f"{ref.name} needs workbench.models.recurrence_features imported")
    if ref.name in SUBSTITUTION_FEATURES:
        raise ModelError(f"{ref.name} needs workbench.models.substitution_features imported")
    if ref.name == TWIN_TIME:
        raise ModelError(
            f"{TWIN_TIME} is the measured time of each row's work-removed twin, and this "
            "data has none: give the store(s) that hold the twins' measurements "
            "(workbench calibrate --set work-removed, with --families for the families)")
    if "device" not in data.columns:
        raise ModelError(f"{CU_BALANCE} needs each row's device (a 'device' column)")
    groups_name = ThreadGroups().name
    groups = dataset_feature_values(data, [groups_name], granularity=granularity,
                                    subgroup_size=subgroup_size)[groups_name]
    out = np.ones(len(data))
    devices = data["device"].astype(str).to_numpy()
    for device in np.unique(devices):
        rows = devices == device
        out[rows] = cu_balance(groups[rows], compute_units(device))
    return out


def dataset_feature_values(data: pd.DataFrame, names: Iterable[str], *,
                           granularity: Granularity | str,
                           subgroup_size: int | None,
                           specs: Mapping[str, object] | None = None
                           ) -> dict[str, np.ndarray]:
    """Values of the named input features for every row of a dataset frame.

    A feature the frame already has as a column is taken from it (the frame must then
    have been built at the model's granularity, as ``build_dataset`` is by the CLI);
    the others are computed from each row's kernel, variant, dtype, group size and
    parameters, one property extraction per build (cached by ``kernel_properties``).
    """
    granularity = Granularity(granularity)
    names = list(dict.fromkeys(names))
    n = len(data)
    out = {name: data[name].to_numpy(dtype=np.float64) for name in names
           if name in data.columns}
    todo = [parse_feature_ref(nm) for nm in names if nm not in out]
    device_refs = [r for r in todo if isinstance(r, DeviceFeature)]
    todo = [r for r in todo if not isinstance(r, DeviceFeature)]
    for ref in device_refs:
        out[ref.name] = _device_feature_values(data, ref, granularity, subgroup_size)
    if not todo or n == 0:
        return {**out, **{r.name: np.zeros(n) for r in todo}}
    lacking = [c for c in _META if c not in data.columns]
    if lacking:
        raise ModelError(f"cannot compute feature(s) {', '.join(r.name for r in todo)}: "
                         f"the data has no column(s) {', '.join(lacking)}")
    needs_afr = any(isinstance(r, AccessFilter) and r.afr is not None for r in todo)
    computed = {r.name: np.zeros(n) for r in todo}
    positions = np.arange(n)
    keys = data[list(_META[:4])].astype(str)
    for (kernel, variant, dtype, group), idx in keys.groupby(
            list(_META[:4]), sort=False).indices.items():
        rows = positions[idx]
        try:
            common = dict(variant=variant, dtype=dtype, group_size=group_size_tuple(group))
            # a kernel outside the catalog (a user's, a tuning point) comes as its spec
            kernel = (specs or {}).get(kernel, kernel)
            props = kernel_properties(kernel, granularity=granularity,
                                      subgroup_size=subgroup_size, **common)
            wi = props
            if needs_afr and granularity is not Granularity.WORKITEM:
                wi = kernel_properties(kernel, granularity=Granularity.WORKITEM, **common)
            parsed = [parse_params_text(t) for t in data["params"].iloc[rows]]
            names_ = sorted(set(props.parameters).union(*parsed))
            params = {p: np.array([d[p] for d in parsed]) for p in names_}
            values = build_feature_values(props, todo, params, workitem_props=wi)
        except (KeyError, ValueError) as err:
            raise ModelError(f"cannot compute features for {kernel} ({variant}, {dtype}, "
                             f"{group}): {err}") from None
        except WorkbenchError as err:
            if isinstance(err, ModelError):
                raise
            raise ModelError(f"cannot compute features for {kernel} ({variant}, {dtype}, "
                             f"{group}): {err}") from None
        for name, v in values.items():
            computed[name][rows] = v
    return {**out, **computed}



def kernel_feature_values(kernel, names: Iterable[str], params: Mapping[str, int], *,
                          variant: str | None = None, dtype: str = "float32",
                          group_size: str | tuple[int, ...] | None = None,
                          granularity: Granularity | str = Granularity.SUBGROUP,
                          subgroup_size: int | None = None
                          ) -> tuple[KernelProperties, dict[str, float]]:
    """The named input features of one kernel build for one parameter set.

    ``kernel`` is anything :func:`kernel_properties` takes (a catalog name, a spec or
    a loopy kernel); returns the properties used and one number per feature.
    """
    granularity = Granularity(granularity)
    refs = [parse_feature_ref(n) for n in dict.fromkeys(names)]
    common = dict(variant=variant, dtype=dtype, group_size=group_size)
    props = kernel_properties(kernel, granularity=granularity, subgroup_size=subgroup_size,
                              **common)
    wi = props
    if granularity is not Granularity.WORKITEM and any(
            isinstance(r, AccessFilter) and r.afr is not None for r in refs):
        wi = kernel_properties(kernel, granularity=Granularity.WORKITEM, **common)
    values = build_feature_values(props, refs, {k: np.array([v]) for k, v in params.items()},
                                  workitem_props=wi)
    return props, {k: float(v[0]) for k, v in values.items()}
