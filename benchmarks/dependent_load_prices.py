"""Benchmark: the price of a dependent load (round 16 of issue #34), from the H100 probe of
the lookup chains (``scripts/h100_round16_probe.py``, ``sample_data/h100/round16-probe.txt.xz``;
the kernels in ``benchmarks/round16_chain_kernels.py``).

For each precision and launch size, every chain's measured time, the given model's
prediction (floors applied) and ``f_dependent_loads``
(:mod:`workbench.models.dependent_loads`); then, at the largest launch (every SM full),
the least-squares slope of the shortfall (measured less predicted) over
``f_dependent_loads`` across the 64-entry table's chains of 1 to 6 steps: what a
dependent load costs a warp beyond what the model's sum charges it, the coefficient a
round-16 model gives the feature.  The 4096-entry chains (lanes spread over up to 32
lines a load) are printed as a check, not used.

    python benchmarks/dependent_load_prices.py sample_data/h100/round16-probe.txt.xz \\
        sample_data/h100/weights-linear-fp64-sectors-chains24.json
"""

from __future__ import annotations

import argparse
import lzma
import warnings


def probe_times(path: str) -> dict[tuple[str, str, int], float]:
    """{(loopy kernel name, dtype, n): seconds} from the probe's table."""
    opener = lzma.open if path.endswith(".xz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].startswith("lookup_chain"):
                out[parts[0], parts[1], int(parts[2])] = float(parts[3]) * 1e-3
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe")
    parser.add_argument("weights", help="the fitted model whose prediction the price tops up")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import importlib.util
    from pathlib import Path

    import numpy as np

    from workbench.kernels.candidate import Candidate
    from workbench.kernels.user import spec_from_loopy
    from workbench.models.dependent_loads import dependent_loads
    from workbench.models.prediction import predict
    from workbench.models.registry import load_model

    path = Path(__file__).resolve().parent / "round16_chain_kernels.py"
    spec = importlib.util.spec_from_file_location("round16_chain_kernels", path)
    b = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(b)
    measured = probe_times(args.probe)
    model = load_model(args.weights)
    print(f"{'kernel':<24} {'dtype':<8} {'n':>9} {'measured':>9} {'predicted':>9} "
          f"{'ratio':>6} {'f_dependent_loads':>17}")
    prices = {}
    for dtype in ("float32", "float64"):
        largest = max(b.SIZES[dtype])
        xs, ys = [], []
        for table, steps in b.CHAINS:
            knl = b.lookup_chain(table, steps, dtype)
            s = spec_from_loopy(knl)
            for n in b.SIZES[dtype]:
                cand = Candidate.of(s, {"n": n}, dtype=dtype, group_size=(b.GROUP,))
                t = measured[knl.default_entrypoint.name, dtype, n]
                predicted = float(np.asarray(predict(model, [cand]).seconds)[0])
                _, chain = dependent_loads(cand)
                print(f"{knl.default_entrypoint.name:<24} {dtype:<8} {n:9d} {t * 1e3:9.5f} "
                      f"{predicted * 1e3:9.5f} {predicted / t:6.2f} {chain:17.0f}")
                if n == largest and table == 64 and steps >= 1:
                    xs.append(chain)
                    ys.append(t - predicted)
        slope, _ = np.polyfit(np.asarray(xs), np.asarray(ys), 1)
        prices[dtype] = slope
    print("\nthe price of a dependent load a warp, beyond the model's sum (64-entry table, "
          "1 to 6 steps, the largest launch):")
    for dtype, slope in prices.items():
        print(f"  {dtype}: {slope * 1e12:.3f} ps")


if __name__ == "__main__":
    main()
