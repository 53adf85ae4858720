"""The IR features of a tuning space's points, one row per point.

A space with templates (:mod:`workbench.kernels.space`) is read once per structure:
the template's features are symbolic in the point's numbers, and one vectorized
evaluation gives every point of that structure.  A point's kernel is its template
with the numbers fixed, so its loops and guards are those code generation keeps for
them.  A space that only builds kernels point by point has each point's kernel read
on its own, at loopy's cost.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.kernels.space import Point, TuningSpace
from workbench.models.ir_features.extract import symbolic_ir_features
from workbench.models.ir_features.features import FEATURE_ORDER


def _values(space: TuningSpace, point: Point, accepted) -> dict[str, int]:
    """The point's sizes and numbers that its kernel (or template) takes."""
    numbers = dict(space.problem)
    if space.template is not None:
        numbers.update(space.bindings(point))
    return {k: v for k, v in numbers.items() if k in accepted}


def space_ir_features(space: TuningSpace, points: Sequence[Point] | None = None
                      ) -> pd.DataFrame:
    """The IR features of ``points`` (default: every valid point) of ``space``.

    One row per point, indexed by its label; one float column per
    :class:`~workbench.models.ir_features.features.IRFeature` (named by its value),
    in Table 1's order.
    """
    points = list(points if points is not None else space.points())
    table = np.empty((len(points), len(FEATURE_ORDER)))
    if space.template is not None:
        by_structure: dict[tuple, list[int]] = defaultdict(list)
        for i, point in enumerate(points):
            by_structure[space.structure_of(point)].append(i)
        for structure, rows in by_structure.items():
            template = space.template_for(structure)
            features = symbolic_ir_features(template.kernel)
            bound = [_values(space, points[i], features.accepted) for i in rows]
            params = {name: np.array([b[name] for b in bound])
                      for name in features.parameters if name in bound[0]}
            # a point's kernel is its template with the numbers fixed
            values = features.evaluate(params, fixed=template.symbols)
            table[rows] = np.column_stack([np.broadcast_to(values[f], (len(rows),))
                                           for f in FEATURE_ORDER])
    else:
        for i, point in enumerate(points):
            features = symbolic_ir_features(space.build(point))
            table[i] = features.vector(_values(space, point, features.accepted)).as_array()
    return pd.DataFrame(table, columns=[f.value for f in FEATURE_ORDER],
                        index=pd.Index([p.label for p in points], name="point"))
