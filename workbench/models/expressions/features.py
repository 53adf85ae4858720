"""The ``f_`` names of model expressions, and their values for dataset rows.

Three kinds of feature name are understood:

* every property name of :mod:`workbench.properties.features`, e.g.
  ``f_op_float32_add``, ``f_mem_access_global_float32_load_stride1``,
  ``f_sync_barrier_local``, ``f_thread_groups``, ``f_sync_kernel_launch``;
* the measured output ``f_cl_wall_time`` or ``f_cl_wall_time_<device>``, where
  ``<device>`` is any part of the device name in lower case with runs of other
  characters written ``_`` (``f_cl_wall_time_nvidia_h100`` for "NVIDIA H100 80GB
  HBM3"); it may only be the left-hand side of a model;
* constrained memory-access features, the 2019 paper's section 6.1.1 syntax::

      f_mem_access[_tag:<tag>][_<mtype>][_<dtype>][_<direction>]
                  [_lstrides:{<stride constraints>}][_gstrides:{<stride constraints>}]
                  [_afr:<constraint>][_bankpasses|_sectors|_dramsectors]

  The value is the sum of the counts of every access (as loopy reports them, see
  :class:`workbench.properties.extract.AccessRecord`) that meets all the given
  parts; a part left out does not constrain.  ``<mtype>`` is ``global`` or
  ``local``, ``<dtype>`` e.g. ``float32``, ``<direction>`` ``load`` or ``store``.
  The parts must come in this order.

  ``tag:<tag>`` keeps the accesses whose loopy variable tag is ``<tag>``; a kernel
  tags an access by writing ``a$aLD[i]`` in an instruction.  This is the paper's
  "in-situ" feature: ``f_mem_access_tag:aLD`` is every access tagged ``aLD``.  A tag
  is letters, digits and ``_``; where it is followed by more parts it ends before the
  first ``_global``/``_local``/``_<dtype>``/... that makes the rest parse, and it may
  not itself contain the words ``global``, ``local``, ``load``, ``store`` or a dtype
  between underscores (that would be ambiguous).

  ``<stride constraints>`` is a comma-separated list of ``<axis>:<constraint>``
  (axis 0 being the fastest-varying work-item axis); ``{}`` does not constrain.
  ``lstrides`` constrains the element stride between neighbouring work items of a
  group along ``lid(axis)``, ``gstrides`` that between neighbouring groups along
  ``gid(axis)``.  An axis the index does not depend on has stride 0.
  ``<constraint>`` is a comparison and a number: ``1`` or ``=1`` or ``==1`` (equal),
  ``!=1``, ``>1``, ``>=2``, ``<4``, ``<=4``.  Strides compare by absolute value.
  A *symbolic* stride (one that depends on a size parameter, a row length ``n`` say)
  or a non-affine one (None) is taken as large: it meets ``>k``, ``>=k`` and
  ``!=k`` for every k and no ``=``, ``<`` or ``<=`` constraint.  Examples:
  ``lstrides:{0:1}`` (lid(0) stride 1: coalesced), ``lstrides:{0:>1}``,
  ``lstrides:{0:1,1:>=16}``, ``gstrides:{}``.

  ``afr:<constraint>`` constrains the access-to-footprint ratio (AFR) of the
  accessed *global array*: the number of element accesses made to the array by all
  work items together (loads and stores, counted per work item whatever the model's
  granularity, since the ratio is about elements) divided by the number of distinct
  elements it touches (``KernelProperties.footprint(array).used``).  AFR = 1: every
  element is touched once; AFR > 1: elements are re-read (a halo, a tile reused by
  several groups), so caches may help.  The ratio depends on the sizes, so this
  part is decided per row.  ``afr`` applies to global accesses only; an array whose
  footprint cannot be counted (a non-affine index such as ``c[m*i]``) has an unknown
  AFR and meets no afr constraint.  Examples:
  ``afr:1``, ``afr:>1``, ``afr:<=1``, ``afr:>1.5``.

  ``bankpasses`` (last, local accesses only) counts each access once per bank pass
  its sub-group needs: the count times the access's bank-conflict degree (see
  :mod:`workbench.properties.banks`; 32 banks of 4 bytes, the properties' sub-group
  size or 32).  ``f_mem_access_local_float32_load_bankpasses`` is 32 times
  ``f_mem_access_local_float32_load`` for a transposed read of a 32-wide tile.

  ``sectors`` (last, global accesses only) counts each access once per 32-byte
  sector its sub-group touches: the count times the sectors of the lanes' addresses
  (see :mod:`workbench.properties.sectors`; the group shape decides how the lanes
  map to lid(0) and lid(1), a non-integer stride counts as large, the first lane
  starts a sector).  Stride 1 over float32 touches 4 sectors a warp, stride 2
  touches 8, stride 5 touches 20, stride 32 touches 32; float64 twice as many up to
  32.  ``f_mem_access_global_float32_store_sectors`` prices a store by the memory
  traffic of its warp rather than by its stride class.

  ``dramsectors`` (last, global accesses only) counts the sectors an access needs
  from DRAM: its ``sectors``, but no more than its lanes' distinct elements fill side
  by side, divided by the utilization of the array's footprint (used over filled
  elements, :mod:`workbench.properties.footprint`).  A transposed read of a dense
  array requests 32 sectors a warp and needs 4 (float32) from DRAM, since other
  warps read the rest of each sector; a stride-5 gather, whose array is a fifth
  used, needs all 20.  An array whose footprint cannot be counted needs its
  ``sectors``.

  Full example: ``f_mem_access_global_float32_load_lstrides:{0:1}_gstrides:{}_afr:>1``.

Counts come at the granularity of the properties they are computed from (see
:class:`workbench.properties.Granularity`): a model fitted at sub-group granularity
must be evaluated on properties extracted at that granularity.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError, UnknownModelNameError, UnknownNameError, WorkbenchError
from workbench.properties import (
    Direction,
    Feature,
    GlobalAccess,
    GlobalMinLoadStore,
    KernelLaunch,
    LocalAccess,
    LocalBarriers,
    OpCount,
    OpKind,
    StrideFraction,
    ThreadGroups,
    parse_feature,
)
from workbench.models.expressions.insitu import CU_BALANCE, TWIN_TIME
from workbench.properties.extract import AccessRecord

OUTPUT_PREFIX = "f_cl_wall_time"
_DTYPES = ("float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "complex64", "complex128")


# {{{ constraints

_COMPARE = {"==": np.equal, "!=": np.not_equal, ">": np.greater, ">=": np.greater_equal,
            "<": np.less, "<=": np.less_equal}


@dataclass(frozen=True)
class Constraint:
    """``<op> <value>``, e.g. ``> 1``; ``op`` is one of ``== != > >= < <=``."""

    op: str
    value: float

    @classmethod
    def parse(cls, text: str, where: str) -> Constraint:
        m = re.fullmatch(r"\s*(==|=|!=|>=|<=|>|<)?\s*(\d+(?:\.\d+)?)\s*", text)
        if not m:
            raise ModelError(f"malformed constraint {text!r} in {where}: expected a "
                             "number with an optional comparison, e.g. 1, >1, <=4, !=0")
        op = {None: "==", "=": "=="}.get(m.group(1), m.group(1))
        return cls(op, float(m.group(2)))

    def holds(self, value) -> np.ndarray | bool:
        """Whether a number (or each element of an array) meets the constraint."""
        return _COMPARE[self.op](value, self.value)

    def holds_for_stride(self, stride: object) -> bool:
        """Integer strides compare by |stride|; symbolic or unknown ones count as large."""
        if isinstance(stride, (int, np.integer)):
            return bool(self.holds(abs(int(stride))))
        return self.op in (">", ">=", "!=")

    @property
    def text(self) -> str:
        number = int(self.value) if float(self.value).is_integer() else self.value
        return f"{'' if self.op == '==' else self.op}{number}"


def _parse_strides(body: str, where: str) -> tuple[tuple[int, Constraint], ...]:
    body = body.strip()
    if not body:
        return ()
    out: dict[int, Constraint] = {}
    for item in body.split(","):
        axis, sep, cond = item.partition(":")
        if not sep or not axis.strip().isdigit():
            raise ModelError(f"malformed stride constraint {item.strip()!r} in {where}: "
                             "expected <axis>:<constraint>, e.g. 0:1 or 1:>16")
        a = int(axis)
        if a in out:
            raise ModelError(f"axis {a} is constrained twice in {where}")
        out[a] = Constraint.parse(cond, where)
    return tuple(sorted(out.items()))

# }}}


# {{{ feature references

@dataclass(frozen=True)
class StandardFeature:
    """A property of :mod:`workbench.properties.features`."""

    name: str
    feature: Feature


@dataclass(frozen=True)
class OutputFeature:
    """The measured wall time; ``device`` is the optional device-name part."""

    name: str
    device: str | None


@dataclass(frozen=True)
class AccessFilter:
    """A constrained memory-access feature: the accesses that meet every part."""

    name: str
    tag: str | None = None
    mtype: str | None = None
    dtype: str | None = None
    direction: Direction | None = None
    lstrides: tuple[tuple[int, Constraint], ...] = ()
    gstrides: tuple[tuple[int, Constraint], ...] = ()
    afr: Constraint | None = None
    bank_passes: bool = False
    sectors: bool = False
    dram_sectors: bool = False

    def selects(self, record: AccessRecord) -> bool:
        """The static part of the filter (everything but the size-dependent AFR)."""
        if self.tag is not None and self.tag not in record_tags(record):
            return False
        if self.bank_passes and record.mtype != "local":
            return False
        if (self.sectors or self.dram_sectors) and record.mtype != "global":
            return False
        if self.mtype is not None and record.mtype != self.mtype:
            return False
        if self.dtype is not None and record.dtype != self.dtype:
            return False
        if self.direction is not None and record.direction is not self.direction:
            return False
        if self.afr is not None and record.mtype != "global":
            return False
        for wanted, have in ((self.lstrides, record.lid_strides),
                             (self.gstrides, record.gid_strides)):
            strides = dict(have)
            for axis, constraint in wanted:
                if not constraint.holds_for_stride(strides.get(axis, 0)):
                    return False
        return True


@dataclass(frozen=True)
class DeviceFeature:
    """A feature measured or looked up on the device (see :mod:`.insitu`):
    ``f_wr_wall_time``, ``f_cu_balance``, or ``f_floor_s``, the kernel's physical floor
    on the row's device in seconds (:mod:`workbench.models.floors`; 0 on a device
    without floors), for a model that takes the floor inside its expression; or one of
    :data:`OCCUPANCY_FEATURES`, residency and waves on the row's device
    (:mod:`workbench.models.occupancy_features`); or one of :data:`VOLUME_FEATURES`,
    the bytes a launch moves per memory level on the row's device
    (:mod:`workbench.models.volume_features`); or one of :data:`LOCAL_FEATURES`, local
    wavefronts per active warp and barrier phases (:mod:`workbench.models.local_features`);
    or ``f_recurrence_s``, a running sum's serial chain in seconds
    (:mod:`workbench.models.recurrence_features`); or ``f_substitution_s``, a
    substitution's chain in seconds (:mod:`workbench.models.substitution_features`)."""

    name: str


