"""Table 1 of the linear model fitted both ways: plain least squares (the paper's) and
with every weight bounded below by zero (the workbench's default).

``workbench report --compare-fits`` prints it; the shipped H100 figures are in
``sample_data/h100/fit-comparison.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.models.unified.linear import FitMethod, FittedLinearModel, UnifiedLinearModel
from workbench.reports.tables import Table1, predictions, table1

METHODS = (FitMethod.PLAIN, FitMethod.NON_NEGATIVE)


@dataclass(frozen=True)
class FitComparison:
    """One fit per method on the same rows, with Table 1 of each (test kernels and,
    where the data has them, unseen kernels)."""

    models: dict[FitMethod, FittedLinearModel]
    tables: dict[FitMethod, Table1]
    unseen: dict[FitMethod, Table1]
    negative_predictions: dict[FitMethod, int]   # rows of any role predicted below 0
    rows: int

    def frame(self) -> pd.DataFrame:
        """Rows: each test kernel, each precision (when there are two), the cross-kernel
        geomean, then the unseen kernels' cross-kernel geomean, the number of weights
        below zero and of rows predicted below zero; a column per method."""
        out: dict[str, dict[str, object]] = {}

        def put(row: str, method: FitMethod, value) -> None:
            out.setdefault(row, {})[method.value] = value

        for method in METHODS:
            t = self.tables[method]
            for kernel, value in t.per_kernel.items():
                put(kernel, method, float(value))
            if len(t.per_dtype) > 1:
                for dtype, value in t.per_dtype.items():
                    put(f"test kernels, {dtype}", method, float(value))
            put("test kernels, cross-kernel", method, float(t.cross_kernel))
            if method in self.unseen:
                u = self.unseen[method]
                if len(u.per_dtype) > 1:
                    for dtype, value in u.per_dtype.items():
                        put(f"unseen kernels, {dtype}", method, float(value))
                put("unseen kernels, cross-kernel", method, float(u.cross_kernel))
            model = self.models[method]
            put("training (measurement kernels)", method,
                float(model.fit_stats["training_geomean_rel_error"]))
            put("weights below zero", method,
                f"{sum(w < 0 for w in model.weights.values())} of {len(model.weights)}")
            put("rows predicted below zero", method,
                f"{self.negative_predictions[method]} of {self.rows}")
        return pd.DataFrame([{"row": row, **values} for row, values in out.items()])

    def to_json(self) -> dict:
        return {m.value: {"test": self.tables[m].to_json(),
                          **({"unseen": self.unseen[m].to_json()} if m in self.unseen
                             else {}),
                          "weights": self.models[m].weights,
                          "fit": self.models[m].fit_stats,
                          "negative_predictions": self.negative_predictions[m]}
                for m in METHODS} | {"rows": self.rows}


def compare_fits(data: pd.DataFrame, *, group_workitems: int | None = 256,
                 device: dict | None = None, provenance: dict | None = None
                 ) -> FitComparison:
    """Fit the unified linear model on ``data``'s measurement rows both ways (no
    bootstrap) and tabulate each; raises :class:`ModelError` when it cannot fit."""
    if not len(data):
        raise ModelError("no measurements to fit on")
    models, tables, unseen, negative = {}, {}, {}, {}
    for method in METHODS:
        model = UnifiedLinearModel().fit(data, bootstrap=0, device=device,
                                         provenance=provenance,
                                         non_negative=method.non_negative)
        models[method] = model
        tables[method] = table1(model, data, group_workitems=group_workitems)
        if (data["role"] == "unseen").any():
            unseen[method] = table1(model, data, group_workitems=group_workitems,
                                    role="unseen")
        negative[method] = int(np.sum(predictions(model, data, floors=False)["predicted_s"]
                                      < 0))
    return FitComparison(models, tables, unseen, negative, len(data))
