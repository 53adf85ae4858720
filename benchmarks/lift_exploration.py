"""The Lift paper's evaluation on the shipped H100 spaces of its eight stencil
benchmarks (no GPU needed): leave-one-benchmark-out accuracy, each feature's
information (Figure 4), and model-guided exploration against random search, a
count-based model and a gradient-boosted ranker (Figures 5 to 7).

    python benchmarks/lift_exploration.py [--spaces paper|rewrites] [--out DIR]
        [--models overlap,linear,roofline] [--strategies knn,knn-gpu,xgb] [--no-lobo]
        [--sizes 2048] [--benchmarks jacobi5,gaussian] [--tpe-seeds N]

``--spaces rewrites``: the rewrite spaces instead (``lift_rewrites_*``: strided or
blocked work assignment, 1 to 8 rows and columns per item, groups of 32 to 1024, a
one-in-six sample of each product, at 2048^2 and 8192^2), from
``sample_data/h100/lift-rewrites.sqlite`` and ``lift-rewrites-samples.csv.xz``; the CSV
files it writes are then named ``lift-rewrites-*``.  ``knn-gpu`` is the paper's kNN
on log features with the GPU features added (occupancy, waves, tail, output over L2:
:mod:`workbench.models.ir_features.gpu`).

Rankings read what an earlier session computed from the on-disk caches (IR features
per structure, fitted models): run it twice for a second session's figures, or with
``WORKBENCH_RANKING_CACHE=0`` for a first session's, every ranking computed anew.
``--benchmarks`` explores only some benchmarks (the learned strategies still learn
from all the others); the ranking seconds of each space are printed, elapsed and
processor seconds (this process and the workers it waited for), and the summary and
the goal again with each learned ranking charged its processor seconds, which a
shared machine's load does not inflate.

Part 1 (LOBO, from ``sample_data/h100/ir-samples.csv.xz``): per benchmark and input,
the correlation of predicted and measured normalized throughput and the runs to 90 %
and 95 % of the best, exact in expectation over tied predictions, for the paper's
kNN, kNN on log features and the boosted ranker; random search's expectation.

Part 2 (replay of ``sample_data/h100/lift.sqlite``): each strategy measures the
recorded points in its own order, its ranking run here and its cost counted, every
measurement costing what it cost on the H100 (code generation, build, run): runs and
seconds to 90 % and 95 %.  ``knn`` and ``xgb`` are trained on the other Lift
benchmarks only (the paper's protocol); ``model:overlap`` and ``model:linear`` are the
shipped count-based models of the 2019 and 2018 papers (``weights-overlap-fp64.json``,
``weights-linear.json``), which need no training on other programs.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.models.ir_features import (  # noqa: E402
    BoostedConfig,
    KNNConfig,
    feature_information,
    information_frame,
    leave_one_benchmark_out,
    load_samples,
    lobo_frame,
)
from workbench.models.ir_features.samples import BENCHMARK, INPUT  # noqa: E402
from workbench.tuning.catalog import (  # noqa: E402
    LIFT_REWRITE_SIZES,
    LIFT_REWRITE_SPACES,
    LIFT_SIZES,
    LIFT_SPACES,
    get_space,
)
from workbench.tuning.ir_strategies import IRBoostedRanker, IRFeatureKNN  # noqa: E402
from workbench.tuning.replay import ReplayEvaluator, load_space_evaluations  # noqa: E402
from workbench.tuning.study import compare_strategies  # noqa: E402

H100 = ROOT / "sample_data" / "h100"
CONFIGS = {"knn (paper)": KNNConfig(), "knn (log features)": KNNConfig(log_features=True),
           "knn (log, GPU features)": KNNConfig(log_features=True, device="h100"),
           "xgb (ndcg)": BoostedConfig(), "xgb (pairwise)": BoostedConfig("rank:pairwise"),
           "xgb (ndcg, GPU features)": BoostedConfig(device="h100")}


@dataclass(frozen=True)
class SpaceSet:
    """Which Lift spaces are evaluated, at which sizes, from which files."""

    spaces: tuple[str, ...]
    sizes: tuple[int, ...]
    store: Path
    samples: Path
    prefix: str          # of the CSV files written


SPACE_SETS = {
    "paper": SpaceSet(tuple(LIFT_SPACES), LIFT_SIZES, H100 / "lift.sqlite",
                      H100 / "ir-samples.csv.xz", "lift"),
    "rewrites": SpaceSet(tuple(LIFT_REWRITE_SPACES), LIFT_REWRITE_SIZES,
                         H100 / "lift-rewrites.sqlite", H100 / "lift-rewrites-samples.csv.xz",
                         "lift-rewrites")}


def lobo(samples: pd.DataFrame) -> pd.DataFrame:
    frames = []
    for label, config in CONFIGS.items():
        began = time.perf_counter()
        f = lobo_frame(leave_one_benchmark_out(samples, config))
        f.insert(0, "model", label)
        f["fit_seconds_all_folds"] = time.perf_counter() - began
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


COUNT_MODELS = {"overlap": "weights-overlap-fp64.json", "linear": "weights-linear.json",
                "roofline": None}     # None: the roofline on the H100's description


def _count_model(label: str):
    from workbench.models import load_model
    from workbench.models.registry import get_family

    if COUNT_MODELS[label] is None:
        return get_family(label).ready(device_model="h100")
    return load_model(H100 / COUNT_MODELS[label])


def explore(spaces: SpaceSet, samples_path: Path, count_models: list[str],
            learned: list[str], tpe_seeds: int,
            train_on: tuple[str, ...] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``train_on``: the benchmarks the learned strategies learn from (less the one
    explored; default: the explored ones)."""
    lift = list(spaces.spaces)
    known = list(train_on or lift)
    factories = {
        "knn": lambda: _cpu_timed(IRFeatureKNN, "knn")(training=[samples_path], only=known),
        "knn-gpu": lambda: _cpu_timed(IRFeatureKNN, "knn-gpu")(
            training=[samples_path], only=known,
            config=KNNConfig(log_features=True, device="h100")),
        "xgb": lambda: _cpu_timed(IRBoostedRanker, "xgb")(training=[samples_path],
                                                           only=known)}
    strategies = {name: factories[name] for name in learned}
    models = {label: _count_model(label) for label in count_models}
    rows, curves = [], []
    for name in lift:
        for n in spaces.sizes:
            space = get_space(name, n=n)
            evaluator = ReplayEvaluator(space, load_space_evaluations(spaces.store, space))
            comparison = compare_strategies(space, evaluator, models, tpe_seeds=tpe_seeds,
                                            strategies=strategies)
            frame = comparison.frame()
            frame.insert(1, "input", f"n={n}")
            frame["choosing_cpu_s"] = [RANKING_CPU_S.get((name, n, s), 0.0)
                                       for s in frame["strategy"]]
            frame.insert(2, "points", comparison.points)
            rows.append(frame)
            for c in comparison.curves:
                curves.append(pd.DataFrame({
                    "space": name, "input": f"n={n}", "strategy": c.label,
                    "run": np.arange(1, len(c.fraction) + 1), "fraction": c.fraction,
                    "cost_s": c.cost_s}))
            rnd = comparison.random_curve
            curves.append(pd.DataFrame({
                "space": name, "input": f"n={n}", "strategy": "random (expected)",
                "run": np.arange(1, len(rnd) + 1), "fraction": rnd,
                "cost_s": comparison.random_cost_per_run * np.arange(1, len(rnd) + 1)}))
            print(f"  {name} n={n}: {len(frame)} strategies", file=sys.stderr, flush=True)
    return pd.concat(rows, ignore_index=True), pd.concat(curves, ignore_index=True)