@dataclass(frozen=True)
class FootprintFeature:
    """``f_footprint_bytes``: the distinct bytes of global memory the kernel touches
    (every global array's footprint times its item size; 0 where an index is not
    affine and ISL cannot count it).  What no reuse through a cache can avoid moving
    at least once."""

    name: str = "f_footprint_bytes"


FOOTPRINT = FootprintFeature().name
#: the physical floor on the device, seconds (a device feature)
FLOOR = "f_floor_s"
#: residency and waves on the device (device features: workbench.models.occupancy_features)
OCCUPANCY_FEATURES = ("f_groups_per_sm", "f_occupancy", "f_waves", "f_tail_fraction",
                      "f_wave_balance", "f_warp_chain_bytes")
#: data volumes per memory level from the roofline's access model (device features:
#: workbench.models.volume_features)
VOLUME_FEATURES = ("f_dram_bytes", "f_l2_bytes")
#: local-memory wavefronts per active warp, barrier phases and local chains (device
#: features: workbench.models.local_features)
LOCAL_FEATURES = ("f_local_wavefronts", "f_barrier_phases", "f_barrier_phase_warps",
                  "f_local_chain", "f_global_barrier_phases", "f_prefetch_local_stores")
#: the serial chain of a running sum, seconds (device feature:
#: workbench.models.recurrence_features)
RECURRENCE_FEATURES = ("f_recurrence_s",)
#: the chain of a substitution, seconds (device feature:
#: workbench.models.substitution_features)
SUBSTITUTION_FEATURES = ("f_substitution_s",)
#: L1 hit and miss shares of the requested load sectors, stack sectors, exp/log calls
#: (device features: workbench.models.reuse_stack_features)
REUSE_STACK_FEATURES = ("f_l1_load_hit_share", "f_l1_load_miss_share", "f_stack_sectors",
                        "f_op_float32_explog", "f_op_float64_explog")
