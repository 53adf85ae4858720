"""The picker, the properties panel and the error area, driven without a browser:
widget values are set as a user would, and the panels' state is checked."""

from __future__ import annotations

import dataclasses
import html
import sys

import pytest

widgets = pytest.importorskip("ipywidgets")
pytest.importorskip("plotly")

import loopy as lp  # noqa: E402

from workbench.errors import ParameterError  # noqa: E402
from workbench.ui import ErrorArea, KernelPicker, PropertiesPanel, Session  # noqa: E402
from workbench.ui.session import DeviceChoice  # noqa: E402


def _axpy():
    knl = lp.make_kernel("{[i]: 0 <= i < n}", "y[i] = 2*x[i] + y[i]",
                         [lp.GlobalArg("x,y", "float32", shape="n"), lp.ValueArg("n", "int32")],
                         name="axpy", lang_version=(2018, 2))
    return lp.split_iname(knl, "i", 128, inner_tag="l.0", outer_tag="g.0")


@pytest.fixture
def panel():
    """A standalone properties panel with its own picker; no device list needed."""
    return PropertiesPanel(kernel="matmul_tiled", params="n=256,m=256,l=256",
                           group_size="16x16")


def _classes(widget) -> set[str]:
    return set(widget._dom_classes)


def test_import_workbench_does_not_import_ipywidgets():
    import subprocess
    code = ("import sys, workbench; assert 'ipywidgets' not in sys.modules; "
            "assert callable(workbench.dashboard)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_stable_css_classes_are_on_the_widgets(panel):
    picker = panel.picker
    assert "wb-kernel-select" in _classes(picker.kernel_select)
    assert "wb-variant-select" in _classes(picker.variant_select)
    assert "wb-params" in _classes(picker.params)
    assert "wb-group-size" in _classes(picker.group_size)
    assert "wb-device-select" in _classes(picker.device_select)
    assert "wb-properties-table" in _classes(panel.table)
    assert "wb-show-symbolic" in _classes(panel.show_symbolic)
    assert "wb-error" in _classes(panel.errors)


def test_picking_a_kernel_fills_its_variants_sizes_and_group_size(panel):
    picker = panel.picker
    picker.kernel_select.value = "transpose"
    assert picker.variant_select.options == ("prefetch", "read_strided", "write_strided")
    assert picker.variant_select.value == "prefetch"
    assert picker.params.value == "n=1024"
    assert picker.group_size.value == "32x16"
    assert panel.session.selection.name == "transpose"
    assert "f_thread_groups" in panel.counts and panel.errors.value == ""
    picker.kernel_select.value = "nbody"
    assert picker.variant_select.options == ("default",) and picker.group_size.value == "512"
    assert panel.counts["f_thread_groups"] == 2  # n=1024 bodies, 512 per group


def test_setting_parameters_updates_the_counts(panel):
    assert panel.counts["f_op_float32_mul"] == 256 ** 3
    panel.picker.params.value = "n=512,m=256,l=128"
    assert panel.counts["f_op_float32_mul"] == 512 * 256 * 128
    assert "16,777,216" in panel.table.value   # 512*256*128, as shown
    panel.picker.group_size.value = "32x16"
    assert panel.counts["f_thread_groups"] == (128 // 32) * (512 // 16)
    panel.picker.variant_select.value = "l_half"
    assert panel.session.selection.variant == "l_half"


def test_the_symbolic_form_is_shown_on_demand(panel):
    assert "symbolic" not in panel.table.value
    panel.show_symbolic.value = True
    assert "<th>symbolic</th>" in panel.table.value
    assert html.escape(panel.properties.symbolic("f_op_float32_mul")) in panel.table.value
    panel.show_symbolic.value = False
    assert "<th>symbolic</th>" not in panel.table.value


def test_sub_group_granularity_counts_per_sub_group(panel):
    per_item = panel.counts["f_op_float32_mul"]
    panel.granularity.value = "subgroup"
    panel.subgroup_size.value = 32
    assert panel.counts["f_op_float32_mul"] == per_item // 32


def test_a_bad_parameter_shows_one_line_in_the_error_area_and_does_not_raise(panel):
    before = dict(panel.counts)
    panel.picker.params.value = "n=lots"          # no exception escapes the callback
    assert "malformed parameter 'n=lots'" in panel.errors.value
    assert panel.counts == before                 # the last good counts stay
    panel.picker.params.value = "n=256,m=256,l=256,q=3"
    assert "unknown parameter of 'matmul_tiled' 'q'" in panel.errors.text
    panel.picker.params.value = "n=256"           # missing values, named, in one line
    # in the picker's words: where to type them, with the sizes given kept (the others
    # guessed as a user kernel's are: 256 each of three)
    assert panel.errors.messages == {"sizes": "matmul_tiled needs a size for m, l: type "
                                     "them in the sizes box, e.g. n=256,m=256,l=256"} \
        or panel.errors.messages == {"sizes": "matmul_tiled needs a size for l, m: type "
                                     "them in the sizes box, e.g. n=256,l=256,m=256"}
    assert "--param" not in panel.errors.text and "choose a kernel" in panel.table.value
    panel.picker.params.value = "n=lots,m=256"   # a malformed size: that message alone
    assert list(panel.errors.messages) == ["kernel"], panel.errors.messages
    panel.picker.params.value = "n=256,m=256,l=256"
    assert panel.errors.value == "" and panel.counts["f_op_float32_mul"] == 256 ** 3


def test_a_bad_group_size_and_a_violated_assumption_are_messages(panel):
    panel.picker.group_size.value = "16x16x16x2"
    assert "malformed group size" in panel.errors.text
    panel.picker.group_size.value = "16x16"
    assert panel.errors.value == ""
    panel.picker.params.value = "n=-4,m=256,l=256"
    assert panel.errors.value != "" and "Traceback" not in panel.errors.value
    # a size of 0: one line in the sizes' words (it was counted as a kernel doing
    # nothing, or refused in isl's words: "violate the kernel's assumptions [m, l, n]")
    panel.picker.params.value = "n=256,m=0,l=256"
    assert list(panel.errors.messages.values()) == [
        "kernel 'matmul_tiled': the size m must be at least 1, got 0 (a size of 0 leaves "
        "the kernel no work to do)"], panel.errors.messages
    panel.picker.params.value = "n=256,m=256,l=256"
    assert panel.errors.value == ""


def test_an_unknown_kernel_in_the_user_kernel_field_is_a_message():
    picker = KernelPicker(namespace={"my_axpy": _axpy(), "x": 3}, devices=())
    picker.user_kernel.value = "my_axpi"
    assert "unknown kernel" in picker.errors.text
    assert "Did you mean 'my_axpy'" in picker.errors.text
    picker.user_kernel.value = "x"
    assert "'x' is a int, not a loopy kernel" in picker.errors.text
    picker.user_kernel.value = "missing_file.py:k"
    assert "no such file: missing_file.py" in picker.errors.text
    assert picker.session.selection.name == "matmul_tiled"   # nothing changed


def test_a_users_loopy_kernel_from_the_notebook_namespace_is_picked_and_counted():
    session = Session()
    panel = PropertiesPanel(session, show_picker=False)
    picker = KernelPicker(session, namespace={"my_axpy": _axpy()}, devices=())
    picker.user_kernel.value = "my_axpy"
    assert picker.errors.value == ""
    assert picker.kernel_select.value == "my_axpy"
    assert ("my_axpy (your kernel)", "my_axpy") in picker.kernel_select.options
    assert picker.group_size.disabled and picker.group_size.value == "128"
    # no size cases: guessed large enough not to be all launch (2^24 for one parameter),
    # said so, and counted at once (no message it was missing)
    assert picker.params.value == "n=16777216" and "n=16777216" in panel.heading.value
    assert "sizes guessed, n=16777216: together about 2^24" in picker.description.value
    assert panel.counts["f_op_float32_mul"] == 2 ** 24
    # its group is its own, not "measured" by any campaign
    assert "group size 128 (built into the kernel)." in picker.description.value
    assert "user kernel my_axpy (loopy's name axpy). Parameters: n" in picker.description.value
    assert "measured" not in picker.description.value
    picker.params.value = "n=1024"
    assert panel.counts["f_op_float32_mul"] == 1024
    assert panel.counts["f_thread_groups"] == 8
    # the sizes are the user's now: no longer said to be guessed (a newcomer who had
    # typed n=1048576 still read "sizes guessed, ... until you type your own")
    assert "guessed" not in picker.description.value
    assert "group size 128 (built into the kernel)." in picker.description.value
    picker.select("my_axpy")     # picked again: its sizes guessed again, and said so
    assert "sizes guessed, n=16777216" in picker.description.value
    # a catalog name typed into the same field selects the catalog kernel
    picker.user_kernel.value = "finite_diff"
    assert session.selection.name == "finite_diff"


def test_a_kernel_from_a_file_is_found_again_by_its_name():
    from pathlib import Path
    kernels = Path(__file__).resolve().parents[1] / "examples" / "kernels" / "my_kernels.py"
    session = Session()
    picker = KernelPicker(session, namespace={}, devices=())
    picker.user_kernel.value = f"{kernels}:saxpy"
    assert session.selection.name == "saxpy" and session.selection.params_dict == {
        "n": 2 ** 24}
    picker.user_kernel.value = "finite_diff"
    picker.user_kernel.value = "saxpy"      # was "unknown kernel": no file, no variable
    assert picker.errors.value == "" and session.selection.name == "saxpy"


def test_the_device_picker_offers_shipped_data_and_publishes_the_choice():
    from workbench.measure.samples import shipped_data
    shipped = shipped_data()
    if not shipped:
        pytest.skip("no shipped data")
    choices = tuple(DeviceChoice.of_shipped(d) for d in shipped)
    session = Session()
    picker = KernelPicker(session, devices=choices, device="h100")
    assert session.device.shipped.name == "h100"
    assert session.store_path.endswith("measurements.sqlite")
    assert session.model is not None and session.model.family == "unified-linear"
    assert session.data is None   # nobody asked for the dataset: nothing loaded
    picker.device_select.value = choices[0]
    assert "NVIDIA H100" in picker.device_select.label


def test_an_unknown_device_is_a_message_not_an_exception():
    picker = KernelPicker(devices=(), device="no-such-gpu")
    assert "unknown device 'no-such-gpu'" in picker.errors.text


def test_the_error_area_shows_one_line_per_source_and_clears_on_success():
    area = ErrorArea()
    with area.catching("a"):
        raise ParameterError("first\nsecond line")
    with area.catching("b"):
        raise ValueError("a bug")
    assert area.messages == {"a": "first second line", "b": "ValueError: a bug"}
    assert "ValueError" in area.last_traceback and "Traceback" not in area.value
    with area.catching("a"):
        pass
    assert list(area.messages) == ["b"]
    area.guard("b", lambda: None)()
    assert area.value == ""
    area.show("<script>", "c")
    assert "&lt;script&gt;" in area.value


def test_the_heatmap_panel_ranks_the_picked_kernels_block_shapes_with_limiters():
    from workbench.ui import HeatmapPanel

    session = Session()
    picker = KernelPicker(session, kernel="finite_diff", params="n=128", devices=())
    panel = HeatmapPanel(session)
    panel.source.value = "roofline"
    assert "rank block shapes" in panel.note.value and panel.figure is None
    panel.threads.value = 16
    panel.rank_blocks(wait=True)
    assert panel.errors.value == ""
    assert set(panel.ranking["block"]) == {"1x16x1", "2x8x1", "4x4x1", "8x2x1", "16x1x1"}
    grid = panel.grid
    assert grid.y_label == "Y (threads)" and grid.xs == (1, 2, 4, 8, 16)
    assert [layer.name for layer in grid.layers] == ["predicted", "limiter"]
    assert set(grid.layer("limiter").categories) <= {"L1", "L2", "DRAM"}
    assert "wb-heatmap" in panel.figure._dom_classes
    assert panel.roofline_controls.layout.display is None
    # missing sizes are a message, and so is an impossible block total
    picker.params.value = ""
    panel.rank_button.click()
    assert "finite_diff needs a size for n: type them in the sizes box" in picker.errors.text
    assert "pick a kernel first" in panel.errors.text
    picker.params.value = "n=128"
    panel.threads.value = 3
    panel.rank_button.click()
    assert "no block shape of 3 threads" in panel.errors.text


def test_guessed_sizes_multiply_to_about_two_to_the_24():
    from workbench.ui.picker import guessed_sizes
    assert guessed_sizes(["n"]) == {"n": 2 ** 24}
    assert guessed_sizes(["n", "m"]) == {"n": 4096, "m": 4096}
    assert guessed_sizes(["n", "m", "k"]) == {"n": 256, "m": 256, "k": 256}
    assert guessed_sizes(["a", "b", "c", "d", "e"]) == {p: 2 ** 4 for p in "abcde"}
    assert guessed_sizes([]) == {}


def test_a_device_list_names_pocl_s_cpu_by_its_processor():
    from workbench.measure.devices import DeviceInfo
    from workbench.ui.session import opencl_label

    def info(name, platform):
        fields = {f.name: "" for f in dataclasses.fields(DeviceInfo)}
        return DeviceInfo(**{**fields, "index": 0, "name": name, "platform": platform})

    pocl = "Portable Computing Language"
    # pocl's build target first made the entry too wide for the list at a laptop's width
    assert opencl_label(info("pthread-skylake-avx512-Intel(R) Xeon(R) Processor", pocl)) == \
        "Intel(R) Xeon(R) Processor (pocl CPU, OpenCL device 0)"
    assert opencl_label(info("cpu-x86-64-AMD EPYC 7B13 64-Core Processor", pocl)) == \
        "AMD EPYC 7B13 64-Core Processor (pocl CPU, OpenCL device 0)"
    assert opencl_label(info("NVIDIA H200", "NVIDIA CUDA")) == \
        "NVIDIA H200 (NVIDIA CUDA, OpenCL device 0)"
