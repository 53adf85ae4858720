"""Leave-one-kernel-out (LOKO) validation: how well a model predicts a kernel that no
fit has seen, when every other measured kernel informs the fit.

The paper's Table 1 fits on the measurement kernels and judges the test kernels.  LOKO
asks a sharper question of the same data: for each held-out kernel K (by default every
kernel whose role is not "measurement"), refit on *all* measurements except K's (the
measurement kernels and the other test kernels alike) and predict K's.  Each kernel's
result keeps, beside it, the Table 1 protocol's figure ("in sample": fitted on the
measurement kernels only), so that one can see what the extra training kernels buy.

Errors follow Table 1 (:func:`workbench.reports.table1`): the geometric mean of the
relative error per kernel, over its 256-work-item groups by default (over all its
groups when it has none), and the cross-kernel figure over every point of every
held-out kernel.  Refits skip the bootstrap: only the point estimates matter here.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ModelError, ParameterError, UnknownNameError
from workbench.kernels.base import KernelRole
from workbench.models.contract import FittedModel, geometric_mean
from workbench.models.expressions.feature_values import dataset_feature_values
from workbench.models.expressions.model import ExpressionModel, ExpressionModelSpec
from workbench.models.unified.linear import FAMILY as LINEAR_FAMILY
from workbench.models.unified.linear import DEFAULT_FIT, UnifiedLinearModel

PAPER_GROUP_WORKITEMS = 256
MEASUREMENT_ROLE = KernelRole.MEASUREMENT.value


class GroupSelection(enum.Enum):
    """Which of a held-out kernel's points are judged (all of them are held out)."""

    PAPER = "256"       # 256-work-item groups, as the paper's Table 1 reports
    ALL = "all"         # every group size

    @classmethod
    def parse(cls, value: GroupSelection | str) -> GroupSelection:
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value))
        except ValueError:
            raise ParameterError(f"unknown group selection {value!r}; use "
                                 + " or ".join(repr(g.value) for g in cls)) from None

    @property
    def description(self) -> str:
        return ("256-work-item groups" if self is GroupSelection.PAPER
                else "all group sizes")


@dataclass(frozen=True)
class LinearFit:
    """The unified linear model, with every weight >= 0 (the default fit) or free
    (``non_negative=False``, the paper's)."""

    non_negative: bool = DEFAULT_FIT.non_negative

    @property
    def label(self) -> str:
        return LINEAR_FAMILY + (" (non-negative)" if self.non_negative else "")

    def prepare(self, data: pd.DataFrame) -> pd.DataFrame:
        return data

    def fit(self, data: pd.DataFrame) -> FittedModel:
        return UnifiedLinearModel().fit(data, bootstrap=0, non_negative=self.non_negative)

    def undetermined(self, model, rows: pd.DataFrame) -> tuple[str, ...]:
        """Properties the rows have that the fit gave no weight (they count as 0)."""
        return tuple(model.missing_weights(rows))


@dataclass(frozen=True)
class ExpressionFit:
    """A model expression (family "expression"); ``name`` labels it in reports."""

    spec: ExpressionModelSpec
    name: str = ""

    def __post_init__(self):
        if not isinstance(self.spec, ExpressionModelSpec):
            raise ModelError("ExpressionFit needs an ExpressionModelSpec "
                             "(ExpressionModel().spec(text_or_file))")

    @property
    def label(self) -> str:
        return self.name or self.spec.model.text

    def prepare(self, data: pd.DataFrame) -> pd.DataFrame:
        """The data with every feature of the model as a column, computed once here
        rather than once per refit (footprint features are the costly ones)."""
        values = dataset_feature_values(data, self.spec.features,
                                        granularity=self.spec.granularity,
                                        subgroup_size=self.spec.subgroup_size)
        new = {k: v for k, v in values.items() if k not in data.columns}
        return data.assign(**new) if new else data

    def fit(self, data: pd.DataFrame) -> FittedModel:
        return ExpressionModel().fit(data, model=self.spec)

    def undetermined(self, model, rows: pd.DataFrame) -> tuple[str, ...]:
        """Parameters no training row informs (left at their initial values)."""
        return tuple(model.unexercised)


