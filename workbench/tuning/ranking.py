"""Ranking a whole search space with a model, at a cost far below measuring it.

Measuring a loopy variant on a GPU costs about half a second (code generation,
OpenCL build, runs); extracting its properties one variant at a time costs a third
of that, so ranking variant by variant saves little.  Here the work is done once per
*structure* of the space:

* **count-based models** (``unified-linear``, ``expression``): the space's template
  of each structure keeps the point's numbers symbolic
  (:mod:`workbench.kernels.tunable.common`); loopy counts it once and the counts are
  evaluated for every point at once, vectorized.  Counting per sub-group needs the
  work-group shape as numbers, so a sub-group model counts once per structure and
  group shape.  AFR constraints need array footprints, which ISL cannot count from a
  template's products of numbers: every point computes the same result, so one
  point's footprint per structure stands for all;
* **the roofline**: the template's access model (:mod:`workbench.properties.accesses`)
  is read once per structure and bound to each point's numbers; the volume estimate
  itself is per point;
* a model that ranks a whole space itself (``model.rank_space(space, points)``, the
  ``tiling`` family's vectorized T_alg of a time-tiled space): that;
* any other model, or a space without templates: one candidate per point.

The result is a :class:`~workbench.models.contract.Ranking` whose ``seconds`` is the
whole cost, extraction included.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence

import loopy as lp
import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.kernels.user import spec_from_loopy
from workbench.models.contract import Ranking, make_ranking
from workbench.properties import Granularity, extract_properties
from workbench.tuning.space import Point, TuningSpace

#: Template numbers that are a work group's extents, per hardware axis.
GROUP_SYMBOLS = ("L0", "L1", "L2")


def point_candidate(space: TuningSpace, point: Point) -> Candidate:
    """A point as a candidate (its concrete kernel wrapped as a spec)."""
    spec = spec_from_loopy(space.build(point), name=f"{space.name}[{point.label}]")
    return Candidate(spec, "default", spec.fixed_group_size, (), space.dtype)


def _frame(space: TuningSpace, points: Sequence[Point], values: dict) -> pd.DataFrame:
    frame = pd.DataFrame({k: np.asarray(v, dtype=np.float64) for k, v in values.items()})
    frame.insert(0, "kernel", space.name)
    frame.insert(1, "variant", [p.label for p in points])
    frame.insert(2, "dtype", space.dtype)
    frame.insert(3, "group_size", [space.key_group_size(p) for p in points])
    frame.insert(4, "params", "")
    frame.insert(5, "role", "test")
    return frame


def _count_groups(space: TuningSpace, points: Sequence[Point], by_group_shape: bool):
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, p in enumerate(points):
        key = space.structure_of(p)
        if by_group_shape:
            key = (key, space.group_size(p))
        groups[key].append(i)
    return groups


def _count_model_predictions(model, space: TuningSpace, points: Sequence[Point]
                             ) -> np.ndarray:
    from workbench.models.expressions.feature_values import build_feature_values
    from workbench.models.expressions.features import (
        AccessFilter,
        StandardFeature,
        parse_feature_ref,
    )
    from workbench.properties.features import parse_feature

    granularity = Granularity(getattr(model, "granularity", "workitem"))
    subgroup = granularity is Granularity.SUBGROUP
    if hasattr(model, "weights"):
        refs = [StandardFeature(n, parse_feature(n)) for n in model.weights]
    else:
        refs = [parse_feature_ref(n) for n in model.features]
    needs_afr = any(isinstance(r, AccessFilter) and r.afr is not None for r in refs)
    predicted = np.full(len(points), np.nan)
    workitem_props: dict[tuple, object] = {}
    for key, idx in _count_groups(space, points, subgroup).items():
        members = [points[i] for i in idx]
        structure = space.structure_of(members[0])
        template = space.template_for(structure)
        bound = [space.bindings(p) for p in members]
        if structure not in workitem_props:
            # work-item counts, symbolic in every number: once per structure
            workitem = extract_properties(template.kernel)
            if needs_afr:
                example = extract_properties(space.build(members[0]))
                for array in workitem.access_model.arrays:
                    workitem.assume_footprint(example.footprint(array))
            workitem_props[structure] = workitem
        workitem = workitem_props[structure]
        if subgroup:   # sub-group counts need the group shape as numbers
            kernel = lp.fix_parameters(template.kernel, **{
                s: bound[0][s] for s in GROUP_SYMBOLS if s in template.symbols})
            props = extract_properties(kernel, granularity=granularity,
                                       subgroup_size=getattr(model, "subgroup_size", None))
        else:
            props = workitem
        names = set(props.parameters) | set(workitem.parameters)
        params = {s: np.array([b[s] for b in bound]) for s in names}
        values = build_feature_values(props, refs, params, workitem_props=workitem)
        frame = _frame(space, members, values)
        predicted[idx] = model.predict(frame) if not hasattr(model, "evaluate") \
            else model.evaluate({k: frame[k].to_numpy() for k in values})
    return predicted


def _roofline_predictions(model, space: TuningSpace, points: Sequence[Point]
                          ) -> tuple[np.ndarray, list[str | None]]:
    from workbench.models.roofline.limiters import predict_block
    from workbench.properties.accesses import kernel_accesses
    from workbench.properties.counting import prepare

    predicted = np.full(len(points), np.nan)
    errors: list[str | None] = [None] * len(points)
    for key, idx in _count_groups(space, points, False).items():
        template = space.template_for(space.structure_of(points[idx[0]]))
        accesses = kernel_accesses(prepare(template.kernel))
        for i in idx:
            try:
                predicted[i] = predict_block(accesses, space.bindings(points[i]), None,
                                             model.device_model, **model.options).time
            except (ValueError, ModelError) as err:
                errors[i] = f"{type(err).__name__}: {err}"
    return predicted, errors


def rank_space(model, space: TuningSpace, points: Sequence[Point] | None = None
               ) -> Ranking:
    """The points (default: all) ranked by ``model``, fastest first, with its cost."""
    if callable(getattr(model, "rank_space", None)):
        return model.rank_space(space, points)
    if space.sequence is not None:
        # one kernel's prediction is not a sequence's, and without a template every
        # point would be built and counted: refuse rather than rank slowly and wrongly
        raise ModelError(f"model {getattr(model, 'family', 'model')!r} predicts one "
                         f"kernel, and a point of {space.name} is a sequence of launches:"
                         " rank it with --model tiling")
    began = time.perf_counter()
    points = list(points if points is not None else space.points())
    candidates = [Candidate(space.name, p.label, tuple(space.group_size(p)), (),
                            space.dtype) for p in points]
    family = getattr(model, "family", "")
    if space.template is not None and family in ("unified-linear", "expression"):
        return make_ranking(candidates, _count_model_predictions(model, space, points),
                            began)
    if space.template is not None and family == "roofline":
        predicted, errors = _roofline_predictions(model, space, points)
        return make_ranking(candidates, predicted, began, errors)
    generic = [point_candidate(space, p) for p in points]
    ranking = model.rank(generic)
    return Ranking(tuple(candidates), ranking.predicted_s, ranking.order,
                   time.perf_counter() - began, ranking.errors)
