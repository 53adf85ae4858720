"""An explanation in a student's words (:mod:`workbench.reports.explain_words`): the
sides of an overlap told apart where they share what they pay for, a negative term
said for what it is, and what to change first; in ``workbench explain`` and in the
dashboard's Explain tab.  The numbers stay the explanation's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.cli.main import main
from workbench.models.terms import Category, Overlap, OverlapSide, TermShare
from workbench.reports.explain_words import (
    hidden_terms,
    limiter_lines,
    overlap_says,
    pays_for,
    side_names,
    taken_back,
)

ROOT = Path(__file__).resolve().parents[1]
MY_KERNELS = ROOT / "examples" / "kernels" / "my_kernels.py"


def side(label, *terms):
    shares = tuple(TermShare(name, s, Category.GLOBAL if "mem" in name or "dram" in name
                             else Category.ARITHMETIC) for name, s in terms)
    return OverlapSide(label, sum(s for _, s in terms), shares)


def test_sides_that_share_a_category_are_named_by_their_largest_term():
    overlap = Overlap("smax", (
        side("global memory", ("f_l1_walk_s", 3e-4)),
        side("global memory + arithmetic + ...", ("f_mem_access_global_x", 5e-5),
             ("f_op_float32_add", 1e-5), ("f_dram_y", 2e-5))), 0, 3e-4)
    names = side_names(overlap)
    assert names == ["global memory (largest: f_l1_walk_s)",
                     "global memory + arithmetic + ... (largest: f_mem_access_global_x)"]
    said = overlap_says(overlap)
    assert said.startswith("smax: global memory (largest: f_l1_walk_s) wins, 0.3 ms against "
                           "global memory + arithmetic + ... (largest: f_mem_access_global_x)"
                           " 0.08 ms")
    # sides that pay for different things keep their plain labels
    apart = Overlap("smax", (side("arithmetic", ("f_op_float32_add", 2e-4)),
                             side("global memory", ("f_dram_y", 1e-4))), 0, 2e-4)
    assert side_names(apart) == ["arithmetic", "global memory"]
    assert overlap_says(apart) == apart.says()


def test_a_subtracted_overlap_says_what_it_takes_back_not_that_a_negative_side_wins():
    # A + M - smin(A, M): the account's sides are negative; the smaller one "won" and
    # read "smin: arithmetic wins, -0.006324 ms against global memory -0.03593 ms"
    hidden = side("arithmetic", ("f_op_float64_add", -4e-6), ("f_op_float64_mul", -2e-6))
    behind = side("global memory", ("f_mem_access_global_x", -3e-5))
    overlap = Overlap("smin", (hidden, behind), 0, -5.9e-6)
    assert taken_back(overlap)
    said = overlap_says(overlap)
    assert said.startswith("smin, taken back: arithmetic (0.006 ms) runs hidden behind "
                           "global memory (0.03 ms)"), said
    assert "wins" not in said and "-0" not in said
    # a side of nothing hides nothing: said so, not "nothing wins, -0 ms"
    empty = Overlap("smin", (side("nothing"), behind), 0, 0.0)
    assert overlap_says(empty).startswith("smin, taken back: nothing (the side it would "
                                          "hide costs 0 ms here)")
    # an smin that is not subtracted, and an smax, keep their own words
    plain = Overlap("smin", (side("arithmetic", ("f_op_float32_add", 1e-5)),
                             side("global memory", ("f_dram_y", 3e-5))), 0, 1e-5)
    assert not taken_back(plain) and overlap_says(plain) == plain.says()

    class Explained:     # what hidden_terms reads of an explanation
        overlaps = (overlap, plain)

    assert hidden_terms(Explained) == {("f_op_float64_add", -4e-6),
                                       ("f_op_float64_mul", -2e-6)}
    charged = TermShare("f_op_float64_add", 4e-6, Category.ARITHMETIC)
    back = TermShare("f_op_float64_add", -4e-6, Category.ARITHMETIC)
    assert pays_for(charged, hidden_terms(Explained)) == "arithmetic"
    assert pays_for(back, hidden_terms(Explained)) == "arithmetic, taken back (hidden)"


def test_explain_marks_the_terms_an_overlap_takes_back(capsys):
    # the demo's finite_diff: chains38 charges the additions and takes them back
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    rows = [re.split(r"\s{2,}", la) for la in out.splitlines()
            if la.startswith("f_op_float64_add ")]
    assert sorted(r[1] for r in rows) == ["arithmetic", "arithmetic, taken back (hidden)"]
    (back,) = [r for r in rows if "taken back" in r[1]]
    assert float(back[4]) < 0      # the taken-back row is the negative one
    assert "(taken back (hidden): charged once in the sum and taken back once" in out
    (line,) = [la for la in out.splitlines() if la.startswith("overlap smin")]
    assert re.fullmatch(r"overlap smin, taken back: arithmetic \([0-9.e-]+ ms\) runs "
                        r"hidden behind global memory \([0-9.e-]+ ms\), .*", line), line
    # no side of it "would have cost" a negative time
    assert "would have cost -" not in out


def test_the_readme_explanation_tells_its_sides_apart_and_says_what_to_change(capsys):
    # the README's example: it read "... + global memory + ... wins, 0.1456 ms against
    # global memory 0.07169 ms", global memory on both sides
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    (line,) = [la for la in out.splitlines() if la.startswith("overlap smax")]
    winner, loser = re.fullmatch(r"overlap smax: (.*) wins, .* against (.*) [0-9.]+ ms "
                                 r"\(.*\)", line).groups()
    assert "(largest: f_" in winner and "(largest: f_" in loser and winner != loser
    (why,) = [la for la in out.splitlines() if la.startswith("  why: ")]
    assert "(largest: f_" in why
    # the counts are a warp's, not every work item's: said under the table
    assert "(counts are the model's own: operations and local-memory accesses once " \
        "per warp" in out
    # the fused multiply-adds' negative term is said for what it is
    assert "note: f_op_float64_fma_pairs is negative on purpose" in out
    assert "(DRAM traffic left out of the floor: the arrays' bytes beyond what the L2 " \
        "cache holds take at most 0.06447 ms at the peak rate, below the prediction, so " \
        "it cannot bind)" in out
    (step,) = [la for la in out.splitlines() if la.startswith("to go faster: ")]
    (far,) = [la for la in out.splitlines() if la.startswith("  how far: ")]
    assert "local memory" in step and "at most 30.6x faster" in far


def test_a_walked_row_is_told_to_give_each_row_to_a_work_group(capsys):
    assert main(["explain", f"{MY_KERNELS}:row_sums", "--param", "n=4096,m=4096"]) == 0
    out = capsys.readouterr().out
    assert "to go faster: each work item walks a row of its own" in out
    # 1.001x its floor: "at its physical floor", not "at most 1x faster"
    assert "the kernel is at its physical floor (L1 wavefronts" in out
    assert "at most 1x faster" not in out
    # a term in seconds is a time in the count column, not "0.0001986" of something
    (row,) = [la for la in out.splitlines() if la.startswith("f_l1_walk_s ")]
    assert " ms (a time) " in row, row


def test_the_explain_tab_shows_the_same_words():
    pytest.importorskip("ipywidgets")
    from workbench.kernels import resolve_kernel
    from workbench.ui import ExplainPanel, Session
    from workbench.ui.session import KernelSelection

    session = Session()
    session.selection = KernelSelection.make(resolve_kernel("finite_diff"), dtype="float64",
                                             params={"n": 4096}, group_size="32x16")
    panel = ExplainPanel(session)
    e = panel.explanation
    # the CLI's limiter lines, each on a line of its own, the limiter in bold
    heading = panel.heading.value.replace("&#x27;", "'")
    for line in limiter_lines(e):
        assert f"<br>{line.strip()}" in heading.replace("&nbsp;", "").replace(
            "<b>", "").replace("</b>", ""), line
    assert f"limiter: <b>{e.limiter}</b>" in heading
    assert "(largest: f_" in panel.summary.value
    assert "fma_pairs is negative on purpose" in panel.summary.value
    assert "once per warp of 32 work items" in panel.summary.value


def test_predict_prints_counts_as_explain_does(capsys):
    # a student compares the two: predict printed 4.71859e+06 where explain 4,718,592
    assert main(["predict", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    (row,) = [la for la in out.splitlines() if la.startswith("f_sync_barrier_local ")]
    assert row.split()[-1] == "16,777,216", row
    assert "e+0" not in out.split("physical floor")[0]


def test_a_kernel_lifted_to_its_serial_floor_is_told_to_spread_its_loop(tmp_path, capsys):
    # one work item (no tagged loop): lifted to the serial-work floor, which more work
    # items lower; it read "only less work or fewer bytes make it faster"
    source = tmp_path / "seq.py"
    source.write_text("import loopy as lp\nimport numpy as np\n"
                      "seq = lp.make_kernel('{[i]: 0<=i<n}', 'y[i] = 2*x[i]', "
                      "[lp.GlobalArg('x,y', np.float32, shape='n'), ...], "
                      "lang_version=(2018, 2))\n")
    assert main(["explain", f"{source}:seq", "--param", "n=1024"]) == 0
    out = capsys.readouterr().out
    assert "limiter: serial work floor" in out
    assert "to go faster: the prediction is one work item's own chain of work: spread " \
        "the loop over many work items" in out


def test_the_rooflines_limiting_level_says_what_to_change(capsys):
    assert main(["explain", "finite_diff", "--param", "n=4096", "--model", "roofline",
                 "--device-model", "h100"]) == 0
    out = capsys.readouterr().out
    level = out.split("limiter: ")[1].split()[0]
    assert level in ("DRAM", "L2", "L1")
    assert f"to go faster: {level} traffic limits it" in out \
        or "to go faster: the bytes from DRAM limit it" in out


BLUR = '''
import loopy as lp
import numpy as np

blur = lp.make_kernel(
    "{[i, j]: 1 <= i < h-1 and 1 <= j < w-1}",
    "out[i, j] = (img[i-1, j] + img[i, j-1] + img[i, j] + img[i, j+1] + img[i+1, j]) / 5.0f",
    [lp.GlobalArg("img, out", np.float32, shape=("h", "w")), ...],
    lang_version=(2018, 2), name="blur")
blur = lp.split_iname(blur, "i", 16, outer_tag="g.1", inner_tag="l.1")
blur = lp.split_iname(blur, "j", 16, outer_tag="g.0", inner_tag="l.0")
'''


def test_a_limiter_under_half_the_time_is_not_called_most_of_it(tmp_path, capsys):
    # a student's blur: global memory limits it at well under half the time, and the
    # advice read "global memory is most of the time" beside "(45% of the time"
    kernel = tmp_path / "student.py"
    kernel.write_text(BLUR)
    assert main(["explain", f"{kernel}:blur", "--param", "h=4096,w=4096"]) == 0
    out = capsys.readouterr().out
    share = float(re.search(r"^limiter: [^(]*\((\d+)% of the time", out, re.M).group(1))
    assert share < 50
    (step,) = [la for la in out.splitlines() if la.startswith("to go faster: ")]
    assert "takes the largest share of the time" in step and "most of the time" not in step


def test_predict_says_what_its_counts_count_and_where_the_seconds_are(capsys):
    # 2^24 elements and 524,288 additions: per warp, which predict did not say
    assert main(["predict", f"{MY_KERNELS}:saxpy", "--param", "n=16777216"]) == 0
    out = capsys.readouterr().out
    (add,) = [la.split() for la in out.splitlines() if la.startswith("f_op_float32_add ")]
    assert add[-1] == f"{2 ** 24 // 32:,}"
    assert "(counts are the model's own: operations and local-memory accesses once per " \
        "warp" in out
    assert "the same arguments to workbench explain)" in out
    # the 2018 model prints seconds per term, of every work item's operations: no note
    assert main(["predict", f"{MY_KERNELS}:saxpy", "--param", "n=16777216", "--weights",
                 str(ROOT / "sample_data" / "h100" / "weights-linear.json")]) == 0
    out = capsys.readouterr().out
    (add,) = [la.split() for la in out.splitlines() if la.startswith("f_op_float32_add ")]
    assert add[1] == "seconds"
    assert "counts are the model's own" not in out
    assert "the same arguments to workbench explain)" in out


def test_the_python_api_page_explains_as_it_says(monkeypatch):
    # docs/python-api.md's explain snippet, run as written from the checkout's root
    page = (ROOT / "docs" / "python-api.md").read_text()
    section = page.split("## Why a kernel takes its time")[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(ROOT)
    names: dict = {}
    exec(compile(code, "docs/python-api.md", "exec"), names)
    why = names["why"]
    # a category it pays for (which one is the default model's to say), and the store's time
    assert why.limiter in {c.value for c in Category} and why.measured is not None
    assert names["shown"] and names["explain"](names["model"], names["mine"]).predicted_s > 0
    assert abs(why.terms_sum_s - why.predicted_s) <= 0.01 * why.predicted_s


def test_the_readme_explain_excerpt_is_what_explain_prints(capsys, monkeypatch):
    # every line the README shows of its explain example (but its "..." elisions) is a
    # line of the real output: a new default model or wording must refresh the excerpt
    readme = (ROOT / "README.md").read_text()
    block = readme.split("```\nmodel: expression", 1)[1].split("```", 1)[0]
    shown = [la for la in ("model: expression" + block).strip().splitlines() if la != "..."]
    monkeypatch.chdir(ROOT)
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64",
                 "--store", "sample_data/h100/measurements-fp64.sqlite"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(shown) >= 8 and [la for la in shown if la not in printed] == []


def test_the_limiter_is_said_in_short_lines_before_the_table(capsys):
    # one sentence of 250 characters said the limiter, its overlap and the floor, and
    # what to change came last, 40 lines below: a newcomer read it twice
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, la in enumerate(lines) if la.startswith("limiter: "))
    block = lines[at:at + 4]
    assert block[0] == "limiter: on-chip memory and barriers (61% of the time)"
    assert [la.split(":")[0] for la in block[1:]] == ["  why", "  how far", "to go faster"]
    assert "overlap smax wins" in block[1] and "(1.93x)" in block[1]
    assert "at most 30.6x faster" in block[2]
    assert lines[at + 4].startswith("term "), "the table follows the limiter's lines"
    assert max(map(len, block[:3])) <= 130, block
    assert sum(la.startswith("to go faster: ") for la in lines) == 1


def test_a_lifted_prediction_says_its_floor_as_the_why(capsys):
    assert main(["explain", f"{MY_KERNELS}:saxpy", "--param", "n=1024"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, la in enumerate(lines) if la.startswith("limiter: "))
    assert lines[at] == "limiter: launch floor"
    assert lines[at + 1].startswith("  why: the model's ") and "below the physical floor" \
        in lines[at + 1]
    assert lines[at + 2].startswith("to go faster: the prediction is the launch's fixed cost")


def test_a_floor_with_no_dram_traffic_says_so_in_words(capsys):
    # 4 KB of saxpy stay in the L2 cache: the floor's parts read "DRAM traffic 0 ms",
    # a DRAM that answers in no time, where no byte has to cross it at all
    for command in ("explain", "predict"):
        assert main([command, f"{MY_KERNELS}:saxpy", "--param", "n=1024"]) == 0
        out = capsys.readouterr().out
        (line,) = [la for la in out.splitlines() if la.startswith("physical floor")]
        assert "no DRAM traffic (the data fit in the L2 cache)" in line, (command, line)
        assert "DRAM traffic 0 ms" not in out and " 0 ms" not in line, (command, line)


def test_a_limiter_on_both_sides_of_an_overlap_says_what_decides(tmp_path, capsys):
    """A newcomer's 1-D convolution at n = 2^20: the launch limits it (39%), and the
    why read "its side of overlap smax wins ... against launch + arithmetic": launch
    against launch.  The launch costs the same on either side; the winner's own part,
    global memory, is what decides."""
    kernel = tmp_path / "conv.py"
    kernel.write_text('''
import loopy as lp
import numpy as np
conv1d = lp.make_kernel(
    "{[i, j]: 0 <= i < n and 0 <= j < m}", "y[i] = sum(j, w[j] * x[i + j])",
    [lp.GlobalArg("x", np.float32, shape="n + m - 1"), lp.GlobalArg("w", np.float32, shape="m"),
     lp.GlobalArg("y", np.float32, shape="n"), lp.ValueArg("n, m", np.int32)],
    lang_version=(2018, 2))
conv1d = lp.split_iname(conv1d, "i", 128, outer_tag="g.0", inner_tag="l.0")
''')
    assert main(["explain", f"{kernel}:conv1d", "--param", "n=1048576,m=9"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^limiter: launch \(", out, re.M), out[:600]
    (why,) = [la.strip() for la in out.splitlines() if la.strip().startswith("why: ")]
    assert why.startswith("why: launch is paid on both sides of overlap smax, the same "
                          "whichever wins; the side with global memory wins, "), why
    assert "its side of overlap" not in why
    # a limiter the other side does not pay for keeps its words
    assert main(["explain", "finite_diff", "--param", "n=4096", "--dtype", "float64"]) == 0
    out = capsys.readouterr().out
    assert "why: its side of overlap smax wins, " in out


def test_the_measured_ceilings_say_which_measurement_they_are(capsys):
    """A roofline explanation printed "dram bandwidth 2391.2 GB/s (measured ...)" in its
    notes and "DRAM (measured) 3,015 GB/s" among the ceilings: two H100 measurements,
    and nothing told them apart."""
    assert main(["explain", f"{MY_KERNELS}:row_sums", "--param", "n=4096,m=4096",
                 "--model", "roofline", "--device-model", "h100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, la in enumerate(lines) if la.startswith("ceilings of "))
    assert "DRAM (measured) 3,015 GB/s" in lines[at]
    said = lines[at + 1]
    assert said.startswith("  (measured: by benchmark kernels, h100/bandwidth.json 2026-11-23; "
                           "the data-volume model's own bandwidths"), said
    assert any(la.startswith("note: dram bandwidth 2391.2 GB/s") for la in lines)
    # the default model has no bandwidths of its own: only where the ceilings come from
    assert main(["explain", "finite_diff", "--param", "n=4096"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, la in enumerate(lines) if la.startswith("ceilings of "))
    assert lines[at + 1] == "  (measured: by benchmark kernels, h100/bandwidth.json 2026-11-23)"


def test_limiter_says_tells_two_sides_of_one_category_apart():
    # two memory sides (loads and stores): limiter_says read "smax: global memory wins,
    # 0.3 ms against global memory 0.2 ms", the two sides by one name (newuser19)
    from workbench.models.explanation import _limiter

    loads = side("global memory", ("f_mem_access_global_float32_load", 3e-4))
    stores = side("global memory", ("f_mem_access_global_float32_store", 2e-4))
    overlap = Overlap("smax", (loads, stores), 0, 3e-4)
    limiter, says = _limiter(None, list(loads.terms), 3e-4, None, False, 3e-4, (overlap,))
    assert limiter == "global memory"
    assert ("smax: global memory (largest: f_mem_access_global_float32_load) wins, 0.3 ms "
            "against global memory (largest: f_mem_access_global_float32_store) 0.2 ms") \
        in says, says
    # a family's own limiter says its overlap the same way
    _, own = _limiter("DRAM", list(loads.terms), 3e-4, None, False, 3e-4, (overlap,))
    assert "f_mem_access_global_float32_store" in own


def test_sides_alike_even_in_their_terms_are_told_apart_by_place():
    # a launch paid on both sides, largest on both: each named by a term of its own
    launch = ("f_sync_kernel_launch", 5e-6)
    a = OverlapSide("launch + global memory", 7e-6, (
        TermShare(*launch, Category.LAUNCH), TermShare("f_dram_x", 2e-6, Category.GLOBAL)))
    b = OverlapSide("launch + global memory", 6e-6, (
        TermShare(*launch, Category.LAUNCH), TermShare("f_l2_y", 1e-6, Category.GLOBAL)))
    assert Overlap("smax", (a, b), 0, 7e-6).side_names() == [
        "launch + global memory (largest of its own: f_dram_x)",
        "launch + global memory (largest of its own: f_l2_y)"]
    # the same terms on both sides: by their place
    same = Overlap("smax", (a, a), 0, 7e-6)
    assert same.side_names() == ["launch + global memory [side 1 of 2]",
                                 "launch + global memory [side 2 of 2]"]
    assert "[side 1 of 2] wins" in same.says() and "against launch + global memory " \
        "[side 2 of 2]" in same.says()
