"""Benchmark: the prices of round 15 of issue #34, from the H100 probe of the trig chains
and 2-D stencils (``scripts/h100_round15_probe.py``, ``sample_data/h100/round15-probe.txt``;
the kernels in ``benchmarks/round15_probe_kernels.py``).

* **trig**: for each function and precision, a warp's dependent round with every SM full
  (the slope from 16 to 64 rounds over 2^22 work items), what the given model's
  arithmetic terms charge that round (the same slope of its ``f_op_*`` terms), and the
  difference; then the coefficient a round-15 model gives ``f_op_<dtype>_<fn>_calls``
  (the measured round less the round's other operations at their fitted weights and the
  generic special-function weight, as round 11 priced exp, log and sqrt) and
  ``f_op_<dtype>_sin_cos_mixes`` (the ``sincos`` round less the ``sin`` and ``cos``
  rounds).
* **stencil**: for each 2-D stencil, the measured time, the model's prediction, the
  loads' DRAM sectors with a footprint larger than their sectors (``afr:>1``: a stencil's
  neighbours, priced at ~0 by every fit since chains2) and the price a sector of those
  that makes the model's time the measured one (bisection on ``p_ldr`` / ``p_ldr_f64``);
  the price of a precision is the median over the grids beyond the L2 (n = 4096, 8192).
* **partial-store lines** (with ``--scattered-probe``, round 14's loopy probe,
  ``sample_data/h100/scattered-probe.txt``): for each array of structures written field
  by field whose lanes write sectors of their own, the measured time over the 128-byte
  lines that hold its partial sectors (``f_partial_store_lines``); the price is the
  median (a bound beside round 14's 9.67 ps a partial sector: the larger of the two).

    python benchmarks/trig_stencil_prices.py sample_data/h100/round15-probe.txt \\
        sample_data/h100/weights-linear-fp64-sectors-chains25.json \\
        --scattered-probe sample_data/h100/scattered-probe.txt
"""

from __future__ import annotations

import argparse
import statistics
import warnings


def probe_times(path: str) -> dict[str, float]:
    """{loopy kernel name: seconds} from the probe's table."""
    out = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3 and not line.startswith("#") and parts[0] != "kernel":
            out[parts[0]] = float(parts[2]) * 1e-3
    return out


def _charged(model, candidate) -> float:
    from workbench.models.explanation import explain
    return sum(t.seconds for t in explain(model, candidate).terms
               if t.name.startswith("f_op_"))


def trig_prices(b, measured, model) -> dict[tuple[str, str], tuple[float, float]]:
    """{(dtype, variant): (measured slope, charged slope)} in seconds a warp's round."""
    from workbench.kernels.candidate import Candidate
    from workbench.kernels.user import spec_from_loopy

    low, high = b.TRIG_ROUNDS
    rounds = (high - low) * b.TRIG_N / 32
    out = {}
    for dtype in ("float32", "float64"):
        for variant in b.TRIG_ROUNDS_EXPR:
            knls = [b.trig_chain(variant, r, dtype) for r in (low, high)]
            specs = [spec_from_loopy(k) for k in knls]
            t = [measured[s.name] for s in specs]
            charged = [_charged(model, Candidate.of(s, {"n": b.TRIG_N}, dtype=dtype,
                                                    group_size=(b.TRIG_GROUP,)))
                       for s in specs]
            out[dtype, variant] = ((t[1] - t[0]) / rounds,
                                   (charged[1] - charged[0]) / rounds)
    return out


def _model_with(model, name: str, value: float):
    import dataclasses
    params = dict(model.parameters)
    params[name] = value
    return dataclasses.replace(model, parameters=params)


