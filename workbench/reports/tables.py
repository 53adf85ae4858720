"""The paper's Table 1 (predicted vs actual per test kernel) and Table 2 (weights).

Everything here returns pandas objects; printing and files are the caller's business.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.models.base import FittedModel, geometric_mean, relative_errors


def predictions(model: FittedModel, data: pd.DataFrame) -> pd.DataFrame:
    """Every row with its prediction and relative error (times in seconds)."""
    out = data[["kernel", "variant", "dtype", "group_size", "params", "role",
                "time_s"]].copy()
    out["predicted_s"] = model.predict(data)
    out["rel_error"] = relative_errors(out["predicted_s"].to_numpy(),
                                       out["time_s"].to_numpy())
    return out


@dataclass(frozen=True)
class Table1:
    """Predicted vs actual (ms) per test kernel and size case, with geometric means."""

    cases: pd.DataFrame              # kernel, case, params, group_size, predicted_ms, ...
    per_kernel: pd.Series            # geometric mean relative error per kernel
    cross_kernel: float              # over every case of every test kernel

    def layout(self) -> pd.DataFrame:
        """The paper's layout: a kernel row with its geomean, then cases a., b., ..."""
        rows = []
        for kernel, group in self.cases.groupby("kernel", sort=False):
            rows.append({"kernel / case": kernel, "params": "", "group": "",
                         "predicted_ms": np.nan, "actual_ms": np.nan,
                         "rel_error": self.per_kernel[kernel]})
            for _, r in group.iterrows():
                rows.append({"kernel / case": f"  {r['case']}.", "params": r["params"],
                             "group": r["group_size"], "predicted_ms": r["predicted_ms"],
                             "actual_ms": r["actual_ms"], "rel_error": r["rel_error"]})
        rows.append({"kernel / case": "Cross-kernel geometric mean", "params": "",
                     "group": "", "predicted_ms": np.nan, "actual_ms": np.nan,
                     "rel_error": self.cross_kernel})
        return pd.DataFrame(rows)

    def to_json(self) -> dict:
        return {
            "cross_kernel_geomean_rel_error": self.cross_kernel,
            "per_kernel_geomean_rel_error": {k: float(v) for k, v in self.per_kernel.items()},
            "cases": self.cases.to_dict(orient="records"),
        }


def _params_sort_key(text: str) -> tuple:
    return tuple(int(part.split("=")[1]) for part in text.split(",") if "=" in part)


def table1(model: FittedModel, data: pd.DataFrame, *, group_workitems: int | None = 256
           ) -> Table1:
    """Test-kernel predictions; by default the 256-work-item groups the paper reports.

    Kernels without a 256-work-item measurement fall back to all their group sizes.
    """
    pred = predictions(model, data[data["role"] == "test"])
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
                         "params": r["params"], "group_size": r["group_size"],
                         "predicted_ms": r["predicted_s"] * 1e3,
                         "actual_ms": r["time_s"] * 1e3, "rel_error": r["rel_error"]})
    cases = pd.DataFrame(rows, columns=["kernel", "case", "variant", "params", "group_size",
                                        "predicted_ms", "actual_ms", "rel_error"])
    per_kernel = cases.groupby("kernel")["rel_error"].agg(geometric_mean) \
        if len(cases) else pd.Series(dtype=float)
    return Table1(cases, per_kernel, geometric_mean(cases["rel_error"]))


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
