"""Writes notebooks/lift_exploration.ipynb (without outputs): python scripts/make_lift_notebook.py"""
from pathlib import Path

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
cells = []
cells.append(md("""# Lift: IR features, PCA + kNN, and model-guided exploration (Figures 4 to 7)

One of the workbench's five papers (Remmelg et al., GPGPU '20; cited in
[docs/papers.md](../docs/papers.md#lift-ir-features)):
a kernel's low-level features are read from its IR **before any code is generated**, a
k-nearest-neighbours model trained on *other programs'* explored spaces predicts each
variant's throughput relative to the best, and the variants are measured best-predicted
first.

Everything here is replayed from the shipped H100 data (no GPU needed):

* `sample_data/h100/lift.sqlite`: the paper's eight stencil benchmarks (Table 2) written as
  one tunable loopy template (`workbench/kernels/tunable/lift_stencils.py`), every point of
  every space measured on the H100 at 512², 2048² and 8192² (9,762 points; 2026-11-23,
  driver 580.159.04, `scripts/h100_lift.sh`);
* `sample_data/h100/ir-samples.csv.xz`: their IR features and normalized throughputs
  (`workbench ir-samples`);
* `sample_data/h100/lift-*.csv`: the output of `python benchmarks/lift_exploration.py --out
  sample_data/h100` (leave-one-benchmark-out, mutual information, replayed exploration).

The cell tagged `parameters` holds `LIVE = False`; with `LIVE = True` the last section
explores a small Lift space on this machine's OpenCL device with the kNN strategy."""))
params = code("""# Parameters. CI (tests/test_notebooks.py) injects a cell after this one that sets
# LIVE = True and small values.
LIVE = False            # also explore a small Lift space on this machine's OpenCL device
DEVICE = None           # None: the default device (pocl's CPU device); or an index or name
LIVE_STORE = "../build/notebooks/live.sqlite"   # live explorations are recorded (and resumed) here
LIVE_SPACE = "lift_jacobi5"
LIVE_SIZE = 256         # live: the grid is LIVE_SIZE x LIVE_SIZE
LIVE_BUDGET = 8         # live: evaluations per strategy
RECHECK = True          # recompute the kNN's leave-one-benchmark-out from the sample file""")
params.metadata["tags"] = ["parameters"]
cells.append(params)
cells.append(code("""import time
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from IPython.display import display

from live import h100_dir
from workbench.models.ir_features import KNNConfig, leave_one_benchmark_out, load_samples, lobo_frame
from workbench.models.ir_features.samples import BENCHMARK

H100 = h100_dir()
lobo = pd.read_csv(H100 / "lift-lobo.csv")
nmi = pd.read_csv(H100 / "lift-nmi.csv", index_col="feature")
explored = pd.read_csv(H100 / "lift-exploration.csv")
summary = pd.read_csv(H100 / "lift-exploration-summary.csv")
curves = pd.read_csv(H100 / "lift-curves.csv.xz")
short = lambda name: name.removeprefix("lift_")
print(f"{explored.space.nunique()} benchmarks x {explored.input.nunique()} inputs, "
      f"{int(explored.groupby(['space', 'input']).points.first().sum())} variants")"""))
cells.append(md("""## Model accuracy, leave one benchmark out

For each benchmark, the model is fitted on the seven others and predicts the held-out one's
variants.  The paper reports correlations of 0.7 to 0.9 between predicted and measured
performance.  Runs to 90 % are exact expectations over the orders of tied predictions (kNN
averages five neighbours, so ties are common); random search's are its expectation."""))
cells.append(code("""paper = lobo[lobo.model == "knn (paper)"]
display(paper.pivot(index="benchmark", columns="input", values="correlation")
        .rename(index=short).round(2))
display(lobo.groupby("model", sort=False)[["correlation", "runs_to_90", "runs_to_95",
                                            "random_runs_to_90", "random_runs_to_95"]]
        .mean().round(2))"""))