def held_expression(spec: ExpressionModelSpec, values: Mapping[str, float]
                    ) -> ExpressionModelSpec:
    """``spec`` with the parameters of ``values`` written into its text as constants (so a
    fit leaves them where they are); their bounds and initial values go with them."""
    unknown = sorted(set(values) - set(spec.model.parameters))
    if unknown:
        raise UnknownNameError("parameter (to hold)", unknown[0], spec.model.parameters)
    text = spec.model.text
    for name, value in values.items():
        # repr keeps every digit; the word boundary keeps p_add from matching p_add_f64
        text = re.sub(rf"\b{re.escape(name)}\b", f"({float(value)!r})", text)
    return ExpressionModelSpec.create(
        text, granularity=spec.granularity, subgroup_size=spec.subgroup_size,
        bounds={k: v for k, v in spec.bounds.items() if k not in values},
        initial={k: v for k, v in spec.initial.items() if k not in values})


@dataclass(frozen=True)
class AnchoredExpressionFit:
    """A model expression some of whose weights (``held``) are not fitted with it but
    taken from another expression's fit (``anchor``) on the same training rows, then held
    while the rest is fitted.  A leave-one-kernel-out fold thus takes the held weights
    from the anchor's fit without the held-out kernel, as the shipped fit takes them from
    the anchor's fit on every row: no held-out kernel informs them (issue #34, round 23:
    chains47 holds chains38's launch, group and wave weights)."""

    spec: ExpressionModelSpec
    anchor: ExpressionModelSpec
    held: tuple[str, ...]
    name: str = ""

    def __post_init__(self):
        for which in (self.spec, self.anchor):
            if not isinstance(which, ExpressionModelSpec):
                raise ModelError("AnchoredExpressionFit needs ExpressionModelSpecs "
                                 "(ExpressionModel().spec(text_or_file))")
        for name in self.held:
            for which, label in ((self.spec, "model"), (self.anchor, "anchor")):
                if name not in which.model.parameters:
                    raise UnknownNameError(f"parameter (held, of the {label})", name,
                                           which.model.parameters)

    @property
    def label(self) -> str:
        return self.name or self.spec.model.text

    def prepare(self, data: pd.DataFrame) -> pd.DataFrame:
        data = ExpressionFit(self.anchor).prepare(data)
        return ExpressionFit(self.spec).prepare(data)

    def fit(self, data: pd.DataFrame) -> FittedModel:
        anchor = ExpressionModel().fit(data, model=self.anchor)
        if set(self.held) == set(self.spec.model.parameters):
            # every weight held: nothing is left to fit, the anchor's fit carries this
            # expression (chains48: chains46's expression at chains38's fit)
            return dataclasses.replace(anchor, spec=self.spec)
        values = {name: anchor.parameters[name] for name in self.held}
        return ExpressionModel().fit(data, model=held_expression(self.spec, values))

    def undetermined(self, model, rows: pd.DataFrame) -> tuple[str, ...]:
        return tuple(model.unexercised)


ValidationFit = LinearFit | ExpressionFit | AnchoredExpressionFit


@dataclass(frozen=True)
class PointPrediction:
    """One judged measurement of a held-out kernel and its two predictions."""

    kernel: str
    variant: str
    params: str
    group_size: str
    measured_s: float
    loko_predicted_s: float
    in_sample_predicted_s: float

    @property
    def loko_rel_error(self) -> float:
        return abs(self.loko_predicted_s - self.measured_s) / self.measured_s

    @property
    def in_sample_rel_error(self) -> float:
        return abs(self.in_sample_predicted_s - self.measured_s) / self.measured_s

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "variant": self.variant, "params": self.params,
                "group_size": self.group_size, "measured_s": self.measured_s,
                "loko_predicted_s": self.loko_predicted_s,
                "in_sample_predicted_s": self.in_sample_predicted_s,
                "loko_rel_error": self.loko_rel_error,
                "in_sample_rel_error": self.in_sample_rel_error}


