"""Sample data shipped as ``X.xz`` (issue #25's 30 MB cap) still read by their plain
names: the tiling calibration (``load_calibration``), the latency microbenchmarks
(``benchmarks/latency_microbench.py``'s ``read_report``) and the Nsight Compute volumes
(``benchmarks/block_study_volumes.py``'s ``read_ncu_volumes``); a plain file written
beside the packed one wins."""

from __future__ import annotations

import importlib.util
import json
import lzma
import shutil
from pathlib import Path

import pytest

from workbench.models.tiling import load_calibration

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["tiling-calibration.json", "latency-microbench.json",
                                  "ncu-volumes.csv"])
def test_shipped_packed(name):
    # shipped as X.xz only (issue #25); a new measurement may write the plain X beside it
    assert (H100 / f"{name}.xz").is_file()


def test_the_calibration_reads_by_its_plain_name(tmp_path):
    cal = load_calibration(H100 / "tiling-calibration.json")
    assert cal.device and cal.C_iter and cal.schemes
    # a plain file beside the packed one wins (what a new calibration writes)
    shutil.copy(H100 / "tiling-calibration.json.xz", tmp_path / "tiling-calibration.json.xz")
    doc = json.loads(lzma.decompress((tmp_path / "tiling-calibration.json.xz").read_bytes()))
    doc["L"] = 123.0
    (tmp_path / "tiling-calibration.json").write_text(json.dumps(doc))
    assert load_calibration(tmp_path / "tiling-calibration.json").L == 123.0


def test_the_latency_figures_read_by_the_plain_name(tmp_path):
    bench = _bench("latency_microbench")
    figures = bench.analyse(str(H100 / "latency-microbench.json"))
    # the figures workbench/hardware/data/h100.json's serial floor cites
    assert figures["dependent_fma_ns"]["float32"] == pytest.approx(2.2466, abs=1e-4)
    assert figures["dependent_fma_ns"]["float64"] == pytest.approx(4.1406, abs=1e-4)
    assert figures["access_ns_dram"]["float32"] == pytest.approx(24.20, abs=0.01)
    assert bench.analyse(str(H100 / "latency-microbench.json.xz")) == figures
    plain = tmp_path / "latency-microbench.json"
    plain.write_bytes(lzma.decompress((H100 / "latency-microbench.json.xz").read_bytes()))
    assert bench.analyse(str(plain)) == figures


def test_the_ncu_volumes_read_by_the_plain_name():
    bench = _bench("block_study_volumes")
    frame = bench.read_ncu_volumes()
    assert len(frame) == 309
    assert {"kernel", "variant", "X", "Y", "Z", "dram_read_bytes"} <= set(frame.columns)
    assert bench.read_ncu_volumes(H100 / "ncu-volumes.csv.xz").equals(frame)


def test_every_candidate_of_the_choice_benchmark_reads_by_its_cited_name():
    """benchmarks/default_model_choice.py names each candidate ``models/X.json``; the older
    ones ship as ``models/X.json.xz`` (issue #25) and the expression family reads them by
    the cited name."""
    from workbench.models.registry import get_family

    choice = _bench("default_model_choice")
    family = get_family("expression")
    packed = 0
    for model_file, _weights in choice.CANDIDATES.values():
        if not model_file.endswith(".json"):   # a fit's name ("non-negative"), not a file
            continue
        path = ROOT / model_file
        assert path.is_file() or path.with_name(path.name + ".xz").is_file(), model_file
        packed += not path.is_file()
        assert family.spec(str(path)).to_document()
    assert packed >= 18