cells.append(code("""if RECHECK:
    # the shipped table is what the sample file gives: recompute the paper's kNN
    samples = load_samples(H100 / "ir-samples.csv.xz")
    lift = samples[samples[BENCHMARK].str.startswith("lift_")]
    began = time.perf_counter()
    again = lobo_frame(leave_one_benchmark_out(lift, KNNConfig()))
    print(f"recomputed in {time.perf_counter() - began:.1f} s")
    assert np.allclose(again.runs_to_90.to_numpy(), paper.runs_to_90.to_numpy())
    assert np.allclose(again.correlation.to_numpy(), paper.correlation.to_numpy())"""))
cells.append(md("""## Figure 4: which features tell performance

The normalized mutual information of each feature with normalized throughput, both binned
by deciles, per benchmark.  As in the paper, the global sizes (the amount of parallel work,
and a 1D or 2D launch) come first, then global stores and loads.  Unlike the paper, cache
lines per warp access carry little here: on the H100 the stencils' lanes are contiguous in
every variant but those with 16-wide groups, which read two 128-byte lines per warp."""))
cells.append(code("""order = nmi["mean"].sort_values(ascending=False).index
long = nmi.drop(columns="mean").loc[order].rename(columns=short).reset_index().melt(
    id_vars="feature", var_name="benchmark", value_name="nmi")
fig = px.bar(long, x="feature", y="nmi", color="benchmark", barmode="group",
             title="Figure 4: normalized mutual information with performance (H100)",
             template="plotly_white", height=420)
fig.update_layout(yaxis_title="normalized mutual information", xaxis_title=None)
fig"""))
cells.append(md("""## Figure 5: best performance found against points evaluated

The best normalized performance found after each run, in the kNN's order (trained on the
seven other benchmarks) and random search's expectation, at 8192² (the other inputs are in
the same file)."""))
cells.append(code("""INPUT = "n=8192"
part = curves[(curves.input == INPUT) & curves.strategy.isin(["knn", "random (expected)"])
              & (curves.run <= 60)]
fig = px.line(part.assign(space=part.space.map(short)), x="run", y="fraction",
              color="strategy", facet_col="space", facet_col_wrap=4, template="plotly_white",
              height=480, title=f"Figure 5: best so far / best of the space ({INPUT}, H100)")
fig.update_yaxes(range=[0, 1.02])
fig"""))
cells.append(md("""## Figure 6: exploration speed-up against random search

Runs and seconds to reach 90 % of the best, random search's expectation divided by each
strategy's, per benchmark (mean over its three inputs).  Seconds count everything: the
ranking (features, model fit and prediction, run here on a 2-core machine), and for every
variant measured what it cost on the H100 (code generation, build, run)."""))
cells.append(code("""rnd = explored[explored.strategy == "random (expected)"].set_index(["space", "input"])
rows = []
for strategy in ("knn", "xgb", "model:overlap"):
    part = explored[explored.strategy == strategy].set_index(["space", "input"])
    if not len(part):
        continue
    ratio = pd.DataFrame({"runs": rnd.runs_to_90 / part.runs_to_90,
                          "time": rnd.seconds_to_90 / part.seconds_to_90})
    for space, r in ratio.groupby(level="space"):
        rows.append({"strategy": strategy, "benchmark": short(space),
                     "fewer runs (x)": np.exp(np.log(r.runs).mean()),
                     "less time (x)": np.exp(np.log(r.time).mean())})
speedups = pd.DataFrame(rows)
fig = px.bar(speedups.melt(id_vars=["strategy", "benchmark"], var_name="measure",
                           value_name="speed-up"),
             x="benchmark", y="speed-up", color="strategy", facet_row="measure",
             barmode="group", log_y=True, template="plotly_white", height=520,
             title="Figure 6: speed-up over random search to 90 % of the best "
                   "(geometric mean over inputs)")
fig.add_hline(y=1, line_dash="dot")
fig"""))
cells.append(md("""## Figure 7: runs to 90 % per program and input"""))
cells.append(code("""table = explored[explored.strategy.isin(["knn", "xgb", "model:overlap",
                                         "random (expected)"])]
fig = px.bar(table.assign(program=table.space.map(short) + " " + table.input),
             x="program", y="runs_to_90", color="strategy", barmode="group", log_y=True,
             template="plotly_white", height=430,
             title="Figure 7: runs to reach 90 % of the best (H100)")
display(fig)
display(summary.set_index("strategy").round(3))"""))
cells.append(md("""## Where it falls short, and why

The issue's goal is 90 % of the best within 2 runs on average and 95 % within 3, and at
least 30x less time than random search to reach 90 %.  The summary above has the figures
(they are also in `sample_data/h100/README.md`).  At 8192² the paper's kNN is close to the
goal; what pulls the average far away is the smallest input, 512²:

* the best 512² kernels take about 4 µs, near the launch floor, and the variants within
  10 % of the best differ by less than a few hundred nanoseconds, a handful of them among
  ~400: which ones they are is close to noise, and no feature of the IR can predict it;
* the features have no notion of working-set size (the paper says so of its own outliers,
  also at the extreme inputs): at 512² a grid fits in the H100's 50 MB L2 and the trade-offs
  of the larger inputs (coalescing, work per item against parallelism) no longer hold;
* our spaces are small (about 400 points per input against the paper's 10,000), so random
  search needs ~30 runs on average where it needed 97 there: the room for a speed-up is
  smaller.

The boosted-trees ranker (the kind of cost model TVM uses) and the count-based overlap
model of the 2019 paper are measured on the same replays."""))
cells.append(md("""## Rewrite spaces: implementations as different as the paper's

The spaces above keep every load coalesced, so random search needs only ~32 runs on
average.  The paper's rewrite rules also produce *bad* implementations.  The rewrite spaces
(`lift_rewrites_*`, `workbench.tuning.catalog.lift_rewrite_space`) add what they vary:

* work per item (1 to 8 rows and columns), **strided or blocked** over the item.  Blocked is
  Lift's `split` mapped onto work items without reordering: neighbouring lanes sit `cx`
  columns apart, so a warp's load touches up to `cx` times as many cache lines;
* groups of 32 to 1024 items, 8 to 512 lanes wide;
* local tiles or not, unrolled or not, and a 1D or 2D launch;
* vector width 1, 2 or 4 (Lift's `asVector`): blocked columns read from global memory as
  `float2`/`float4` windows with their halo vectors, and written as vectors
  (`workbench.kernels.tunable.lift_vectors`).

Each benchmark's scalar product has 2,666 to 2,947 valid points.  A fixed one-in-six sample
(by CRC-32 of the point) is measured exhaustively on the H100 at 2048² and 8192²: 7,190
scalar points, then 2,416 vector points (151 a benchmark and input), 9,606 in all, none
failed (`sample_data/h100/lift-rewrites.sqlite`, 2026-11-26,
`scripts/h100_lift_rewrites.sh`).  A vector variant is the fastest of 12 of the 16
inputs.  Their evaluation is
`python benchmarks/lift_exploration.py --spaces rewrites --models roofline --strategies
knn,knn-gpu,xgb --out sample_data/h100`; `knn-gpu` adds the GPU features (occupancy,
waves, tail, output bytes over L2, `workbench.models.ir_features.gpu`) to the paper's."""))
cells.append(code("""rw_lobo = pd.read_csv(H100 / "lift-rewrites-lobo.csv")
rw_explored = pd.read_csv(H100 / "lift-rewrites-exploration.csv")
rw_summary = pd.read_csv(H100 / "lift-rewrites-exploration-summary.csv")
rw_nmi = pd.read_csv(H100 / "lift-rewrites-nmi.csv", index_col="feature")
by_model = rw_lobo.groupby("model", sort=False)[["correlation", "runs_to_90",
                                                 "random_runs_to_90"]].mean()
display(by_model.round(2))
knn_rw = rw_lobo[rw_lobo.model == "knn (paper)"]
display(knn_rw.pivot(index="benchmark", columns="input",
                     values=["runs_to_90", "random_runs_to_90"]).round(1))
print("most informative features (mean NMI):",
      ", ".join(rw_nmi["mean"].sort_values(ascending=False).index[:3]))"""))
