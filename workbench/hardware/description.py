"""Device descriptions for the data-volume model: a small versioned JSON per device.

A description holds what the estimator and the roofline need: compute units, L1 and
L2 capacities, line and sector sizes, L1 banks, and bandwidth per memory level.  Each
figure names where it came from ("measured", "queried" from the driver, or "spec"
from a vendor document or paper), so measured and nominal numbers are never mixed
up silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from workbench.errors import UnknownNameError, WorkbenchError

SCHEMA = "workbench.device_model"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Figure:
    """One number and where it came from."""

    value: float
    source: str    # "measured", "queried" or "spec"
    note: str = ""


@dataclass(frozen=True)
class MissFunction:
    """A fitted miss ratio ``R(x) = a * exp(-b * exp(-c * x))`` (Ernst et al., III-E).

    ``l1_capacity``: the share of L1-redundant load sectors that miss, against the
    oversubscription ``O`` = allocated lines of a SM's resident blocks / L1 bytes.
    ``l2_reuse``: the share of data an earlier wave left in L2 that misses, against
    its reuse distance / L2 bytes (:mod:`workbench.models.roofline.reuse`).
    """

    a: float
    b: float
    c: float
    source: str = "fitted"
    note: str = ""

    def __call__(self, x):
        import numpy as np
        return self.a * np.exp(-self.b * np.exp(-self.c * np.asarray(x, dtype=float)))

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "c": self.c, "source": self.source,
                "note": self.note}


_FIGURES = ("compute_units", "l1_bytes", "l2_bytes", "line_bytes", "sector_bytes",
            "l1_banks", "l1_bank_bytes")


@dataclass(frozen=True)
class DeviceModel:
    name: str
    compute_units: Figure
    l1_bytes: Figure
    l2_bytes: Figure
    line_bytes: Figure
    sector_bytes: Figure
    l1_banks: Figure
    l1_bank_bytes: Figure
    bandwidth_GBps: dict = field(default_factory=dict)   # level -> Figure
    provenance: dict = field(default_factory=dict)
    miss_functions: dict = field(default_factory=dict)   # "l1_capacity"/"l2_reuse"
    # launch limits (work items per group, and per axis), where known
    max_work_group_size: Figure | None = None
    max_work_item_sizes: tuple[int, ...] = ()
    # physical floors' figures (workbench.models.floors), as in the JSON
    floors: dict = field(default_factory=dict)
    # per-multiprocessor residency limits (workbench.hardware.occupancy), as in the JSON
    occupancy: dict = field(default_factory=dict)

    def miss_function(self, name: str) -> MissFunction | None:
        return self.miss_functions.get(name)

    def to_json(self) -> dict:
        """Inverse of :meth:`from_json`."""
        fig = lambda f: {"value": f.value, "source": f.source,  # noqa: E731
                         **({"note": f.note} if f.note else {})}
        return {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION, "name": self.name,
            **{k: fig(getattr(self, k)) for k in _FIGURES},
            "bandwidth_GBps": {k: fig(v) for k, v in self.bandwidth_GBps.items()},
            "provenance": dict(self.provenance),
            "miss_functions": {k: v.to_json() for k, v in self.miss_functions.items()},
            **({"max_work_group_size": fig(self.max_work_group_size),
                "max_work_item_sizes": list(self.max_work_item_sizes)}
               if self.max_work_group_size is not None else {}),
            **({"floors": self.floors} if self.floors else {}),
            **({"occupancy": self.occupancy} if self.occupancy else {}),
        }

    @classmethod
    def from_json(cls, doc: dict) -> DeviceModel:
        if doc.get("schema") != SCHEMA:
            raise WorkbenchError("not a device description (schema field)")
        if doc.get("schema_version", 0) > SCHEMA_VERSION:
            raise WorkbenchError(f"device description schema {doc['schema_version']} is "
                                 f"newer than this workbench ({SCHEMA_VERSION}): upgrade")
        fig = lambda d: Figure(float(d["value"]), d["source"], d.get("note", ""))  # noqa: E731
        return cls(
            name=doc["name"],
            **{k: fig(doc[k]) for k in _FIGURES},
            bandwidth_GBps={k: fig(v) for k, v in doc.get("bandwidth_GBps", {}).items()},
            provenance=dict(doc.get("provenance", {})),
            miss_functions={k: MissFunction(float(v["a"]), float(v["b"]), float(v["c"]),
                                            v.get("source", "fitted"), v.get("note", ""))
                            for k, v in doc.get("miss_functions", {}).items()},
            max_work_group_size=(fig(doc["max_work_group_size"])
                                 if "max_work_group_size" in doc else None),
            max_work_item_sizes=tuple(int(v) for v in doc.get("max_work_item_sizes", ())),
            floors=dict(doc.get("floors", {})),
            occupancy=dict(doc.get("occupancy", {})))


SHIPPED = ("v100", "h100")


def load_device_model(name_or_path: str) -> DeviceModel:
    """A shipped description by name (``h100``, ``v100``) or a JSON file's path."""
    if name_or_path in SHIPPED:
        text = resources.files("workbench.hardware").joinpath(
            f"data/{name_or_path}.json").read_text()
    elif Path(name_or_path).is_file():
        text = Path(name_or_path).read_text()
    else:
        raise UnknownNameError("device model", name_or_path, SHIPPED)
    return DeviceModel.from_json(json.loads(text))