#: DRAM sectors of a work item's second pass over data beyond L2, and the time the
#: bytes beyond L2 take at the measured DRAM bandwidth (device features:
#: workbench.models.reread_features)
REREAD_FEATURES = ("f_dram_reread_float32_sectors", "f_dram_reread_float64_sectors",
                   "f_dram_stream_s", "f_dram_peak_stream_s", "f_dram_inflight_s",
                   "f_dram_stencil_stream_s", "f_dram_neighbour_stream_s",
                   "f_dram_gather_stream_s", "f_dram_neighbour_gather_stream_s")

#: sectors of rows walked along one work item (lanes a sector apart), and calls of the
#: error function, and the walked loads' L1 wavefronts in seconds (device features:
#: workbench.models.row_walk_features)
ROW_WALK_FEATURES = ("f_walk_float32_load_sectors", "f_walk_float32_store_sectors",
                     "f_walk_float64_load_sectors", "f_walk_float64_store_sectors",
                     "f_op_float32_erfc", "f_op_float64_erfc", "f_l1_walk_s",
                     "f_l1_walk_held_s")

#: sectors a store writes in part and sectors a load reads alone, of the launch, and
#: the 128-byte lines of the partial sectors (round 15) (device features:
#: workbench.models.scattered_access_features)
SCATTER_FEATURES = ("f_partial_store_sectors", "f_isolated_load_sectors",
                    "f_partial_store_lines")

