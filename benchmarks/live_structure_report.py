"""Report of a live tuning campaign on the H100 (scripts/h100_structure_tuning.sh):
model:linear against TPE, every cost on the clock.

For each user space, reads every run's store (one per strategy and seed: each
evaluation's recorded costs, the exploration's choosing cost, the strategy's own time
per step, in measured order) and prints the runs and the seconds until a measured
time is within 95 % of the reference best, and that time in measurements of the best
point.  The reference best is the fastest time of the space in the H100 exhaustive
store (``sample_data/h100/user-spaces.sqlite``) or in any live run, whichever is
faster; "oracle" is the mean recorded cost of measuring the exhaustive store's best
point.  A run that does not reach 95 % within its evaluations is shown as ">" its
whole cost, a lower bound of its time to 95 %: a mean over such runs is a lower bound
too, and a comparison it decides only one way (:func:`verdict`) says "undecided"
otherwise (before live run 9 it said "no" whenever the model strategy had a run that
did not reach, and compared against TPE's lower bound as if it were its mean).

With ``--second-pass STORE[,STORE]`` (a second exhaustive pass of the same spaces) a
point's reference time is the *slower* of its two passes, and the reference best the
fastest of those (:func:`two_pass_reference`): one fast outlier in one pass cannot set
a bar no run reaches (``structure-ranking.md`` section 21: blind2_rgb_gray's best,
0.3696 ms, measured 0.3875 ms in its second pass).  A point the second pass lacks
keeps its first pass's time; one only the second pass measured is left out (the first
store is the exhaustive one); the live runs still count as before.  Without it, the single
store's times are the reference, as ever.

``--reference stores`` leaves the live runs out of the reference best (the exhaustive
stores alone set it): a live run's single fast measurement then cannot move the bar for
every other run (live run 28, ``structure-ranking.md`` section 84, measured two spaces'
bests 5.5 and 8.1 % below the stores').  The default, ``stores-and-runs``, is the
reference of every report before it.

Run: ``python benchmarks/live_structure_report.py RUNS_DIR [--store STORE[,STORE]]
[--second-pass STORE[,STORE]] [--spaces NAME,...]``.
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import statistics
import warnings

SPACES = ("matmul_tiled", "stencil2d_5pt", "transpose", "rowsum", "triad", "stencil3d_7pt")


def _trace(path, space, clock="costs"):
    """(ranking seconds, [(time, seconds spent after it)]) of one run.  ``costs``: the
    recorded costs, a ranking that ran beside the first points (``--early-start``,
    ``before_ranking``) charged from when both were done; ``wall``: the wall clock the
    runner recorded at the end of each evaluation (``wall_s``), everything included."""
    from workbench.tuning.replay import load_space_evaluations

    evaluations = load_space_evaluations(path, space)
    ordered = sorted(evaluations.values(), key=lambda e: e.extra.get("sequence", 0))
    choosing = float(ordered[0].extra.get("choosing_s", 0.0)) if ordered else 0.0
    for e in ordered:
        if "ranking_s" in e.extra:
            choosing = float(e.extra["ranking_s"])
    early = any(e.extra.get("before_ranking") for e in ordered)
    spent, out = (0.0 if early else choosing), []
    for e in ordered:
        if early and not e.extra.get("before_ranking") and "ranking_s" in e.extra:
            spent = max(spent, choosing)
        spent += e.cost_s + float(e.extra.get("strategy_s", 0.0))
        wall = e.extra.get("wall_s")
        if clock == "wall":
            if wall is None:
                raise SystemExit(f"{path}: no wall clock recorded (runs before the early branch)")
            spent = float(wall)
        out.append((e.time_s if e.ok else math.inf, spent))
    return choosing, out


def _reference(paths, space):
    """The space's evaluations in the first exhaustive store that holds it (a store
    that is not there stops with its message)."""
    from workbench.errors import StoreError, TuningError
    from workbench.tuning.replay import load_space_evaluations

    for path in paths:
        try:
            return load_space_evaluations(path, space)
        except StoreError as error:
            raise SystemExit(str(error)) from None
        except TuningError:
            continue
    raise SystemExit(f"{space.name}: in none of the stores {', '.join(paths)}")


def two_pass_reference(first: dict, second: dict | None):
    """The reference best evaluation of a space's exhaustive store ``first`` (label ->
    evaluation), and its reference time: the fastest measured time, or with a second
    pass ``second`` each point's slower pass (a point failed in either pass is out; a
    point the second pass lacks keeps its first pass's time)."""
    def slower(label, e):
        other = (second or {}).get(label)
        if other is None:
            return e.time_s
        return max(e.time_s, other.time_s) if other.ok else math.inf

    ok = {label: slower(label, e) for label, e in first.items() if e.ok}
    ok = {label: t for label, t in ok.items() if math.isfinite(t)}
    if not ok:
        raise SystemExit("no point of the space was measured ok in every pass given: "
                         "no 95 % bar can be set")
    label = min(ok, key=ok.get)
    return first[label], ok[label]