cells.append(code("""table = rw_explored[rw_explored.strategy.isin(["knn", "knn-gpu", "xgb", "model:roofline",
                                               "random (expected)"])]
fig = px.bar(table.assign(program=table.space.str.removeprefix("lift_rewrites_") + " "
                          + table.input),
             x="program", y="runs_to_90", color="strategy", barmode="group", log_y=True,
             template="plotly_white", height=430,
             title="Rewrite spaces: runs to reach 90 % of the best (H100, replayed)")
display(fig)
display(rw_summary.set_index("strategy").round(3))"""))
cells.append(md("""The roofline (Ernst et al., no fit: data volumes per memory level from the kernel
and the H100's description) ranks the same spaces by predicted seconds.  It was replayed
at 2048² only (`--sizes 2048 --models roofline --strategies none --no-lobo`,
`lift-rewrites-exploration-roofline.csv`): its ranking costs minutes per space on the
2-core machine."""))
cells.append(code("""roof_path = H100 / "lift-rewrites-exploration-roofline.csv"
if roof_path.is_file():
    roof = pd.read_csv(roof_path)
    both = pd.concat([roof[roof.strategy == "model:roofline"],
                      rw_explored[(rw_explored.input == "n=2048")
                                  & rw_explored.strategy.isin(["knn", "random (expected)"])]])
    display(both.pivot_table(index="space", columns="strategy",
                             values=["runs_to_90", "choosing_s"]).round(1))
else:
    print("no roofline replay shipped here")"""))