@dataclass(frozen=True)
class KernelValidation:
    """One held-out kernel: its LOKO and in-sample (Table 1 protocol) errors."""

    kernel: str
    role: str
    points: tuple[PointPrediction, ...]     # the judged points (see GroupSelection)
    n_training: int                         # rows of the LOKO fit
    rank_deficient: bool                    # the LOKO fit's
    undetermined: tuple[str, ...]           # see LinearFit/ExpressionFit.undetermined

    @property
    def n_points(self) -> int:
        return len(self.points)

    @property
    def loko_geomean_rel_error(self) -> float:
        return geometric_mean([p.loko_rel_error for p in self.points])

    @property
    def in_sample_geomean_rel_error(self) -> float:
        return geometric_mean([p.in_sample_rel_error for p in self.points])

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "role": self.role, "n_points": self.n_points,
                "loko_geomean_rel_error": self.loko_geomean_rel_error,
                "in_sample_geomean_rel_error": self.in_sample_geomean_rel_error,
                "n_training": self.n_training, "rank_deficient": self.rank_deficient,
                "undetermined": list(self.undetermined),
                "points": [p.to_json() for p in self.points]}


@dataclass(frozen=True)
class LokoReport:
    """Per held-out kernel results (``kernels``, by name) and cross-kernel figures."""

    model: str
    groups: GroupSelection
    kernels: Mapping[str, KernelValidation]
    n_rows: int                             # measurements in the data
    n_in_sample_training: int               # rows of the measurement-kernel fit

    def __getitem__(self, kernel: str) -> KernelValidation:
        try:
            return self.kernels[kernel]
        except KeyError:
            raise UnknownNameError("held-out kernel", kernel, self.kernels) from None

    @property
    def points(self) -> tuple[PointPrediction, ...]:
        return tuple(p for k in self.kernels.values() for p in k.points)

    @property
    def cross_kernel_loko(self) -> float:
        """Over every judged point of every held-out kernel, as Table 1's figure."""
        return geometric_mean([p.loko_rel_error for p in self.points])

    @property
    def cross_kernel_in_sample(self) -> float:
        return geometric_mean([p.in_sample_rel_error for p in self.points])

    def frame(self) -> pd.DataFrame:
        """One row per held-out kernel, then the cross-kernel row."""
        rows = [{"kernel": k.kernel, "points": k.n_points,
                 "in_sample_geomean_rel_error": k.in_sample_geomean_rel_error,
                 "loko_geomean_rel_error": k.loko_geomean_rel_error,
                 "loko_training_rows": k.n_training,
                 "undetermined": ", ".join(k.undetermined)}
                for k in self.kernels.values()]
        rows.append({"kernel": "cross-kernel", "points": len(self.points),
                     "in_sample_geomean_rel_error": self.cross_kernel_in_sample,
                     "loko_geomean_rel_error": self.cross_kernel_loko,
                     "loko_training_rows": np.nan, "undetermined": ""})
        return pd.DataFrame(rows)

    def to_json(self) -> dict:
        return {"model": self.model, "groups": self.groups.value, "n_rows": self.n_rows,
                "n_in_sample_training": self.n_in_sample_training,
                "cross_kernel_loko_geomean_rel_error": self.cross_kernel_loko,
                "cross_kernel_in_sample_geomean_rel_error": self.cross_kernel_in_sample,
                "kernels": {name: k.to_json() for name, k in self.kernels.items()}}


def default_held_out(data: pd.DataFrame) -> list[str]:
    """Every kernel of the data whose role is not "measurement" (the test kernels)."""
    return sorted(set(data.loc[data["role"] != MEASUREMENT_ROLE, "kernel"]))


