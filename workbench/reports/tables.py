"""The paper's Table 1 (predicted vs actual per test kernel) and Table 2 (weights).

Everything here returns pandas objects; printing and files are the caller's business.
"""

from __future__ import annotations

import operator
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ParameterError
from workbench.models.contract import FittedModel, geometric_mean, relative_errors


def predictions(model: FittedModel, data: pd.DataFrame, *,
                floors: bool = True) -> pd.DataFrame:
    """Every row with its prediction and relative error (times in seconds).

    With ``floors`` (the default), a prediction below the row's physical floor on the
    model's device is lifted to it, as :func:`workbench.models.prediction.predict` does,
    so that a table reports what ``predict`` says; ``model_s`` keeps the model's own time.
    """
    out = data[["kernel", "variant", "dtype", "group_size", "params", "role",
                "time_s"]].copy()
    raw = np.asarray(model.predict(data), dtype=float)
    out["model_s"] = raw
    if floors and len(data):
        from workbench.models.floors import model_row_floors

        floor = model_row_floors(model, data, raw)
        # only where a floor is known, as predict: a negative time stays what it is
        raw = np.where(np.isfinite(raw) & (floor > 0), np.maximum(raw, floor), raw)
    out["predicted_s"] = raw
    out["rel_error"] = relative_errors(out["predicted_s"].to_numpy(),
                                       out["time_s"].to_numpy())
    return out


#: the columns of :meth:`Table1.layout`
LAYOUT_COLUMNS = ("kernel / case", "variant", "dtype", "params", "group", "predicted_ms",
                  "actual_ms", "rel_error")


@dataclass(frozen=True)
class Table1:
    """Predicted vs actual (ms) per test kernel and size case, with geometric means."""

    cases: pd.DataFrame              # kernel, case, params, group_size, predicted_ms, ...
    per_kernel: pd.Series            # geometric mean relative error per kernel
    cross_kernel: float              # over every case of every test kernel
    # per precision, over every case in it (one entry when the data has one precision)
    per_dtype: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))

    @property
    def lifted(self) -> int:
        """How many cases a physical floor lifted above the model's own time."""
        if "model_ms" not in self.cases:
            return 0
        return int((self.cases["predicted_ms"] > self.cases["model_ms"]).sum())

    def layout(self) -> pd.DataFrame:
        """The paper's layout: a kernel row with its geomean, then cases a., b., ...;
        every case shows what sets it apart from its neighbours (variant, precision,
        sizes, group), so that two cases never look alike."""
        blank = {"variant": "", "dtype": "", "params": "", "group": "",
                 "predicted_ms": np.nan, "actual_ms": np.nan}
        rows = []
        for kernel, group in self.cases.groupby("kernel", sort=False):
            rows.append({"kernel / case": kernel, **blank,
                         "rel_error": self.per_kernel[kernel]})
            for _, r in group.iterrows():
                rows.append({"kernel / case": f"  {r['case']}.", "variant": r["variant"],
                             "dtype": r["dtype"], "params": r["params"],
                             "group": r["group_size"], "predicted_ms": r["predicted_ms"],
                             "actual_ms": r["actual_ms"], "rel_error": r["rel_error"]})
        if len(self.per_dtype) > 1:
            for dtype, value in self.per_dtype.items():
                rows.append({"kernel / case": f"Geometric mean, {dtype}", **blank,
                             "rel_error": value})
        rows.append({"kernel / case": "Cross-kernel geometric mean", **blank,
                     "rel_error": self.cross_kernel})
        return pd.DataFrame(rows, columns=list(LAYOUT_COLUMNS))

    def to_json(self) -> dict:
        return {
            "cross_kernel_geomean_rel_error": self.cross_kernel,
            "per_kernel_geomean_rel_error": {k: float(v) for k, v in self.per_kernel.items()},
            "per_dtype_geomean_rel_error": {k: float(v) for k, v in self.per_dtype.items()},
            "lifted_to_floor": self.lifted,
            "cases": self.cases.to_dict(orient="records"),
        }


