"""Launches that use few of the device's lanes, kernels outside what the models cover
(issue #34, items 6, 1 and 3), and Table 1's rows telling their cases apart (item 5)."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pandas as pd
import pytest

from workbench.cli.main import main
from workbench.kernels import spec_from_loopy
from workbench.kernels.candidate import Candidate
from workbench.kernels.generators.latency import (
    pointer_chase,
    sequential_axpy,
    sequential_matmul,
)
from workbench.models import load_model
from workbench.models.floors import Bound
from workbench.models.parallelism import CaveatKind, LaunchUse, structure_caveats
from workbench.models.prediction import predict
from workbench.reports.tables import Table1

H100 = Path("sample_data/h100")
MEASURED = H100 / "latency-microbench.json"


@pytest.fixture(scope="module")
def default_model():
    return load_model(H100 / "weights-overlap-fp64.json")


def _measured_s(kernel: str, dtype: str, n: int) -> float:
    # shipped as latency-microbench.json.xz (issue #25); the plain name where one is written
    text = (MEASURED.read_text() if MEASURED.exists()
            else lzma.decompress(MEASURED.with_name(MEASURED.name + ".xz").read_bytes()).decode())
    rows = json.loads(text)["results"]
    (row,) = [r for r in rows if r["kernel"] == kernel and r["dtype"] == dtype
              and r["params"]["n"] == n]
    return row["time_s"]


def test_one_work_item_is_priced_by_its_serial_work_and_says_so(default_model):
    n = 1 << 16
    one_item = Candidate.of(spec_from_loopy(sequential_axpy("float32"), name="axpy1"),
                            {"n": n})
    result = predict(default_model, [one_item])
    # the counts alone price it as if spread over the device: far below the H100's time
    measured = _measured_s("sequential_axpy", "float32", n)
    assert result.raw_seconds[0] < measured / 20
    floor = result.floors[0]
    assert floor.bound is Bound.SERIAL and result.broken[0].startswith("serial work")
    # two loads and a store a trip, from cache (512 KiB touched), at 4.47 ns each
    assert result.seconds[0] == pytest.approx(n * 3 * 4.47e-9, rel=1e-6)
    assert abs(result.seconds[0] - measured) / measured < 0.15
    (caveat,) = [c for c in result.caveats[0] if c.kind is CaveatKind.LOW_PARALLELISM]
    assert "uses 1 of 16,896 lanes (0.006 %" in caveat.message
    assert result.frame()["caveats"][0].startswith("low parallelism: uses 1 of 16,896")


def test_a_filled_device_gets_neither_the_serial_bound_nor_a_caveat(default_model):
    wide = Candidate.of("vector_scale_add", {"n": 1 << 24})
    result = predict(default_model, [wide])
    assert Bound.SERIAL not in dict(result.floors[0].parts)
    assert result.caveats == ((),)


def test_launch_use_words():
    assert LaunchUse(1024, 8, 16896).says() == \
        "uses 1,024 of 16,896 lanes (6 %; 8 work groups)"
    assert not LaunchUse(16896, 132, 16896).low


@pytest.mark.parametrize("candidate, kind", [
    (Candidate("column_cumsum", "sequential", (128,), (("m", 512), ("n", 1024))),
     CaveatKind.SCAN_RECURRENCE),
    (Candidate("batched_trsv", "batch_minor", (128,), (("nb", 4096),)),
     CaveatKind.SCAN_RECURRENCE),
    (Candidate("matmul_naive", "default", (16, 16), (("n", 256),)), None),
    (Candidate.of(spec_from_loopy(sequential_matmul(), name="mm1"), {"n": 64}), None),
    (Candidate.of(spec_from_loopy(pointer_chase(32)), {"n": 64, "steps": 8}),
     CaveatKind.DEPENDENT_LOADS),
])
def test_serial_recurrences_are_read_from_the_code(candidate, kind):
    kinds = {c.kind for c in structure_caveats(candidate)}
    assert kinds == ({kind} if kind else set())


def test_predict_cli_warns_of_a_kernel_outside_the_model(capsys):
    # a model that does not read f_recurrence_s (the default may: then it is priced)
    assert main(["predict", "column_cumsum", "--param", "n=1024,m=8192",
                 "--group-size", "128", "--weights",
                 "sample_data/h100/weights-linear-fp64-sectors.json"]) == 0
    out = capsys.readouterr().out
    assert "warning: low parallelism: uses 1,024 of 16,896 lanes (6 %" in out
    assert "warning: serial dependence:" in out and "outside what the model covers" in out


def test_predict_cli_says_a_running_sum_is_priced_by_a_model_that_reads_its_chain(capsys):
    assert main(["predict", "column_cumsum", "--param", "n=1024,m=8192",
                 "--group-size", "128", "--weights",
                 "sample_data/h100/weights-linear-fp64-sectors-chains.json"]) == 0
    out = capsys.readouterr().out
    assert "warning: running sum:" in out and "f_recurrence_s" in out
    assert "serial dependence:" not in out


def test_table1_rows_show_variant_dtype_and_group():
    cases = pd.DataFrame([
        {"kernel": "gather", "case": c, "variant": v, "dtype": "float32",
         "params": "n=1024", "group_size": "256", "predicted_ms": 1.0, "actual_ms": a,
         "rel_error": abs(1.0 - a) / a}
        for c, v, a in (("a", "stride5", 1.05), ("b", "stride5_aligned", 3.3))])
    table = Table1(cases, pd.Series({"gather": 0.3}), 0.3)
    layout = table.layout()
    assert list(layout.columns[:5]) == ["kernel / case", "variant", "dtype", "params",
                                        "group"]
    shown = layout[layout["kernel / case"].str.startswith("  ")]
    assert len(shown[["variant", "dtype", "params", "group"]].drop_duplicates()) == 2
    assert list(shown["variant"]) == ["stride5", "stride5_aligned"]


def test_private_arrays_on_the_stack_are_said_from_the_build_info():
    from workbench.models.occupancy_features import use_build_info
    from workbench.models.parallelism import spill_caveat

    device = "NVIDIA H100 80GB HBM3"
    trsv = Candidate("batched_trsv", "batch_minor", (128,), (("nb", 32768),), "float64")
    use_build_info([str(H100 / "build-info.json")])
    try:
        caveat = spill_caveat(trsv, device)
        in_registers = spill_caveat(trsv.__class__("batched_trsv", "batch_minor", (128,),
                                                   (("nb", 32768),), "float32"), device)
    finally:
        use_build_info(None)
    assert caveat.kind is CaveatKind.SPILLS and "192 bytes" in caveat.message
    assert in_registers is None


def test_a_tree_reduction_over_the_group_counts_the_groups_lanes():
    # dot_partial's only local axis is a reduction's: before loopy realizes the
    # reduction no instruction runs within it, so the raw kernel's grid reads as
    # groups of one work item
    from workbench.models.parallelism import launch_sizes

    dot = Candidate("dot_partial", "tree", (512,), (("n", 1 << 22),))
    assert launch_sizes(dot) == ((1 << 22) // 4096 * 512, (1 << 22) // 4096)
