"""The kNN regressor of the Lift pipeline, averaging over tie breaks (see
:mod:`workbench.models.ir_features.knn`).  Kept apart so that importing the workbench
does not import scikit-learn (about 1 s) until a kNN model is fitted."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from workbench.errors import ModelError

TIE_TOLERANCE = 1e-9          # distances within this relative gap of the k-th are ties
_CHUNK = 128                  # queries per block of the distance matrix


class TieAveragedKNN(RegressorMixin, BaseEstimator):
    """k-nearest-neighbours regression (Euclidean, uniform weights) whose prediction is
    the expectation over the ways of breaking ties at the k-th distance (see the
    module's docstring); without ties it is scikit-learn's KNeighborsRegressor."""

    def __init__(self, n_neighbors: int = 5):
        self.n_neighbors = n_neighbors

    def fit(self, x, y):
        self.x_ = np.asarray(x, dtype=float)
        self.y_ = np.asarray(y, dtype=float)
        if len(self.x_) < self.n_neighbors:
            raise ModelError(f"{len(self.x_)} training rows, fewer than the "
                             f"{self.n_neighbors} neighbours averaged")
        return self

    def predict(self, x) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        k = self.n_neighbors
        # the distances to each distinct training row, spread to its copies (variants
        # of different inputs often share their features), summed one component
        # after another over contiguous columns: the order numpy's sum over the last
        # axis of the (queries, rows, components) differences took, without that
        # array, so equal rows still give equal distances to the last bit
        distinct, copies = np.unique(self.x_, axis=0, return_inverse=True)
        columns = np.ascontiguousarray(distinct.T)
        copies = copies.reshape(-1)
        out = np.empty(len(x))
        for start in range(0, len(x), _CHUNK):
            block = x[start:start + _CHUNK]
            near = np.zeros((len(block), len(distinct)))
            for j, column in enumerate(columns):
                diff = block[:, j, None] - column[None, :]
                diff *= diff
                near += diff
            d = np.take(near, copies, axis=1)   # C order: the same matrix product
            kth = np.partition(d, k - 1, axis=1)[:, k - 1:k]
            tol = TIE_TOLERANCE * np.maximum(kth, np.finfo(float).tiny)
            inside = d < kth - tol
            tied = ~inside & (d <= kth + tol)
            share = (k - inside.sum(axis=1, keepdims=True)) / tied.sum(axis=1, keepdims=True)
            weights = inside + tied * share
            out[start:start + len(block)] = weights @ self.y_ / k
        return out
