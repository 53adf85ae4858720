"""What a user writing a first tuning space meets: a kernel named where a space is
wanted, a factory that is not one, a stencil that leaves its boundary unwritten, and
points that fail with their reason in the summary."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from workbench.errors import TuningError
from workbench.measure.store import Status
from workbench.tuning import TuningSpace, resolve_space
from workbench.tuning.evaluation import Evaluation
from workbench.tuning.space import Point

N = 64

FILE = '''
import loopy as lp
import dataclasses

import numpy as np
from workbench.tuning import TuningSpace

N = 64
saxpy = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2*x[i]",
                       [lp.GlobalArg("x, y", np.float32, shape="n"), ...],
                       lang_version=(2018, 2))

def kernel(point):
    return saxpy
'''


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "first.py"
    path.write_text(FILE)
    return path


def test_a_kernel_where_a_space_is_wanted_is_named_as_such(user_file):
    with pytest.raises(TuningError, match="is a loopy kernel, not a TuningSpace: "
                                          "predict and explain take a kernel"):
        resolve_space(f"{user_file}:saxpy")
    # a function that is not a space's factory: what one looks like
    with pytest.raises(TuningError, match=r"kernel\(\) missing 1 required positional "
                                          r"argument: 'point'; a space's factory takes"):
        resolve_space(f"{user_file}:kernel")


def _stencil(point):
    import loopy as lp

    knl = lp.make_kernel(
        "{[i, j]: 1 <= i < n - 1 and 1 <= j < n - 1}",
        "out[i, j] = u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1]",
        [lp.GlobalArg("u, out", np.float32, shape="n, n"), ...],
        lang_version=(2018, 2), name="boundary_left")
    knl = lp.fix_parameters(knl, n=N)
    knl = lp.split_iname(knl, "i", 4, outer_tag="g.1", inner_tag="l.1")
    return lp.split_iname(knl, "j", point["gx"], outer_tag="g.0", inner_tag="l.0")


def _reference(inputs, off=0.0):
    u = inputs["u"]
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + off
    return {"out": out}


def _space(make_inputs, reference):
    return TuningSpace(name="boundary_left", description="", tune_params={"gx": (8, 16)},
                       group_size=lambda p: (p["gx"], 4), kernel=_stencil,
                       make_inputs=make_inputs, reference=reference)


def test_an_unwritten_boundary_verifies_once_the_output_is_given_zeroed(queue):
    import pyopencl as cl

    from workbench.tuning.live import LiveEvaluator

    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    zeroed = _space(lambda rng: {"u": rng.random((N, N)).astype(np.float32),
                                 "out": np.zeros((N, N), np.float32)}, _reference)
    evaluator = LiveEvaluator(zeroed, timed)
    for point in zeroed.points():
        result = evaluator.evaluate(point)
        assert result.status is Status.OK, result.log
    # a wrong result whose output loopy allocated: the log says where the garbage of
    # unwritten elements comes from and what to do
    wrong = _space(lambda rng: {"u": rng.random((N, N)).astype(np.float32)},
                   lambda inputs: _reference(inputs, off=1.0))
    result = LiveEvaluator(wrong, timed).evaluate(wrong.points()[0])
    assert result.status is Status.WRONG_RESULT
    assert "out is not in make_inputs, so the kernel got it uninitialized" in result.log
    # given by make_inputs, the hint would mislead: not said
    given = _space(zeroed.make_inputs, lambda inputs: _reference(inputs, off=1.0))
    result = LiveEvaluator(given, timed).evaluate(given.points()[0])
    assert result.status is Status.WRONG_RESULT and "make_inputs" not in result.log


def test_the_tune_summary_says_why_points_failed():
    from workbench.cli.tune_cmds import _failures_say

    def failed(label, status, log):
        return Evaluation(Point((("gx", label),)), status, None, log=log)

    evaluations = [
        Evaluation(Point((("gx", 1),)), Status.OK, 1e-3),
        failed(2, Status.WRONG_RESULT, "out: largest difference 3"),
        failed(3, Status.BUILD_FAILED, "Traceback ...\n  File x\nLoopyError: no\n\n"),
        failed(4, Status.WRONG_RESULT, "out: largest difference 5"),
    ]
    assert _failures_say(evaluations) == [
        "failed (wrong result): gx=2 and 1 more: out: largest difference 3",
        "failed (build failed): gx=3: LoopyError: no"]
    assert _failures_say(evaluations[:1]) == []


def test_a_nan_result_is_a_wrong_result(queue):
    """NaN compares false with anything: a check written as ``difference > tolerance``
    passed a kernel whose output was all NaN (uninitialized memory, or a 0/0)."""
    import loopy as lp
    import pyopencl as cl

    from workbench.tuning.live import LiveEvaluator

    def copy(point):
        knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = x[i]",
                             [lp.GlobalArg("x, y", np.float32, shape="n"), ...],
                             lang_version=(2018, 2), name="nan_copy")
        knl = lp.fix_parameters(knl, n=N)
        return lp.split_iname(knl, "i", point["g"], outer_tag="g.0", inner_tag="l.0")

    space = TuningSpace(name="nan_copy", description="", tune_params={"g": (16,)},
                        group_size=lambda p: (p["g"],), kernel=copy,
                        make_inputs=lambda rng: {"x": np.full(N, np.nan, np.float32)},
                        reference=lambda inputs: {"y": np.zeros(N, np.float32)})
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    result = LiveEvaluator(space, timed).evaluate(space.points()[0])
    assert result.status is Status.WRONG_RESULT, result.log
    assert result.log.startswith("y: largest difference nan")


def test_unsigned_outputs_are_checked_not_overflowed(queue):
    """pyopencl's arithmetic on unsigned arrays raised OverflowError inside the check,
    which ended a user's tune with a traceback (a space packing RGBA8 pixels into
    uint32 words); the difference is now taken in int64."""
    import loopy as lp
    import pyopencl as cl

    from workbench.tuning.live import LiveEvaluator

    def bump(point):
        knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = x[i] + 1",
                             [lp.GlobalArg("x, y", np.uint32, shape="n"), ...],
                             lang_version=(2018, 2), name="bump_u32")
        knl = lp.fix_parameters(knl, n=N)
        return lp.split_iname(knl, "i", point["g"], outer_tag="g.0", inner_tag="l.0")

    def space(off):
        return TuningSpace(
            name="bump_u32", description="", tune_params={"g": (16,)},
            group_size=lambda p: (p["g"],), kernel=bump,
            make_inputs=lambda rng: {"x": np.arange(N, dtype=np.uint32)},
            reference=lambda inputs: {"y": inputs["x"] + np.uint32(1 + off)})

    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    right, wrong = space(0), space(1)
    ahead = LiveEvaluator(right, timed)
    ahead.prepare_ahead(right.points()[0])       # the check warmed before the inputs
    u32, f64 = np.dtype(np.uint32), np.dtype(np.float64)
    assert ahead._warmed == {(u32, f64), (u32, u32)}
    assert ahead.evaluate(right.points()[0]).status is Status.OK
    assert LiveEvaluator(right, timed).evaluate(right.points()[0]).status is Status.OK
    result = LiveEvaluator(wrong, timed).evaluate(wrong.points()[0])
    assert result.status is Status.WRONG_RESULT
    assert result.log.startswith("y: largest difference 1")


def _conv(point):
    """A 1-D convolution whose filter length m stays a run-time value (lp.ValueArg)."""
    import loopy as lp

    knl = lp.make_kernel("{[i, j]: 0 <= i < n and 0 <= j < m}",
                         "y[i] = sum(j, w[j] * x[i + j])",
                         [lp.GlobalArg("x", np.float32, shape="n + m - 1"),
                          lp.GlobalArg("w", np.float32, shape="m"),
                          lp.GlobalArg("y", np.float32, shape="n"),
                          lp.ValueArg("n, m", np.int32)],
                         lang_version=(2018, 2), name="conv_runtime_m")
    knl = lp.fix_parameters(knl, n=N)
    return lp.split_iname(knl, "i", point["g"], outer_tag="g.0", inner_tag="l.0")


def test_a_value_argument_in_make_inputs_is_named_not_pyopencls_error():
    """make_inputs' values become device arrays: a newcomer's ``"m": np.int32(9)``
    failed every point with "The truth value of an array ... is ambiguous"."""
    from workbench.tuning.live import kernel_inputs

    inputs = {"x": np.zeros(N + 8, np.float32), "w": np.zeros(9, np.float32),
              "m": np.int32(9)}
    with pytest.raises(TuningError, match=r"make_inputs returned 'm', which the kernel "
                                          r"takes as a value \(lp.ValueArg\).*problem="):
        kernel_inputs(_conv(Point((("g", 16),))), inputs)
    del inputs["m"]   # arrays only: passed on as they are
    assert set(kernel_inputs(_conv(Point((("g", 16),))), inputs)) == {"x", "w"}


def test_the_tune_summary_names_a_value_argument_in_make_inputs(queue):
    import pyopencl as cl

    from workbench.cli.tune_cmds import _failures_say
    from workbench.tuning.live import LiveEvaluator

    space = TuningSpace(
        name="conv_runtime_m", description="", tune_params={"g": (16,)},
        group_size=lambda p: (p["g"],), kernel=_conv,
        make_inputs=lambda rng: {"x": np.ones(N + 8, np.float32),
                                 "w": np.ones(9, np.float32), "m": np.int32(9)},
        reference=lambda inputs: {"y": np.full(N, 9, np.float32)})
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    result = LiveEvaluator(space, timed).evaluate(space.points()[0])
    assert result.status is Status.LAUNCH_FAILED
    said, = _failures_say([result])
    assert "make_inputs returned 'm'" in said and "ambiguous" not in said, said
    # given as the space's problem instead, the same kernel runs and verifies
    fixed = dataclasses.replace(space, problem={"m": 9}, make_inputs=lambda rng: {
        "x": np.ones(N + 8, np.float32), "w": np.ones(9, np.float32)})
    result = LiveEvaluator(fixed, timed).evaluate(fixed.points()[0])
    assert result.status is Status.OK, result.log


def test_param_on_a_fixed_space_says_what_to_write(tmp_path):
    """``--param`` on a space assigned to a variable: the message said "a fixed space
    (problem {}); make it a function of its sizes", which a newcomer could not act on."""
    path = tmp_path / "fixed.py"
    path.write_text(FILE + '''
space = TuningSpace(name="fixed", description="", tune_params={"g": (16,)},
                    group_size=lambda p: (p["g"],), kernel=kernel, problem={"m": 9})
''')
    with pytest.raises(TuningError, match=r"its sizes fixed at m=9; --param m=5 cannot "
                                          r"change it.*def space\(n=1024\)"):
        resolve_space(f"{path}:space", m=5)
    assert resolve_space(f"{path}:space", m=9).problem == {"m": 9}   # the same: fine


