"""What the workbench reads off a loopy kernel, symbolically, without a device.

* :mod:`.features`: the property records (``OpCount``, ``GlobalAccess``...) and names;
* :mod:`.counting`, :mod:`.extract`: exact counts (barvinok quasi-polynomials in the
  size parameters) of operations, accesses, barriers and groups;
* :mod:`.predicates`: the runs of an instruction under an ``if``, its domain cut by
  an affine condition, and the conditions left uncounted (upper bounds);
* :mod:`.accesses`: the one access model: every global subscript with its domain,
  array layout and hardware axes, shared by the footprints here and the roofline's
  data volumes (:mod:`workbench.models.roofline.from_loopy`);
* :mod:`.footprint`: symbolic footprints and utilization (AFR, S1/S2);
* :mod:`.banks`: local-memory bank conflicts;
* :mod:`.sectors`: the 32-byte sectors a sub-group's global access touches
  (:mod:`.lanes`: where a sub-group's lanes sit in their group);
* :mod:`.symbolic`: compiling the counts to vectorized numpy;
* :mod:`.resolve`: cached properties of catalog kernels.
"""

from workbench.properties.accesses import KernelAccesses, kernel_accesses
from workbench.properties.extract import KernelProperties, extract_properties
from workbench.properties.resolve import kernel_properties
from workbench.properties.features import (
    Direction,
    Feature,
    GlobalAccess,
    GlobalMinLoadStore,
    Granularity,
    KernelLaunch,
    LocalAccess,
    LocalBarriers,
    OpCount,
    OpKind,
    StrideFraction,
    ThreadGroups,
    feature_label,
    feature_sort_key,
    parse_feature,
)
from workbench.properties.predicates import UnresolvedPredicate, unresolved_predicates

__all__ = [
    "Direction", "Feature", "KernelAccesses", "kernel_accesses", "GlobalAccess", "GlobalMinLoadStore", "Granularity",
    "KernelLaunch", "KernelProperties", "LocalAccess", "LocalBarriers", "OpCount",
    "OpKind", "StrideFraction", "ThreadGroups", "extract_properties", "feature_label", "feature_sort_key",
    "kernel_properties", "parse_feature", "UnresolvedPredicate", "unresolved_predicates",
]