def _params_sort_key(text: str) -> tuple:
    return tuple(int(part.split("=")[1]) for part in text.split(",") if "=" in part)


def table1(model: FittedModel, data: pd.DataFrame, *, group_workitems: int | None = 256,
           role: str = "test", floors: bool = True) -> Table1:
    """Test-kernel predictions; by default the 256-work-item groups the paper reports.

    Kernels without a 256-work-item measurement fall back to all their group sizes.
    ``role="unseen"`` gives the same table for the kernels kept apart from every fit.
    With both precisions in the data, a kernel's float32 and float64 cases are two
    entries (``finite_diff (float64)``), since they are different programs to the GPU.
    """
    pred = predictions(model, data[data["role"] == role], floors=floors)
    if pred["dtype"].nunique() > 1:
        pred["kernel"] = pred["kernel"] + " (" + pred["dtype"] + ")"
    if group_workitems is not None:
        sizes = pred["group_size"].map(lambda g: int(np.prod([int(s) for s in g.split("x")])))
        chosen = pred[sizes == group_workitems]
        missing = set(pred["kernel"]) - set(chosen["kernel"])
        pred = pd.concat([chosen, pred[pred["kernel"].isin(missing)]])
    rows = []
    for kernel, group in pred.groupby("kernel", sort=True):
        group = group.assign(
            _k=group["params"].map(_params_sort_key),
            _g=group["group_size"].map(lambda g: tuple(int(s) for s in g.split("x")))
        ).sort_values(["_k", "_g"])
        for i, (_, r) in enumerate(group.iterrows()):
            rows.append({"kernel": kernel, "case": _case_label(i), "variant": r["variant"],
                         "dtype": r["dtype"],
                         "params": r["params"], "group_size": r["group_size"],
                         "predicted_ms": r["predicted_s"] * 1e3,
                         "actual_ms": r["time_s"] * 1e3, "rel_error": r["rel_error"],
                         "model_ms": r["model_s"] * 1e3})
    cases = pd.DataFrame(rows, columns=["kernel", "case", "variant", "dtype", "params",
                                        "group_size", "predicted_ms", "actual_ms",
                                        "rel_error", "model_ms"])
    per_kernel = cases.groupby("kernel")["rel_error"].agg(geometric_mean) \
        if len(cases) else pd.Series(dtype=float)
    per_dtype = cases.groupby("dtype")["rel_error"].agg(geometric_mean) \
        if len(cases) else pd.Series(dtype=float)
    return Table1(cases, per_kernel, geometric_mean(cases["rel_error"]), per_dtype)


def _case_label(i: int) -> str:
    letters = string.ascii_lowercase
    return letters[i] if i < 26 else f"{letters[i // 26 - 1]}{letters[i % 26]}"


def table2(model: FittedModel) -> pd.DataFrame:
    """Weights in seconds per operation, with their bootstrap confidence intervals."""
    return model.report_data()["parameters"]


def to_markdown(frame: pd.DataFrame, float_format: str = "{:.4g}") -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    def cell(v) -> str:
        if isinstance(v, float):
            return "" if np.isnan(v) else float_format.format(v)
        return str(v).replace("|", "\\|")
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


# -- exploring predictions (the UI's explorer and weights panels) ---------------------

