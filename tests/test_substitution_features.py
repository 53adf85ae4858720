"""The chain of a substitution (f_substitution_s): found from the kernel's code, priced
by the substitution microbenchmark's step (issue 34, item 3)."""

import numpy as np
import pytest

from workbench.kernels.candidate import Candidate

DEVICE = "NVIDIA H100 80GB HBM3"


def _trsv(variant="batch_minor", nb=32768, group=128, dtype="float32"):
    return Candidate("batched_trsv", variant, (group,), (("nb", nb),), dtype)


def test_a_substitution_is_found_with_its_loads_and_a_running_sum_is_not_one():
    from workbench.models.parallelism import _grid, sequential_inames, substitutions

    c = _trsv()
    _, _, knl = _grid(c.spec, c.request())
    (found,) = substitutions(knl, sequential_inames(knl))
    assert (found.array, found.written_along, found.steps, found.loads) == \
        ("xp", frozenset({"i"}), frozenset({"i", "j"}), ("L",))
    cumsum = Candidate("column_cumsum", "sequential", (128,), (("m", 64), ("n", 256)))
    _, _, knl = _grid(cumsum.spec, cumsum.request())
    assert substitutions(knl, sequential_inames(knl)) == ()


def test_a_substitution_written_as_a_reduction_chains_every_term_of_its_sum():
    # a user's forward substitution with the sum over earlier rows as a reduction:
    # its steps are the (i, j) pairs, and the solved array is not a load of its own
    import loopy as lp

    from workbench.kernels import spec_from_loopy
    from workbench.models.parallelism import sequential_inames, substitutions
    from workbench.models.substitution_features import substitution_of

    knl = lp.make_kernel(
        ["{[e, i]: 0 <= e < nb and 0 <= i < m}", "{[j]: 0 <= j < i}"],
        "x[e, i] = (b[e, i] - sum(j, L[e, i, j] * x[e, j])) / L[e, i, i]",
        [lp.GlobalArg("x", np.float32, shape=("nb", "m")),
         lp.GlobalArg("b", np.float32, shape=("nb", "m")),
         lp.GlobalArg("L", np.float32, shape=("nb", "m", "m")),
         lp.ValueArg("nb", np.int32), lp.ValueArg("m", np.int32)],
        assumptions="nb >= 1 and m >= 1", lang_version=(2018, 2))
    knl = lp.split_iname(knl, "e", 64, outer_tag="g.0", inner_tag="l.0")
    (found,) = substitutions(knl.default_entrypoint,
                             sequential_inames(knl.default_entrypoint))
    assert found.steps == frozenset({"i", "j"}) and found.loads == ("L", "b")
    solve = Candidate.of(spec_from_loopy(knl, name="trsv_reduction"),
                         {"nb": 4096, "m": 24})
    assert substitution_of(solve)[:2] == (276.0, 24.0)


def test_steps_size_and_layout_of_the_chain():
    from workbench.models.substitution_features import substitution_of

    # 24 rows: 24 * 23 / 2 chained steps; lanes one element apart or a matrix apart
    assert substitution_of(_trsv()) == (276.0, 24.0, "adjacent")
    assert substitution_of(_trsv("batch_major")) == (276.0, 24.0, "apart")
    axpy = Candidate("vector_scale_add", "stride1", (256,), (("n", 4096),), "float32")
    assert substitution_of(axpy) is None


def test_the_step_price_is_the_measured_one_between_sizes_and_warps():
    from workbench.models.floors import floors_of_device
    from workbench.models.substitution_features import step_price

    table = floors_of_device(DEVICE).serial.substitution_step_s
    rows = {(d, lay, s): dict(p) for d, lay, s, p in table}
    measured = rows[("float32", "adjacent", 32)]
    # at a measured size and warps per SM: the measured step, as measured
    assert step_price(table, "float32", "adjacent", 32, 8) == pytest.approx(measured[8.0])
    # between warps per SM: linear; beyond the last: clamped
    assert step_price(table, "float32", "adjacent", 32, 12) == \
        pytest.approx((measured[8.0] + measured[16.0]) / 2)
    assert step_price(table, "float32", "adjacent", 32, 500) == pytest.approx(measured[64.0])
    # the ladder: sizes 8 to 64 rows, about sqrt(2) apart
    assert sorted({s for d, lay, s, p in table}) == [8, 12, 16, 24, 32, 48, 64]
    # between sizes: geometric (40 lies 0.55 of the way from 32 to 48 in log size)
    low, high = rows[("float32", "apart", 32)][8.0], rows[("float32", "apart", 48)][8.0]
    t = np.log(40 / 32) / np.log(48 / 32)
    assert step_price(table, "float32", "apart", 40, 8) == \
        pytest.approx(low ** (1 - t) * high ** t)
    # beyond the last size: clamped
    assert step_price(table, "float32", "apart", 100, 8) == \
        pytest.approx(rows[("float32", "apart", 64)][8.0])