#: calls of exp, log and sqrt a sub-group, per precision (device features:
#: workbench.models.function_calls), priced apart from the other special functions
FUNCTION_CALL_FEATURES = tuple(f"f_op_{dt}_{fn}_calls" for dt in ("float32", "float64")
                               for fn in ("exp", "log", "sqrt", "sin", "cos", "tan", "atan2"))
#: calls of two of those functions in one kernel, the smaller count of the two (a
#: sub-group, per precision; device features: workbench.models.function_calls)
FUNCTION_MIX_FEATURES = tuple(f"f_op_{dt}_{pair}_mixes" for dt in ("float32", "float64")
                              for pair in ("exp_log", "exp_sqrt", "log_sqrt", "sin_cos"))

#: loads on the longest chain of dependent global loads beyond its root and one gather, a
#: sub-group, of the launch, by the last load's precision (round 16; device features:
#: workbench.models.dependent_loads)
DEPENDENT_LOAD_FEATURES = ("f_dependent_loads_float32", "f_dependent_loads_float64")

#: multiplications fused into an addition, a sub-group, per precision (device features:
#: workbench.models.fma_pairs)
FMA_FEATURES = ("f_op_float32_fma_pairs", "f_op_float64_fma_pairs")

#: additions and multiplications (less fused pairs) that compute global loads' addresses,
#: a sub-group, per precision (round 19; device features: workbench.models.address_arithmetic)
ADDRESS_ARITHMETIC_FEATURES = ("f_op_float32_address_add", "f_op_float32_address_mul",
                               "f_op_float64_address_add", "f_op_float64_address_mul")