cells.append(md("""## The paper's figures beside ours

`python benchmarks/lift_side_by_side.py` writes `sample_data/h100/lift-side-by-side.csv`
from the tables above: the paper's number (NVIDIA Titan Black), ours on both space sets,
the difference and why.  What carries over from the Titan Black to the H100: the ranking
of the bulk of a space (correlation 0.66 to 0.97 here, 0.7 to 0.9 there) and, on the
rewrite spaces, the
paper's most informative feature (cache lines per warp access).  What does not: the H100
reaches its bandwidth bound with many more shapes (3 TB/s, a 50 MB L2 that holds a 2048²
grid), so random search needs far fewer runs than the paper's 97, and a variant is cheap
to build and run (~0.45 s), so ranking costs weigh as much as the runs they save."""))
cells.append(code("""side = pd.read_csv(H100 / "lift-side-by-side.csv")
with pd.option_context("display.max_colwidth", 120):
    display(side.drop(columns=["paper_value"]))"""))
cells.append(md("""## Live: the kNN strategy on this machine

With `LIVE = True`, the kNN (trained on the shipped H100 samples of the *other*
benchmarks) and random search each explore `LIVE_SPACE` at a small size on this machine's
OpenCL device.  On a CPU device the H100's trade-offs do not hold, so the kNN need not win
here: this shows the path (features, ranking, code generation, build, run), not the
result."""))
cells.append(code("""if LIVE:
    from workbench.measure import MeasurementStore, find_device, open_device
    from workbench.tuning.catalog import get_space
    from workbench.tuning.live import LiveEvaluator
    from workbench.tuning.runner import Budget, Explorer
    from workbench.tuning.strategies import make_strategy

    device = find_device(DEVICE)
    _, queue = open_device(device)
    live_space = get_space(LIVE_SPACE, n=LIVE_SIZE)
    evaluator = LiveEvaluator(live_space, queue)
    live = {}
    Path(LIVE_STORE).parent.mkdir(parents=True, exist_ok=True)
    with MeasurementStore.open(LIVE_STORE) as store:
        for label in ("knn", "random"):
            explorer = Explorer(live_space, make_strategy(label), evaluator,
                                budget=Budget(evaluations=LIVE_BUDGET), store=store,
                                device=device.identity)
            live[label] = explorer.run()
    print(f"{sum(len(r.evaluations) for r in live.values())} measurements on "
          f"{device.name} ({device.platform}), recorded in {LIVE_STORE}")
    rows = [{"strategy": label, "evaluations": len(r.evaluations),
             "choosing_s": r.choosing_s,
             "best_ms": 1e3 * min(e.time_s for e in r.evaluations if e.ok),
             "best point": min((e for e in r.evaluations if e.ok),
                               key=lambda e: e.time_s).point.label}
            for label, r in live.items()]
    display(pd.DataFrame(rows).round(4))
else:
    print("LIVE is False: set LIVE = True in the parameters cell to explore on this machine")"""))

nb = nbf.v4.new_notebook()
nb.cells = cells
nb.metadata = {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                              "name": "python3"}, "language_info": {"name": "python"}}
nbf.write(nb, str(Path(__file__).resolve().parents[1] / "notebooks" / "lift_exploration.ipynb"))
