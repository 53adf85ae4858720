"""Symbolic kernel properties: records, extraction from loopy, fast evaluation."""

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

__all__ = [
    "Direction", "Feature", "GlobalAccess", "GlobalMinLoadStore", "Granularity",
    "KernelLaunch", "KernelProperties", "LocalAccess", "LocalBarriers", "OpCount",
    "OpKind", "StrideFraction", "ThreadGroups", "extract_properties", "feature_label", "feature_sort_key",
    "kernel_properties", "parse_feature",
]