def stencil_price(model, candidate, seconds: float, name: str) -> float:
    """The value of ``name`` (>= 0) that makes ``model``'s time (floors applied) of
    ``candidate`` ``seconds``; 0 where the model is over already."""
    import numpy as np

    from workbench.models.prediction import predict

    def time_at(p: float) -> float:
        return float(np.asarray(predict(_model_with(model, name, p), [candidate]).seconds)[0])

    lo, hi = 0.0, 1e-10
    if time_at(lo) >= seconds:
        return 0.0
    while time_at(hi) < seconds:
        hi *= 2
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if time_at(mid) < seconds else (lo, mid)
    return (lo + hi) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe")
    parser.add_argument("weights", help="the fitted model whose prediction the prices top up")
    parser.add_argument("--scattered-probe", help="round 14's loopy probe: the price of a "
                        "partial-store line")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import importlib.util
    from pathlib import Path

    import numpy as np

    from workbench.kernels.candidate import Candidate
    from workbench.kernels.user import spec_from_loopy
    from workbench.models.prediction import predict
    from workbench.models.registry import load_model

    path = Path(__file__).resolve().parent / "round15_probe_kernels.py"
    spec = importlib.util.spec_from_file_location("round15_probe_kernels", path)
    b = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(b)
    measured = probe_times(args.probe)
    model = load_model(args.weights)
    p = model.parameters

    print("trig chains: a warp's dependent round (ps), 16 to 64 rounds over 2^22 work items")
    print(f"{'variant':<10} {'dtype':<8} {'measured':>9} {'charged':>8} {'on top':>8} "
          f"{'coefficient of the calls':>25}")
    prices = trig_prices(b, measured, model)
    for (dtype, variant), (slope, charged) in prices.items():
        f64 = "_f64" if dtype == "float64" else ""
        others = {"sin": p[f"p_add{f64}"], "cos": p[f"p_add{f64}"],
                  "tan": p[f"p_add{f64}"], "atan2": 0.0}
        coefficient = ""
        if variant in others:
            coefficient = f"{(slope - others[variant] - p[f'p_spec{f64}']) * 1e12:.2f}" \
                          f" (= {slope * 1e12:.2f} less the rest)"
        if variant == "sincos":
            mix = slope - prices[dtype, "sin"][0] - prices[dtype, "cos"][0]
            coefficient = f"mix {mix * 1e12:.2f}"
        print(f"{variant:<10} {dtype:<8} {slope * 1e12:9.2f} {charged * 1e12:8.2f} "
              f"{(slope - charged) * 1e12:8.2f} {coefficient:>25}")

    print("\n2-D stencils: measured and predicted ms, afr>1 DRAM load sectors, the price "
          "(ps) a sector of those that closes the gap")
    print(f"{'kernel':<28} {'measured':>9} {'predicted':>9} {'ratio':>6} "
          f"{'afr>1 sectors':>13} {'price':>7}")
    beyond: dict[str, list[float]] = {"float32": [], "float64": []}
    for knl, dtype, _, size, group in b.stencil_kernels():
        s = spec_from_loopy(knl)
        cand = Candidate.of(s, {"n": size}, dtype=dtype, group_size=group)
        t = measured[s.name]
        predicted = float(np.asarray(predict(model, [cand]).seconds)[0])
        name = "p_ldr" if dtype == "float32" else "p_ldr_f64"
        one = float(np.asarray(predict(_model_with(model, name, p[name] + 1e-12),
                                       [cand], floors=False).seconds)[0]) \
            - float(np.asarray(predict(model, [cand], floors=False).seconds)[0])
        price = stencil_price(model, cand, t, name)
        if size > 1024:
            beyond[dtype].append(price)
        print(f"{s.name:<28} {t * 1e3:9.4f} {predicted * 1e3:9.4f} {predicted / t:6.2f} "
              f"{one * 1e12:13.4g} {price * 1e12:7.2f}")
    for dtype, values in beyond.items():
        print(f"afr>1 DRAM load sector, {dtype}: {statistics.median(values) * 1e12:.2f} ps "
              f"(median of {len(values)} grids beyond the L2; "
              f"{min(values) * 1e12:.2f}-{max(values) * 1e12:.2f})")
    if args.scattered_probe:
        partial_store_lines(args.scattered_probe)


def partial_store_lines(path: str) -> None:
    """Print the time a partial-store line of each array of structures of round 14's
    loopy probe, and their median."""
    import importlib.util
    from pathlib import Path

    from workbench.kernels.candidate import Candidate
    from workbench.kernels.user import spec_from_loopy
    from workbench.models.scattered_access_features import scattered_sectors

    here = Path(__file__).resolve().parent / "scattered_access_prices.py"
    spec = importlib.util.spec_from_file_location("scattered_access_prices", here)
    sp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sp)
    measured = probe_times(path)
    print("\narrays of structures written field by field (round 14's loopy probe): ms, "
          "partial sectors, their lines, ps a sector, ps a line")
    per_line = []
    for dtype in ("float32", "float64"):
        for fields in (2, 3, 4, 9, 16):
            s = spec_from_loopy(sp.store_fields(True, fields, dtype))
            counts = scattered_sectors(Candidate.of(s, {"n": sp.N}, dtype=dtype,
                                                    group_size=(sp.GROUP,)))
            t = measured[s.name]
            if not counts["lines"]:
                print(f"{s.name:<16} {t * 1e3:8.4f} (lanes share sectors: no partial sector)")
                continue
            per_line.append(t / counts["lines"])
            print(f"{s.name:<16} {t * 1e3:8.4f} {counts['store']:11.4g} {counts['lines']:11.4g} "
                  f"{t / counts['store'] * 1e12:6.2f} {t / counts['lines'] * 1e12:6.2f}")
    print(f"partial-store line: {statistics.median(per_line) * 1e12:.2f} ps (median of "
          f"{len(per_line)}; {min(per_line) * 1e12:.2f}-{max(per_line) * 1e12:.2f})")


if __name__ == "__main__":
    main()