#: (space, n, strategy) -> processor seconds of its ranking, this process and the
#: worker processes it waited for: under another session's load, elapsed seconds
#: say more about the machine's other users than about the ranking
RANKING_CPU_S: dict[tuple[str, int, str], float] = {}


def _cpu_timed(cls, label: str):
    """``cls`` whose ranking also records its processor seconds in RANKING_CPU_S."""
    from workbench.tuning.costs import timed

    class CPUTimed(cls):
        def start(self, space, points):
            seconds, spent = timed(lambda: cls.start(self, space, points))
            RANKING_CPU_S[space.name, int(dict(space.problem)["n"]), label] = spent.cpu_s
            return seconds
    CPUTimed.__name__ = cls.__name__
    return CPUTimed


def charged_cpu(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each learned ranking charged its processor seconds instead of
    its elapsed ones (what it costs on a machine of its own, one processor second
    a second: no credit for the cores it ran on in parallel)."""
    out = table.copy()
    learned = out["choosing_cpu_s"] > 0
    for col in ("seconds_to_90", "seconds_to_95", "seconds_all"):
        out.loc[learned, col] = (out.loc[learned, col] - out.loc[learned, "choosing_s"]
                                 + out.loc[learned, "choosing_cpu_s"])
    out.loc[learned, "choosing_s"] = out.loc[learned, "choosing_cpu_s"]
    return out


def exploration_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per strategy: mean runs to 90 % and 95 % over the 24 space inputs, and the
    time to 90 % against random search's (geometric mean of the per-input ratios,
    and the ratio of the summed seconds)."""
    rnd = table[table.strategy == "random (expected)"].set_index(["space", "input"])
    out = []
    for strategy, part in table.groupby("strategy", sort=False):
        part = part.set_index(["space", "input"])
        ratio = rnd["seconds_to_90"] / part["seconds_to_90"]
        out.append({
            "strategy": strategy, "inputs": len(part),
            "mean_runs_to_90": part["runs_to_90"].mean(),
            "mean_runs_to_95": part["runs_to_95"].mean(),
            "seconds_to_90": part["seconds_to_90"].sum(),
            "time_saving_vs_random_90_geomean": float(np.exp(np.log(ratio).mean())),
            "time_saving_vs_random_90_total": rnd["seconds_to_90"].sum()
            / part["seconds_to_90"].sum(),
            "choosing_s_mean": part["choosing_s"].mean()})
    return pd.DataFrame(out)


def lobo_summary(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for model, part in table.groupby("model", sort=False):
        row = {"model": model, "correlation_mean": part["correlation"].mean(),
               "mean_runs_to_90": part["runs_to_90"].mean(),
               "mean_runs_to_95": part["runs_to_95"].mean(),
               "random_runs_to_90": part["random_runs_to_90"].mean(),
               "random_runs_to_95": part["random_runs_to_95"].mean()}
        for label, by_input in part.groupby("input", sort=False):
            row[f"runs_to_90 {label}"] = by_input["runs_to_90"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spaces", choices=sorted(SPACE_SETS), default="paper",
                        help="the paper-sized spaces or the rewrite spaces")
    parser.add_argument("--sizes", help="only these inputs, e.g. 2048 (default: the "
                        "space set's)")
    parser.add_argument("--benchmarks", help="only these benchmarks, e.g. "
                        "jacobi5,gaussian (default: all eight)")
    parser.add_argument("--samples", type=Path,
                        help="sample file (default: the space set's shipped one)")
    parser.add_argument("--out", type=Path, help="write the tables as CSV here")
    parser.add_argument("--models", default="overlap",
                        help="count-based models to rank with, of "
                             f"{','.join(COUNT_MODELS)} (overlap: about 20 s a space)")
    parser.add_argument("--strategies", default="knn,xgb",
                        help="learned strategies to replay (knn, xgb; 'none')")
    parser.add_argument("--no-lobo", action="store_true",
                        help="skip leave-one-benchmark-out and the information table")
    parser.add_argument("--tpe-seeds", type=int, default=0)
    args = parser.parse_args()
    count_models = [m for m in args.models.split(",") if m and m != "none"]
    learned = [m for m in args.strategies.split(",") if m and m != "none"]
    unknown = set(count_models) - set(COUNT_MODELS) | set(learned) - {"knn", "knn-gpu",
                                                                       "xgb"}
    if unknown:
        parser.error(f"unknown model or strategy {sorted(unknown)[0]!r}")
    spaces = SPACE_SETS[args.spaces]
    if args.sizes:
        spaces = dataclasses.replace(spaces, sizes=tuple(int(v) for v in
                                                         args.sizes.split(",")))
    if args.benchmarks:
        wanted = [b for b in args.benchmarks.split(",") if b]
        chosen = tuple(s for s in spaces.spaces if s.rpartition("_")[2] in wanted)
        if len(chosen) != len(wanted):
            parser.error(f"unknown benchmark among {args.benchmarks!r}")
        spaces = dataclasses.replace(spaces, spaces=chosen)
    samples_path = args.samples or spaces.samples

    samples = load_samples(samples_path)
    samples = samples[samples[BENCHMARK].isin(list(spaces.spaces))
                      & samples[INPUT].isin([f"n={n}" for n in spaces.sizes])
                      ].reset_index(drop=True)
    pd.set_option("display.width", 200)
    print(f"# Lift evaluation on the H100, {args.spaces} spaces ({len(samples)} variants, "
          f"{samples[BENCHMARK].nunique()} benchmarks, inputs "
          f"{', '.join(map(str, spaces.sizes))}^2)\n")
    if not args.no_lobo:
        table, nmi = lobo_part(samples)
    explored, curves = explore(spaces, samples_path, count_models, learned, args.tpe_seeds,
                               train_on=SPACE_SETS[args.spaces].spaces)
    print("\n## Exploration, replayed (every cost counted)\n", flush=True)
    summary = exploration_summary(explored)
    print(summary.round(3).to_string(index=False))
    print("\n## Ranking seconds per space (choosing_s, measured here)\n")
    ranked = explored[explored.choosing_s > 0]
    print(ranked.pivot_table(index=["space", "input"], columns="strategy",
                             values="choosing_s").round(2).to_string(), flush=True)
    if learned:
        import os
        print("\n## The same with each ranking charged its processor seconds (this "
              "process and its workers; load average "
              f"{' '.join(f'{v:.2f}' for v in os.getloadavg())})\n")
        on_cpu = charged_cpu(explored)
        print(exploration_summary(on_cpu).round(3).to_string(index=False))
        print()
        print(ranked.pivot_table(index=["space", "input"], columns="strategy",
                                 values="choosing_cpu_s").round(2).to_string(),
              flush=True)
        print(goal_lines(on_cpu).replace("\nGoal:", "\nGoal, rankings charged their "
                                          "processor seconds:"))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        prefix = spaces.prefix
        if not args.no_lobo:
            table.to_csv(args.out / f"{prefix}-lobo.csv", index=False)
            nmi.to_csv(args.out / f"{prefix}-nmi.csv", index_label="feature")
        explored.to_csv(args.out / f"{prefix}-exploration.csv", index=False)
        summary.to_csv(args.out / f"{prefix}-exploration-summary.csv", index=False)
        curves.to_csv(args.out / f"{prefix}-curves.csv.xz", index=False)
    print(goal_lines(explored))
    return 0 if all(math.isfinite(v) for v in summary.mean_runs_to_90) else 1


HARD_RANDOM_RUNS = 30     # the goal counts inputs where random needs this many


def goal_lines(table: pd.DataFrame) -> str:
    """The goal's figures per learned strategy: runs to 90 % on average over every
    input and over the inputs where random search needs at least HARD_RANDOM_RUNS,
    and time to 90 % against random's (geometric mean of the per-input ratios)."""
    rnd = table[table.strategy == "random (expected)"].set_index(["space", "input"])
    hard = rnd.index[rnd["runs_to_90"] >= HARD_RANDOM_RUNS]
    lines = [f"\nGoal: at most 5 runs to 90 % on inputs where random needs at least "
             f"{HARD_RANDOM_RUNS} ({len(hard)} of {len(rnd)} inputs here; random "
             f"{rnd['runs_to_90'].mean():.1f} on average), 10x less time than random"]
    for strategy in ("knn", "knn-gpu", "xgb"):
        part = table[table.strategy == strategy].set_index(["space", "input"])
        if not len(part):
            continue
        ratio = rnd["seconds_to_90"] / part["seconds_to_90"]
        on_hard = part.loc[hard, "runs_to_90"].mean() if len(hard) else float("nan")
        # what the same runs would save with a ranking that cost nothing: the most
        # any cut of the ranking's cost can reach
        free = rnd["seconds_to_90"] / (part["seconds_to_90"] - part["choosing_s"])
        hard_ratio = ratio[hard] if len(hard) else ratio.iloc[:0]
        lines.append(f"  {strategy}: {part['runs_to_90'].mean():.2f} runs on average, "
                     f"{on_hard:.2f} where random needs >= {HARD_RANDOM_RUNS}; time to 90 % "
                     f"{float(np.exp(np.log(ratio).mean())):.2f}x less than random "
                     f"(ranking {part['choosing_s'].mean():.2f} s a space; "
                     f"{float(np.exp(np.log(hard_ratio).mean())):.2f}x where random needs "
                     f">= {HARD_RANDOM_RUNS}; over every input with a ranking that "
                     f"cost nothing {float(np.exp(np.log(free).mean())):.2f}x)")
    return "\n".join(lines)


def lobo_part(samples: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    table = lobo(samples)
    print("## Leave one benchmark out (expected runs over tied predictions)\n")
    print(lobo_summary(table).round(2).to_string(index=False))
    print()
    paper = table[table.model == "knn (paper)"]
    print(paper.drop(columns=["model", "training_points", "fit_seconds_all_folds"])
          .round(2).to_string(index=False))
    nmi = information_frame(feature_information(samples))
    nmi["mean"] = nmi.mean(axis=1)
    print("\n## Normalized mutual information with normalized throughput (Figure 4)\n")
    print(nmi.sort_values("mean", ascending=False).round(3).to_string(), flush=True)
    return table, nmi


if __name__ == "__main__":
    sys.exit(main())