def judged_rows(rows: pd.DataFrame, groups: GroupSelection) -> pd.DataFrame:
    """One kernel's rows that count, by Table 1's rule (no 256-item group: all)."""
    if groups is GroupSelection.ALL:
        return rows
    items = rows["group_size"].map(lambda g: int(np.prod([int(s) for s in str(g).split("x")])))
    chosen = rows[(items == PAPER_GROUP_WORKITEMS).to_numpy()]
    return chosen if len(chosen) else rows


def _check(data: pd.DataFrame) -> None:
    lacking = [c for c in ("kernel", "variant", "group_size", "params", "role", "time_s")
               if c not in data.columns]
    if lacking:
        raise ModelError(f"the data has no column(s) {', '.join(lacking)}; build it with "
                         "workbench.models.build_dataset")
    t = data["time_s"].to_numpy(dtype=float)
    if not np.all(np.isfinite(t) & (t > 0)):
        raise ModelError("every measured time must be positive to judge relative errors")


def leave_one_kernel_out(data: pd.DataFrame, fit: ValidationFit, *,
                         held_out: Sequence[str] | None = None,
                         groups: GroupSelection | str = GroupSelection.PAPER
                         ) -> LokoReport:
    """Refit ``fit`` once per held-out kernel without that kernel's rows, and once on
    the measurement kernels (the in-sample counterpart); see the module docstring.

    ``data`` is a dataset (:func:`workbench.models.build_dataset`), built at the
    model's granularity for an expression; ``held_out`` defaults to
    :func:`default_held_out`.
    """
    if not isinstance(fit, (LinearFit, ExpressionFit, AnchoredExpressionFit)):
        raise ModelError(f"cannot validate {type(fit).__name__}: give a LinearFit, an "
                         "ExpressionFit or an AnchoredExpressionFit")
    groups = GroupSelection.parse(groups)
    _check(data)
    known = sorted(set(data["kernel"]))
    kernels = sorted(set(held_out)) if held_out is not None else default_held_out(data)
    for name in kernels:
        if name not in known:
            raise UnknownNameError("kernel (to hold out)", name, known)
    if not kernels:
        raise ModelError("no kernel to hold out: the data holds measurement kernels only; "
                         "name the kernels to hold out")
    data = fit.prepare(data.reset_index(drop=True))
    in_sample = fit.fit(data)
    results = {}
    for name in kernels:
        mine = (data["kernel"] == name).to_numpy()
        # every other kernel trains, whatever its role
        train = data[~mine].assign(role=MEASUREMENT_ROLE)
        if not len(train):
            raise ModelError(f"holding out {name} leaves nothing to fit on")
        loko = fit.fit(train)
        rows = judged_rows(data[mine], groups)
        loko_pred = loko.predict(rows)
        base_pred = in_sample.predict(rows)
        points = tuple(
            PointPrediction(kernel=name, variant=str(r.variant), params=str(r.params),
                            group_size=str(r.group_size), measured_s=float(r.time_s),
                            loko_predicted_s=float(lp), in_sample_predicted_s=float(bp))
            for r, lp, bp in zip(rows[["variant", "params", "group_size", "time_s"]]
                                 .itertuples(index=False), loko_pred, base_pred))
        stats = loko.report_data()["fit"]
        results[name] = KernelValidation(
            kernel=name, role=str(rows["role"].iloc[0]), points=points,
            n_training=int(stats.get("n_measurements", len(train))),
            rank_deficient=bool(stats.get("rank_deficient", False)),
            undetermined=fit.undetermined(loko, data[mine]))
    n_base = int(in_sample.report_data()["fit"].get(
        "n_measurements", int((data["role"] == MEASUREMENT_ROLE).sum())))
    return LokoReport(model=fit.label, groups=groups,
                      kernels=types.MappingProxyType(results), n_rows=len(data),
                      n_in_sample_training=n_base)


__all__ = ["AnchoredExpressionFit", "ExpressionFit", "GroupSelection", "KernelValidation",
           "LinearFit", "LokoReport", "PointPrediction", "ValidationFit", "default_held_out",
           "held_expression", "judged_rows", "leave_one_kernel_out"]