def test_a_space_without_make_inputs_is_told_so_once(queue):
    """A live tune of a space without make_inputs ended in a ValueError's traceback."""
    import pyopencl as cl

    from workbench.tuning.live import LiveEvaluator

    space = TuningSpace(name="conv_no_inputs", description="", tune_params={"g": (16,)},
                        group_size=lambda p: (p["g"],), kernel=_conv, problem={"m": 9})
    timed = cl.CommandQueue(queue.context,
                            properties=cl.command_queue_properties.PROFILING_ENABLE)
    with pytest.raises(TuningError, match=r"space 'conv_no_inputs' has no make_inputs: "
                                          r"measuring its points needs make_inputs\(rng\)"):
        LiveEvaluator(space, timed).evaluate(space.points()[0])


def test_a_space_measured_unchecked_says_so(queue, tmp_path, capsys):
    """A space without reference() is measured without comparing results (as with
    --no-verify), and the summary said nothing of it."""
    from workbench.cli.main import main

    path = tmp_path / "unchecked.py"
    path.write_text(FILE + '''
space = TuningSpace(name="unchecked", description="", tune_params={"g": (16,)},
                    group_size=lambda p: (p["g"],), kernel=lambda p: lp.split_iname(
                        lp.fix_parameters(saxpy, n=N), "i", p["g"], outer_tag="g.0",
                        inner_tag="l.0"),
                    make_inputs=lambda rng: {"x": np.ones(N, np.float32)})
''')
    store = str(tmp_path / "s.sqlite")
    assert main(["tune", f"{path}:space", "--store", store, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "results not checked (the space has no reference(inputs))" in out, out
    # and where its evaluations went (newuser19: the default store was hard to find)
    assert f"recorded in {store} (every evaluation" in out, out