def test_the_chain_is_waves_times_steps_times_the_step_and_zero_elsewhere():
    from workbench.models.floors import floors_of_device
    from workbench.models.substitution_features import step_price, substitution_values

    table = floors_of_device(DEVICE).serial.substitution_step_s
    axpy = Candidate("vector_scale_add", "stride1", (256,), (("n", 4096),), "float32")
    # 32,768 systems in groups of 128: 256 groups, fewer than a wave: 7.76 warps per SM
    got = substitution_values([_trsv(), axpy], DEVICE)["f_substitution_s"]
    assert got[0] == pytest.approx(276 * step_price(table, "float32", "adjacent", 24,
                                                    1024 / 132))
    assert got[1] == 0.0
    assert substitution_values([_trsv()], "no such device")["f_substitution_s"].tolist() \
        == [0.0]


def test_a_priced_substitution_is_said_as_priced_and_an_unpriced_one_as_outside():
    from workbench.models.parallelism import CaveatKind, structure_caveats

    assert {c.kind for c in structure_caveats(_trsv())} == {CaveatKind.SCAN_RECURRENCE}
    (priced,) = structure_caveats(_trsv(), priced_substitutions=True)
    assert priced.kind == CaveatKind.SUBSTITUTION and "f_substitution_s" in priced.message


def test_the_candidate_model_reads_the_chain_and_keeps_the_defaults_terms():
    import json

    from workbench.models.expressions.spec import ExpressionModelSpec

    with open("models/linear-fp64-sectors-chains2.json") as f:
        chains2 = json.load(f)
    with open("models/linear-fp64-sectors-chains.json") as f:
        default = json.load(f)
    spec = ExpressionModelSpec.create(chains2["model"])
    assert {"f_substitution_s", "f_recurrence_s"} <= set(spec.features)
    assert spec.parameters == ExpressionModelSpec.create(default["model"]).parameters


@pytest.mark.parametrize("layout", ["adjacent", "apart"])
def test_the_microbenchmark_solves_its_systems(queue, layout):
    import pyopencl.array as cla

    from workbench.kernels.generators.latency import forward_substitution

    n, size = 64, 8
    rng = np.random.default_rng(3)
    mats = np.tril(rng.random((n, size, size)) - 0.5, -1) / size + 2 * np.eye(size)
    rhs = rng.random(n)
    stored = mats.transpose(1, 2, 0) if layout == "adjacent" else mats
    program = forward_substitution("float64", layout, size, 32)
    _, (out,) = program.executor(queue)(
        queue, L=cla.to_device(queue, np.ascontiguousarray(stored)),
        b=cla.to_device(queue, rhs), n=n)
    want = np.linalg.solve(mats, np.repeat(rhs[:, None], size, axis=1)[..., None])[:, -1, 0]
    np.testing.assert_allclose(out.get(), want, rtol=1e-12)


def test_predict_cli_says_the_substitution_is_priced_and_explains_it_as_serial(capsys):
    from workbench.cli.main import main
    from workbench.models.terms import Category, category_of

    assert main(["predict", "batched_trsv", "--variant", "batch_minor", "--param",
                 "nb=32768", "--group-size", "128", "--weights",
                 "sample_data/h100/weights-linear-fp64-sectors-chains2.json"]) == 0
    out = capsys.readouterr().out
    assert "warning: substitution chain:" in out and "f_substitution_s" in out
    assert "serial dependence:" not in out
    assert category_of("f_substitution_s") == Category.SERIAL