def _to_target(trace, target):
    for runs, (t, spent) in enumerate(trace, start=1):
        if t <= target:
            return runs, spent, True
    return len(trace), (trace[-1][1] if trace else 0.0), False


def verdict(model: list[tuple[float, bool]], tpe: list[tuple[float, bool]]) -> str:
    """Whether the model strategy reaches 95 % in less time than TPE (means of the runs'
    seconds; a run that did not reach counts its whole cost, a lower bound): "yes",
    "no", or "undecided" where a lower bound leaves both possible."""
    m = statistics.fmean(s for s, _ in model)
    t = statistics.fmean(s for s, _ in tpe)
    m_exact, t_exact = all(r for _, r in model), all(r for _, r in tpe)
    if m_exact and m < t:        # TPE's mean is at least t
        return "yes"
    if t_exact and m >= t:       # the model's mean is at least m
        return "no"
    return "undecided"


def reference_best(stores_best: float, traces: dict, strategy: str,
                   reference: str = "stores-and-runs") -> float:
    """The best time 95 % is taken of: the stores' (``reference="stores"``), or the
    fastest of it and every time the report's runs of TPE and ``strategy`` measured
    (``traces``: run name ``STRATEGY-SEED`` -> (choosing s, [(time, s), ...]))."""
    if reference == "stores":
        return stores_best
    return min([stores_best] + [t for k, (_, tr) in traces.items() for t, _ in tr
                                if k.rsplit("-", 1)[0] in ("tpe", strategy)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs")
    parser.add_argument("--store", default="sample_data/h100/user-spaces.sqlite",
                        help="the exhaustive store(s), comma-separated: a space's "
                             "reference is the first that holds it")
    parser.add_argument("--second-pass",
                        help="a second exhaustive pass (store(s), comma-separated): a "
                             "point's reference time is the slower of its two passes")
    parser.add_argument("--spaces", default=",".join(SPACES),
                        help="examples/spaces/ names, comma-separated (default the six "
                             "design spaces)")
    parser.add_argument("--clock", choices=("costs", "wall"), default="costs",
                        help="costs: the recorded costs (a ranking beside early points "
                             "charged once both are done); wall: the runner's wall clock")
    parser.add_argument("--evals", type=int,
                        help="read only each run's first EVALS evaluations (a run of 15 "
                             "read as a run of 10: a strategy does not know its cap)")
    parser.add_argument("--reference", choices=("stores-and-runs", "stores"),
                        default="stores-and-runs",
                        help="what sets the best: the exhaustive stores and every live "
                             "run of the report (default), or the stores alone")
    parser.add_argument("--strategy", default="model",
                        help="the model-guided strategy's run to compare (model, model-bo)")
    args = parser.parse_args()
    if not glob.glob(os.path.join(args.runs, "*.sqlite")):
        raise SystemExit(f"no run stores (*.sqlite) under {args.runs}")
    warnings.filterwarnings("ignore")
    from workbench.tuning.catalog import resolve_space
    from workbench.tuning.replay import load_space_evaluations

    print(f"runs: {args.runs}; reference: {args.store}"
          + (f", each point the slower of it and {args.second_pass}" if args.second_pass
             else "") + ("" if args.reference == "stores-and-runs" else
                         " (the stores alone set the best, not the runs)")
          + f"; clock: {args.clock}"
          + (f"; each run's first {args.evals} evaluations" if args.evals else ""))
    print(f"{'space':<16} {'best ms':>8} {'oracle s':>8} | {'model runs':>10} {'model s':>8} "
          f"{'choosing s':>10} | {'TPE runs (seeds)':>18} {'TPE s (seeds)':>22} {'TPE mean s':>10}"
          f" | model faster")
    wins = undecided = 0
    for name in args.spaces.split(","):
        space = resolve_space(f"examples/spaces/{name}.py:space")
        store = _reference(args.store.split(","), space)
        second = _reference(args.second_pass.split(","), space) if args.second_pass \
            else None
        best_e, best_ref = two_pass_reference(store, second)
        oracle = best_e.cost_s
        runs = sorted(glob.glob(os.path.join(args.runs, f"{name}-*.sqlite")))
        traces = {os.path.basename(r)[len(name) + 1:-7]: _trace(r, space, args.clock)
                  for r in runs}
        if args.evals:
            traces = {k: (c, tr[: args.evals]) for k, (c, tr) in traces.items()}
        best = reference_best(best_ref, traces, args.strategy, args.reference)
        target = best / 0.95
        mine = [traces[k] for k in sorted(traces) if k.rsplit("-", 1)[0] == args.strategy]
        if not mine or not any(k.startswith("tpe-") for k in traces):
            raise SystemExit(f"{name}: no runs of {args.strategy} and of tpe under {args.runs}")
        model = (statistics.fmean(c for c, _ in mine), None)
        reached = [_to_target(tr, target) for _, tr in mine]
        # the mean over the strategy's runs (repeats of a seedless order: live noise)
        m_runs = ",".join(f"{'' if ok else '>'}{r}" for r, _, ok in reached)
        m_s = statistics.fmean(s for _, s, _ in reached)
        m_ok = all(ok for _, _, ok in reached)
        tpe = [_to_target(traces[k][1], target) for k in sorted(traces) if k.startswith("tpe-")]
        tpe_mean = statistics.fmean(s for _, s, _ in tpe)
        decided = verdict([(s, ok) for _, s, ok in reached], [(s, ok) for _, s, ok in tpe])
        wins += decided == "yes"
        undecided += decided == "undecided"

        def show(r, s, reached):
            return f"{r}" if reached else f">{r}", f"{s:.2f}" if reached else f">{s:.2f}"
        mr, ms = m_runs, (f"{m_s:.2f}" if m_ok else f">{m_s:.2f}")
        tr = ",".join(show(*x)[0] for x in tpe)
        ts = ",".join(show(*x)[1] for x in tpe)
        print(f"{name:<16} {best * 1e3:>8.4f} {oracle:>8.3f} | {mr:>10} {ms:>8} "
              f"{model[0]:>10.2f} | {tr:>18} {ts:>22} {tpe_mean:>10.2f} | "
              f"{decided} ({'>' if not all(ok for *_, ok in tpe) else ''}"
              f"{'<' if not m_ok else ''}{tpe_mean / m_s:.2f}x)")
    for name in args.spaces.split(","):   # runs that measured while they ranked (--early-start)
        space = resolve_space(f"examples/spaces/{name}.py:space")
        for run in sorted(glob.glob(os.path.join(args.runs, f"{name}-{args.strategy}-*.sqlite"))):
            rows = load_space_evaluations(run, space).values()
            early = [e for e in rows if e.extra.get("before_ranking")]
            after = [e.extra for e in rows if "ranking_s" in e.extra]
            if early or after:
                print(f"{os.path.basename(run)}: {len(early)} measured before the ranking "
                      f"was done ({sum(e.cost_s for e in early):.2f} s of costs), ranking "
                      f"{after[0]['ranking_s'] if after else float('nan'):.2f} s")
    print(f"{args.strategy}:linear reaches 95 % in less wall time than TPE (mean of its seeds; a "
          f"seed that never reaches it counted at its whole cost, a lower bound) on {wins} of "
          f"{len(args.spaces.split(','))} spaces; undecided (a lower bound leaves both possible) on "
          f"{undecided}")


if __name__ == "__main__":
    main()
