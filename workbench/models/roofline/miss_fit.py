"""Fitting the capacity-miss functions to measured data volumes (Ernst et al., III-E).

The estimator's volumes are *compulsory*: every redundant L1 load hits and the L2 is
an ideal LRU cache.  Real caches miss more as they fill.  The paper fits one miss
ratio per level, ``R(x) = a * exp(-b * exp(-c * x))``
(:class:`~workbench.hardware.description.MissFunction`), to volumes measured with a
profiler:

* ``l1_capacity``: the share of the L1-redundant load sectors that go to L2 anyway,
  ``(V_measured - V_compulsory) / (V_requested - V_compulsory)``, against the L1
  oversubscription ``O`` (eq. 5-7);
* ``l2_reuse``: the share of data an earlier wave left in L2 that misses, against its
  reuse distance / L2 size (:mod:`workbench.models.roofline.reuse`); fitted so that
  the predicted DRAM read volume matches the measured one.

A fit takes :class:`VolumeObservation` s: the estimated inputs of a configuration,
made with a device description *without* miss functions, and its measured L2 -> L1
load bytes and DRAM read bytes (e.g. Nsight Compute's ``lts__t_sectors_srcunit_tex``
and ``dram__bytes_read``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ModelError
from workbench.hardware.description import MissFunction
from workbench.models.roofline.limiters import RooflineInputs, l1_oversubscription


@dataclass(frozen=True)
class VolumeObservation:
    """One configuration's compulsory estimate and its measured volumes (bytes)."""

    inputs: RooflineInputs
    l2_load_bytes: float
    dram_read_bytes: float


def _sigmoid_fit(residuals, x0) -> MissFunction:
    from scipy.optimize import least_squares

    res = least_squares(residuals, np.asarray(x0, float),
                        bounds=([0.0, 0.0, 0.0], [1.0, 1e6, 100.0]))
    a, b, c = res.x
    return MissFunction(float(a), float(b), float(c))


def l1_miss_points(observations: Sequence[VolumeObservation], device_model
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(oversubscription O, observed miss share R) of the configurations whose loads
    are redundant enough (more than 2 % over compulsory) to miss on."""
    o, r = [], []
    for obs in observations:
        i = obs.inputs
        comp = i.l2_l1.load_sectors_bytes * i.blocks
        up = i.l2_l1.load_requested_bytes * i.blocks
        if up - comp > 0.02 * comp:
            o.append(l1_oversubscription(i, device_model))
            r.append((obs.l2_load_bytes - comp) / (up - comp))
    return np.asarray(o), np.asarray(r)


def fit_l1_capacity(observations: Sequence[VolumeObservation], device_model
                    ) -> MissFunction:
    """``R_L1(O)`` from measured L2 -> L1 load volumes."""
    o, r = l1_miss_points(observations, device_model)
    if o.size < 3:
        raise ModelError(f"{o.size} configurations with redundant L1 loads cannot "
                         "determine the three parameters of the L1 miss function")
    ratio = np.clip(r, -0.5, 1.5)

    def residuals(p):
        return p[0] * np.exp(-p[1] * np.exp(-p[2] * o)) - ratio
    return _sigmoid_fit(residuals, (0.5, 5.0, 1.0))


def fit_l2_reuse(observations: Sequence[VolumeObservation]) -> MissFunction:
    """The L2 reuse-distance miss function from measured DRAM read volumes."""
    usable = [obs for obs in observations if obs.inputs.dram.load_profiles
              and obs.dram_read_bytes > 0]
    if len(usable) < 3:
        raise ModelError("the L2 miss function needs at least three configurations "
                         "with reuse profiles (reuse='l2') and measured DRAM reads")
    measured = np.array([obs.dram_read_bytes for obs in usable])

    def residuals(p):
        f = MissFunction(*p)
        pred = np.array([obs.inputs.dram.with_miss_ratio(f).load_bytes for obs in usable])
        return pred / measured - 1.0
    return _sigmoid_fit(residuals, (0.9, 20.0, 6.0))


def fit_miss_functions(observations: Sequence[VolumeObservation], device_model
                       ) -> dict[str, MissFunction]:
    """Both miss functions, keyed as in a device description's ``miss_functions``."""
    return {"l1_capacity": fit_l1_capacity(observations, device_model),
            "l2_reuse": fit_l2_reuse(observations)}
