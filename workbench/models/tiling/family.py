"""The time model of Prajapati et al. as a model family, and a ranker of tile sizes.

``TilingModel().ready(device_model="h100")`` needs no fit: the hardware facts
(:data:`~workbench.models.tiling.machine.HARDWARE`) and the microbenchmarks'
calibration (``sample_data/h100/tiling-calibration.json``, or ``calibration=``) are
all the model reads.  ``fit(data)`` derives a calibration from microbenchmark
measurements (:mod:`workbench.models.tiling.calibrate`).

The fitted model predicts the points of time-tiled stencil spaces (``tt_<stencil>``:
a candidate's kernel is the space name, its variant the point's label, its params
the problem sizes), a whole space at once: vectorized, no kernel built.  Registers per work item, when known (a stencil's
typical count from build logs), bound the concurrency ``k``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from workbench.errors import ModelError
from workbench.kernels.candidate import Candidate
from workbench.models.contract import Need, Paper, RanksByPrediction
from workbench.models.prediction import Breakdown, Predictions, Term, TermKind, make_predictions
from workbench.models.tiling.machine import (
    HARDWARE,
    TilingCalibration,
    TilingHardware,
    load_calibration,
    shipped_calibration,
)
from workbench.models.tiling.points import (
    TileArrays,
    parse_label,
    problem_of,
    scheme_of,
    stencil_dims,
    stencil_of,
)
from workbench.models.tiling.schemes import Form, Problem, Scheme, TileQuantities, quantities

SCHEMA = "workbench.model"
SCHEMA_VERSION = 1
#: Files of a model with another form than the paper's (older readers refuse them).
FORM_SCHEMA_VERSION = 2
FAMILY = "tiling"
PAPER = Paper("Prajapati et al., 2017", "Simple, accurate, analytical time modeling and "
              "optimal tile size selection for GPGPU stencils", "prajapati-time-tiling",
              "https://doi.org/10.1145/3018743.3018744")


@dataclass(frozen=True)
class TilingTimeModel(RanksByPrediction):
    """T_alg for one device (hardware and calibration) and tiling scheme; ``form``:
    the paper's equations or, for the hexagonal/hybrid tiles, the resident-latency
    extension (:mod:`.schemes`)."""

    hardware: TilingHardware
    calibration: TilingCalibration
    scheme: Scheme = Scheme.OVERLAPPED
    registers: Mapping[str, float] = field(default_factory=dict)   # stencil -> per item
    family: str = FAMILY
    form: Form = Form.PAPER

    def quantities(self, stencil: str, problem: Problem, tiles: TileArrays, *,
                   registers=None, scheme: Scheme | None = None) -> TileQuantities:
        """Every section-4 quantity of the given points (``scheme``: another than the
        model's, as for ``hx_`` spaces, which generate the paper's scheme)."""
        if (registers is None and stencil in self.registers
                and not self.form.per_point_registers):    # it fits per point
            registers = float(self.registers[stencil])
        return quantities(scheme or self.scheme, problem, tiles.t_T, tiles.t_S,
                          tiles.n_thr, self.hardware, self.calibration, stencil,
                          registers=registers, form=self.form, lanes=tiles.lanes)

    def scheme_for(self, space_name: str, dims: int) -> Scheme:
        """``hx_`` spaces generate the paper's scheme; ``tt_`` ones the model's own
        (overlapped, unless the model was readied for another to rank)."""
        found = scheme_of(space_name, dims)
        return self.scheme if found is Scheme.OVERLAPPED else found

    def predict_points(self, stencil: str, sizes: Mapping[str, int],
                       points: Sequence[Mapping[str, int]]) -> np.ndarray:
        """T_alg of each point (inf where infeasible), seconds."""
        dims = stencil_dims(stencil)
        if not points:
            return np.zeros(0)
        return self.quantities(stencil, problem_of(sizes, dims),
                               TileArrays.of(points, dims)).T_alg

    def predict_candidates(self, candidates: Sequence[Candidate], **context) -> Predictions:
        """Candidates of ``tt_<stencil>`` spaces (variant: the point's label; params or
        ``context["problem"]``: the sizes), vectorized per stencil and size; each
        breakdown holds the point's section-4 quantities.  Infeasible points (eq. 31)
        are not predicted."""
        n = len(candidates)
        out = np.full(n, np.nan)
        breakdowns: list[Breakdown | None] = [None] * n
        errors: list[str | None] = [None] * n
        groups: dict[tuple, list[int]] = {}
        for i, c in enumerate(candidates):
            sizes = dict(c.params) or dict(context.get("problem") or {})
            stencil = stencil_of(c.kernel_name)   # another kernel: the model is misapplied
            scheme = self.scheme_for(c.kernel_name, stencil_dims(stencil))
            groups.setdefault((stencil, scheme, tuple(sorted(sizes.items()))),
                              []).append(i)
        for (stencil, scheme, sizes), idx in groups.items():
            dims = stencil_dims(stencil)
            points = [parse_label(candidates[i].variant) for i in idx]
            q = self.quantities(stencil, problem_of(dict(sizes), dims),
                                TileArrays.of(points, dims), scheme=scheme)
            columns = q.columns()
            for j, i in enumerate(idx):
                feasible = bool(columns["feasible"][j])
                out[i] = q.T_alg[j] if feasible and np.isfinite(q.T_alg[j]) else np.nan
                errors[i] = None if feasible else "infeasible tile (eq. 31)"
                breakdowns[i] = Breakdown(tuple(
                    Term(name, TermKind.SECONDS if name.endswith("_s") else TermKind.COUNT,
                         float(v[j])) for name, v in columns.items() if name != "feasible"))
        return make_predictions(candidates, out, breakdowns, errors)

    def predict(self, data: pd.DataFrame) -> np.ndarray:
        lacking = [c for c in ("kernel", "variant", "params") if c not in data.columns]
        if lacking:
            raise ModelError(f"tiling predictions need the column(s) {', '.join(lacking)}")
        candidates = [Candidate(k, v, (1,), tuple(sorted(parse_label(p).items())))
                      for k, v, p in zip(data["kernel"], data["variant"], data["params"])]
        return self.predict_candidates(candidates).seconds

    def report_data(self) -> dict:
        hw, cal = self.hardware, self.calibration
        rows = [{"property": k, "label": k, "value": float(getattr(hw, k)),
                 "source": "hardware"} for k in
                ("n_SM", "n_V", "M_SM", "M_group", "R_SM", "MTB_SM", "threads_SM")]
        rows += [{"property": k, "label": k, "value": float(getattr(cal, k)),
                  "source": "measured"} for k in ("L", "tau_sync", "T_sync")]
        rows += [{"property": f"C_iter_{s}", "label": f"C_iter {s}", "value": float(v),
                  "source": "measured"} for s, v in sorted(cal.C_iter.items())]
        for scheme, consts in sorted(cal.schemes.items()):    # a scheme's own constants
            rows.append({"property": f"L_{scheme}", "label": f"L ({scheme})",
                         "value": float(consts.L), "source": "measured"})
            rows += [{"property": f"C_iter_{s}_{scheme}", "label": f"C_iter {s} ({scheme})",
                      "value": float(v), "source": "measured"}
                     for s, v in sorted(consts.C_iter.items())]
            if consts.row_latency:     # the resident-latency form's lambda
                rows.append({"property": f"row_latency_{scheme}",
                             "label": f"row latency ({scheme})",
                             "value": float(consts.row_latency), "source": "measured"})
            if consts.pass_latency:    # the two-term variant's per-pass latency
                rows.append({"property": f"pass_latency_{scheme}",
                             "label": f"pass latency ({scheme})",
                             "value": float(consts.pass_latency), "source": "measured"})
        table = pd.DataFrame(rows)
        table["ci_low"] = table["ci_high"] = np.nan
        return {"parameters": table, "fit": {"scheme": self.scheme.value,
                                             "form": self.form.value},
                "unexercised": []}

    @property
    def device(self) -> dict:
        return {"device": self.hardware.name}

    def to_json(self) -> dict:
        hw = {k: getattr(self.hardware, k) for k in self.hardware.__dataclass_fields__}
        doc = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "family": FAMILY,
               "scheme": self.scheme.value, "hardware": hw,
               "calibration": self.calibration.to_json(),
               "registers": dict(self.registers), "device": self.device}
        if self.form is not Form.PAPER:     # a reader of version 1 would price the paper's
            doc.update(schema_version=FORM_SCHEMA_VERSION, form=self.form.value)
        return doc


def _hardware(device_model) -> TilingHardware:
    if isinstance(device_model, TilingHardware):
        return device_model
    if device_model is None:
        raise ModelError("the tiling model needs a device: --device-model h100")
    try:
        return HARDWARE[str(device_model)]
    except KeyError:
        from workbench.errors import UnknownNameError
        raise UnknownNameError("tiling device model", str(device_model), HARDWARE) from None


def _scheme(scheme) -> Scheme:
    try:
        return scheme if isinstance(scheme, Scheme) else Scheme(str(scheme))
    except ValueError:
        from workbench.errors import UnknownNameError
        raise UnknownNameError("tiling scheme", str(scheme),
                               [s.value for s in Scheme]) from None


def _form(form) -> Form:
    try:
        return form if isinstance(form, Form) else Form(str(form))
    except ValueError:
        from workbench.errors import UnknownNameError
        raise UnknownNameError("tiling model form", str(form),
                               [f.value for f in Form]) from None


class TilingModel:
    """Model family 'tiling' (Prajapati et al.: time-tiled stencils, tile sizes)."""

    name = FAMILY
    paper = PAPER
    needs = frozenset({Need.DEVICE_DESCRIPTION, Need.CALIBRATION})
    home = "workbench.models.tiling"

    def describe(self) -> str:
        return ("Analytical time model of time-tiled stencils (Prajapati et al.): a "
                "run is N_w wavefronts of tiles; a tile costs its global<->local "
                "transfers (L per word), its steps (C_iter per point and lane, a barrier "
                "each) and overlaps transfers with the compute of the k groups an SM "
                "holds (k from local memory and, read from the build log, registers). "
                "Deliberately optimistic; accurate for the fast tile sizes, meant to "
                "choose them. Needs the SM's facts and four microbenchmarked parameters "
                "(L, tau_sync, T_sync, C_iter per stencil); schemes: overlapped tiles "
                "(what the workbench generates) and the paper's hexagonal/hybrid, each "
                "with its own L and C_iter where its microbenchmarks measured them.")

    def ready(self, *, device_model=None, calibration=None, scheme="overlapped",
              registers: Mapping[str, float] | None = None, form="paper",
              **options) -> TilingTimeModel:
        if options:
            raise ModelError(f"unknown tiling option(s) {', '.join(sorted(options))}")
        hw = _hardware(device_model)
        if calibration is None:
            cal = shipped_calibration(str(device_model))
        elif isinstance(calibration, TilingCalibration):
            cal = calibration
        else:
            cal = load_calibration(calibration)
        return TilingTimeModel(hw, cal, _scheme(scheme), dict(registers or {}),
                               form=_form(form))

    def fit(self, data: pd.DataFrame, *, device_model=None, scheme="overlapped",
            **options) -> TilingTimeModel:
        """The calibration measured by the microbenchmarks in ``data``."""
        from workbench.models.tiling.calibrate import calibration_from_frame

        hw = _hardware(device_model)
        cal = calibration_from_frame(data, hw, **options)
        return TilingTimeModel(hw, cal, _scheme(scheme))

    def load(self, document: Mapping) -> TilingTimeModel:
        if document.get("schema") != SCHEMA or document.get("family") != FAMILY:
            raise ModelError("not a tiling model file")
        version = document.get("schema_version", 0)
        if not isinstance(version, int) or version > FORM_SCHEMA_VERSION:
            raise ModelError(f"model file has schema version {version!r}; this workbench "
                             f"reads up to {FORM_SCHEMA_VERSION}: upgrade the workbench")
        try:
            hw = TilingHardware(**document["hardware"])
            cal = TilingCalibration.from_json(document["calibration"])
        except (KeyError, TypeError) as err:
            raise ModelError(f"malformed tiling model file: {err}") from None
        return TilingTimeModel(hw, cal, _scheme(document.get("scheme", "overlapped")),
                               {str(k): float(v) for k, v in
                                dict(document.get("registers") or {}).items()},
                               form=_form(document.get("form", Form.PAPER.value)))


def with_registers(model: TilingTimeModel, registers: Mapping[str, float]
                   ) -> TilingTimeModel:
    return replace(model, registers={**model.registers, **registers})
