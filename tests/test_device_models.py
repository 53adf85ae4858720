"""Shipped device descriptions load, carry provenance, and refuse bad files."""

import json

import pytest

from workbench.errors import UnknownNameError, WorkbenchError
from workbench.hardware.description import load_device_model


def test_shipped_descriptions_load_with_sources():
    h100 = load_device_model("h100")
    assert h100.compute_units.value == 132 and h100.compute_units.source == "queried"
    assert h100.l2_bytes.value == 50 * 2**20
    assert h100.bandwidth_GBps["dram"].source == "measured"
    v100 = load_device_model("v100")
    assert v100.compute_units.value == 80 and v100.l1_banks.value == 16


def test_bad_descriptions_are_refused(tmp_path):
    with pytest.raises(UnknownNameError):
        load_device_model("a100")
    f = tmp_path / "d.json"
    f.write_text(json.dumps({"schema": "workbench.device_model", "schema_version": 99}))
    with pytest.raises(WorkbenchError, match="newer"):
        load_device_model(str(f))