_SIZE_CONDITION = re.compile(r"\s*([A-Za-z_]\w*)\s*(<=|>=|==|=|<|>)\s*(-?\d+)\s*")
_COMPARE = {"=": operator.eq, "==": operator.eq, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class SizeCondition:
    """``n>=1024``: a bound on one size parameter of a configuration."""

    parameter: str
    operator: str
    value: int

    def __post_init__(self):
        if self.operator not in _COMPARE:
            raise ParameterError(f"unknown comparison {self.operator!r}; use one of "
                                 + " ".join(_COMPARE))

    def holds(self, params: Mapping[str, int]) -> bool:
        """False where the configuration has no such parameter."""
        value = params.get(self.parameter)
        return value is not None and _COMPARE[self.operator](value, self.value)

    def __str__(self) -> str:
        return f"{self.parameter}{self.operator}{self.value}"


def parse_size_conditions(text: str) -> tuple[SizeCondition, ...]:
    """``"n>=1024, m=512"`` -> two conditions; empty text -> none."""
    conditions = []
    for part in (p for p in text.split(",") if p.strip()):
        m = _SIZE_CONDITION.fullmatch(part)
        if not m:
            raise ParameterError(f"malformed size filter {part.strip()!r}: expected "
                                 "NAME OP INTEGER with OP one of = < <= > >=, e.g. n>=1024")
        conditions.append(SizeCondition(m.group(1), m.group(2), int(m.group(3))))
    return tuple(conditions)


def params_dict(text: str) -> dict[str, int]:
    """The ``params`` column of a dataset (``"n=512,m=64"``) as a dict."""
    return {name: int(value) for name, _, value in
            (part.partition("=") for part in text.split(",") if "=" in part)}


def filter_predictions(pred: pd.DataFrame, *, kernels: Sequence[str] = (),
                       group_sizes: Sequence[str] = (), roles: Sequence[str] = (),
                       sizes: str | Sequence[SizeCondition] = ()) -> pd.DataFrame:
    """Rows of :func:`predictions` (or of a dataset) that pass every filter given.

    An empty filter keeps everything; ``sizes`` is text such as ``"n>=1024"`` or
    parsed :class:`SizeCondition`s, which a row must all satisfy.
    """
    conditions = parse_size_conditions(sizes) if isinstance(sizes, str) else tuple(sizes)
    keep = np.ones(len(pred), dtype=bool)
    if kernels:
        keep &= pred["kernel"].isin(list(kernels)).to_numpy()
    if group_sizes:
        keep &= pred["group_size"].isin(list(group_sizes)).to_numpy()
    if roles:
        keep &= pred["role"].isin(list(roles)).to_numpy()
    if conditions:
        keep &= np.array([all(c.holds(params_dict(p)) for c in conditions)
                          for p in pred["params"]], dtype=bool)
    return pred[keep]


def worst_predictions(pred: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` rows of :func:`predictions` with the largest relative error, worst
    first, with times in milliseconds and the signed error (positive: over-predicted)."""
    if n < 0:
        raise ParameterError(f"the number of worst predictions must be >= 0, got {n}")
    rows = pred[np.isfinite(pred["rel_error"].to_numpy(dtype=float))]
    rows = rows.sort_values("rel_error", ascending=False, kind="stable").head(n)
    # what tells two rows apart: variant, precision, sizes and group
    shown = [c for c in ("kernel", "variant", "dtype", "params", "group_size", "role")
             if c in rows.columns]
    out = rows[shown].copy()
    out["measured_ms"] = rows["time_s"] * 1e3
    out["predicted_ms"] = rows["predicted_s"] * 1e3
    out["rel_error"] = rows["rel_error"]
    out["signed_error"] = (rows["predicted_s"] - rows["time_s"]) / rows["time_s"]
    return out.reset_index(drop=True)


def compare_weights(models: Mapping[str, FittedModel]) -> pd.DataFrame:
    """Fitted weights (or expression parameters) of several models, one row per model
    and property: ``model, property, label, value, ci_low, ci_high``.

    Models are keyed by a label of the caller's choice, e.g. the device name, so
    that the same property of two devices can be read side by side.
    """
    frames = []
    for label, model in models.items():
        params = model.report_data()["parameters"]
        value = "weight_s_per_op" if "weight_s_per_op" in params else "value"
        frame = pd.DataFrame({
            "model": label, "property": params["property"],
            "label": params["label"] if "label" in params else params["property"],
            "value": params[value].astype(float),
            "ci_low": params["ci_low"].astype(float),
            "ci_high": params["ci_high"].astype(float)})
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["model", "property", "label", "value", "ci_low",
                                     "ci_high"])
    return pd.concat(frames, ignore_index=True)