#: the load sectors of the sector features that re-read, in the same work item, elements
#: it holds in registers, of the launch (round 20; device features:
#: workbench.models.held_rereads)
HELD_REREAD_FEATURES = ("f_held_reread_float32_load_sectors",
                        "f_held_reread_float64_load_sectors",
                        "f_held_reread_int32_load_sectors")

FeatureRef = StandardFeature | OutputFeature | AccessFilter | DeviceFeature | FootprintFeature

_ACCESS_FILTER = re.compile(
    r"f_mem_access"
    r"(?:_tag:(?P<tag>[A-Za-z0-9_]+?))?"
    r"(?:_(?P<mtype>global|local))?"
    rf"(?:_(?P<dtype>{'|'.join(_DTYPES)}))?"
    r"(?:_(?P<direction>load|store))?"
    r"(?:_lstrides:\{(?P<lstrides>[^{}]*)\})?"
    r"(?:_gstrides:\{(?P<gstrides>[^{}]*)\})?"
    r"(?:_afr:(?P<afr>[^_{}]+))?"
    r"(?:_(?P<bankpasses>bankpasses)|_(?P<sectors>sectors)|_(?P<dramsectors>dramsectors))?")

# a tag that contains one of these words swallowed a part that failed to parse
_GRAMMAR_WORD = re.compile(
    rf"(?:^|_)(?:global|local|load|store|{'|'.join(_DTYPES)}|lstrides|gstrides|afr|bankpasses|sectors|dramsectors)(?:_|$)")

_LOADED_TAG = re.compile(r"\w+\(value=['\"](?P<v>.*)['\"]\)")


def record_tags(record: AccessRecord) -> frozenset[str]:
    """The tag names of an access.

    loopy hands out ``a$aLD`` tags as ``LegacyStringInstructionTag`` objects whose
    string form is ``LegacyStringInstructionTag(value='aLD')``; both that form and a
    plain name are understood here, so the feature works whichever the extractor
    records.
    """
    out = set()
    for tag in record.tags:
        text = str(getattr(tag, "value", tag))
        m = _LOADED_TAG.fullmatch(text)
        out.add(m.group("v") if m else text)
    return frozenset(out)


def device_slug(device: str) -> str:
    """``'NVIDIA H100 80GB HBM3'`` -> ``'nvidia_h100_80gb_hbm3'``."""
    return re.sub(r"[^a-z0-9]+", "_", device.lower()).strip("_")


@functools.lru_cache(maxsize=1)
def known_feature_names() -> tuple[str, ...]:
    """Every standard name, the output and examples of each constrained form."""
    names = [f.name for f in (LocalBarriers(), ThreadGroups(), KernelLaunch())]
    for dt in ("float32", "float64"):
        names += [OpCount(dt, k).name for k in OpKind]
        for frac in StrideFraction.all():
            names += [GlobalAccess(dt, d, frac).name for d in Direction]
            names.append(GlobalMinLoadStore(dt, frac).name)
        names += [LocalAccess(dt, d).name for d in Direction]
        names += [f"f_mem_access_global_{dt}_{d.value}" for d in Direction]
        names += [f"f_mem_access_global_{dt}_{d.value}_lstrides:{{0:1}}_gstrides:{{}}"
                  f"_afr:{a}" for d in Direction for a in ("1", ">1")]
        names += [f"f_mem_access_global_{dt}_{d.value}_{s}" for d in Direction
                  for s in ("sectors", "dramsectors")]
    names += ["f_mem_access_tag:<tag>", OUTPUT_PREFIX, f"{OUTPUT_PREFIX}_<device>",
              TWIN_TIME, CU_BALANCE, FLOOR, "f_footprint_bytes", *OCCUPANCY_FEATURES,
              *VOLUME_FEATURES, *LOCAL_FEATURES, *RECURRENCE_FEATURES,
              *SUBSTITUTION_FEATURES, *REUSE_STACK_FEATURES, *REREAD_FEATURES,
              *ROW_WALK_FEATURES, *FUNCTION_CALL_FEATURES, *FUNCTION_MIX_FEATURES,
              *FMA_FEATURES, *SCATTER_FEATURES, *DEPENDENT_LOAD_FEATURES,
              *ADDRESS_ARITHMETIC_FEATURES, *HELD_REREAD_FEATURES]
    return tuple(names)


