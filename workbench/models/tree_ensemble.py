"""Boosted regression trees evaluated with numpy: a learned model ships as plain arrays.

A fit uses a library (xgboost, a declared dependency); ranking only evaluates the
trees, so it needs neither the library nor its version at hand (the GPU host carries
only wheels it needs).  :meth:`TreeEnsemble.of_xgboost` reads a fitted booster's own
JSON dump; :meth:`predict` follows xgboost's rules exactly: features and thresholds
compared in float32 (``x < threshold`` goes left), a missing value (NaN) takes the
node's default side, the sum of the leaves plus the base score.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError

#: the document's layout; a change that old readers would misread bumps it
SCHEMA = 1


@dataclass(frozen=True)
class Tree:
    """One tree as arrays indexed by node (node 0 the root; ``left[n] == -1``: a leaf,
    whose value is ``value[n]``)."""

    feature: np.ndarray          # int32, the feature a node splits on
    threshold: np.ndarray        # float32, go left where x < threshold
    left: np.ndarray             # int32 child indices, -1 at leaves
    right: np.ndarray
    default_left: np.ndarray     # bool, where a missing value goes
    value: np.ndarray            # float64 leaf values (0 at inner nodes)

    def leaf_values(self, x: np.ndarray) -> np.ndarray:
        """Each row's leaf value (``x``: float32 rows x features)."""
        node = np.zeros(len(x), dtype=np.int64)
        rows = np.arange(len(x))
        for _ in range(len(self.left)):           # at most one step per level
            inner = self.left[node] >= 0
            if not inner.any():
                break
            at = node[inner]
            v = x[rows[inner], self.feature[at]]
            go_left = np.where(np.isnan(v), self.default_left[at], v < self.threshold[at])
            node[inner] = np.where(go_left, self.left[at], self.right[at])
        return self.value[node]


@dataclass(frozen=True)
class TreeEnsemble:
    """A sum of regression trees over named features."""

    features: tuple[str, ...]
    trees: tuple[Tree, ...]
    base_score: float

    def predict(self, x: np.ndarray) -> np.ndarray:
        """One value per row of ``x`` (rows x ``len(features)``, NaN: missing)."""
        x = np.asarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise ModelError(f"the trees read {len(self.features)} features a row, "
                             f"got an array of shape {x.shape}")
        out = np.full(len(x), self.base_score, dtype=np.float64)
        for tree in self.trees:
            out += tree.leaf_values(x)
        return out

    @classmethod
    def of_xgboost(cls, booster, features: Sequence[str]) -> TreeEnsemble:
        """The trees of a fitted ``xgboost.Booster`` (a regressor's, one output)."""
        dumped = json.loads(booster.save_raw("json"))
        learner = dumped["learner"]
        base = str(learner["learner_model_param"]["base_score"]).strip("[]")
        trees = []
        for t in learner["gradient_booster"]["model"]["trees"]:
            left = np.asarray(t["left_children"], dtype=np.int32)
            leaf = left < 0
            conditions = np.asarray(t["split_conditions"], dtype=np.float64)
            trees.append(Tree(
                feature=np.asarray(t["split_indices"], dtype=np.int32),
                threshold=np.where(leaf, 0.0, conditions).astype(np.float32),
                left=left, right=np.asarray(t["right_children"], dtype=np.int32),
                default_left=np.asarray(t["default_left"], dtype=bool),
                value=np.where(leaf, conditions, 0.0)))
        if len(features) != int(learner["learner_model_param"]["num_feature"]):
            raise ModelError(f"the booster reads {learner['learner_model_param']['num_feature']}"
                             f" features, {len(features)} names given")
        return cls(tuple(features), tuple(trees), float(base))

    def to_json(self) -> dict:
        def floats(a) -> list:
            # float32 thresholds keep their exact value through the shortest repr
            return [float(np.format_float_positional(v, unique=True, trim="-"))
                    for v in np.asarray(a, dtype=np.float32)]
        return {"schema": SCHEMA, "features": list(self.features),
                "base_score": self.base_score,
                "trees": [{"feature": t.feature.tolist(), "threshold": floats(t.threshold),
                           "left": t.left.tolist(), "right": t.right.tolist(),
                           "default_left": t.default_left.astype(int).tolist(),
                           "value": [float(v) for v in t.value]} for t in self.trees]}

    @classmethod
    def from_json(cls, document: dict) -> TreeEnsemble:
        if document.get("schema") != SCHEMA:
            raise ModelError(f"trees of schema {document.get('schema')!r}; this workbench "
                             f"reads schema {SCHEMA}")
        try:
            trees = tuple(Tree(np.asarray(t["feature"], dtype=np.int32),
                               np.asarray(t["threshold"], dtype=np.float32),
                               np.asarray(t["left"], dtype=np.int32),
                               np.asarray(t["right"], dtype=np.int32),
                               np.asarray(t["default_left"], dtype=bool),
                               np.asarray(t["value"], dtype=np.float64))
                          for t in document["trees"])
            features = tuple(document["features"])
            base = float(document["base_score"])
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"malformed trees in the model file: {err}") from None
        width = len(features)
        for t in trees:
            sizes = {len(t.feature), len(t.threshold), len(t.left), len(t.right),
                     len(t.default_left), len(t.value)}
            inner = t.left >= 0
            if (len(sizes) != 1 or (t.feature[inner] >= width).any()
                    or (t.feature[inner] < 0).any()
                    or (t.left >= len(t.left)).any() or (t.right >= len(t.right)).any()):
                raise ModelError("malformed trees in the model file: node arrays of "
                                 "unequal length or indices out of range")
        return cls(features, trees, base)


__all__ = ["SCHEMA", "Tree", "TreeEnsemble"]