def _unknown(name: str) -> WorkbenchError:
    return UnknownModelNameError("feature", name, known_feature_names())


@functools.lru_cache(maxsize=1024)
def parse_feature_ref(name: str) -> FeatureRef:
    """The meaning of one ``f_`` name; unknown names raise with the closest known ones."""
    if name == OUTPUT_PREFIX or name.startswith(OUTPUT_PREFIX + "_"):
        device = name[len(OUTPUT_PREFIX) + 1:] or None
        if device is not None and not re.fullmatch(r"[a-z0-9_]+", device):
            raise ModelError(f"malformed output name {name!r}: the device part must be "
                             "lower-case letters, digits and '_'")
        return OutputFeature(name, device)
    if name in (TWIN_TIME, CU_BALANCE, FLOOR) or name in OCCUPANCY_FEATURES \
            or name in VOLUME_FEATURES or name in LOCAL_FEATURES \
            or name in RECURRENCE_FEATURES or name in SUBSTITUTION_FEATURES \
            or name in REUSE_STACK_FEATURES or name in REREAD_FEATURES \
            or name in ROW_WALK_FEATURES or name in FUNCTION_CALL_FEATURES \
            or name in FUNCTION_MIX_FEATURES or name in FMA_FEATURES \
            or name in SCATTER_FEATURES or name in DEPENDENT_LOAD_FEATURES \
            or name in ADDRESS_ARITHMETIC_FEATURES or name in HELD_REREAD_FEATURES:
        return DeviceFeature(name)
    if name == FOOTPRINT:
        return FootprintFeature()
    try:
        return StandardFeature(name, parse_feature(name))
    except UnknownNameError:
        pass
    if name.startswith("f_mem_access"):
        m = _ACCESS_FILTER.fullmatch(name)
        if m and m.group("tag") is not None and _GRAMMAR_WORD.search(m.group("tag")):
            m = None  # the rest after the tag did not parse; do not swallow it as a tag
        if m and any(m.group(g) is not None for g in m.groupdict()):
            where = repr(name)
            return AccessFilter(
                name=name, tag=m.group("tag"), mtype=m.group("mtype"),
                dtype=m.group("dtype"),
                direction=Direction(m.group("direction")) if m.group("direction") else None,
                lstrides=_parse_strides(m.group("lstrides") or "", where),
                gstrides=_parse_strides(m.group("gstrides") or "", where),
                afr=Constraint.parse(m.group("afr"), where)
                if m.group("afr") is not None else None,
                bank_passes=m.group("bankpasses") is not None,
                sectors=m.group("sectors") is not None,
                dram_sectors=m.group("dramsectors") is not None)
        if m is not None or ":" in name:
            raise ModelError(
                f"malformed memory-access feature {name!r}; expected "
                "f_mem_access[_tag:<tag>][_<global|local>][_<dtype>][_<load|store>]"
                "[_lstrides:{<axis>:<constraint>,...}][_gstrides:{...}][_afr:<constraint>][_bankpasses|_sectors|_dramsectors]"
                " with at least one part, in this order, e.g. "
                "f_mem_access_global_float32_load_lstrides:{0:1}_gstrides:{}_afr:>1")
    raise _unknown(name)

# }}}
