"""Benchmark: the prices of round 10 of issue #34 (rows walked along one work item, and
the error function), read from the ``row_walk`` and ``erfc_chain`` measurements.

* a walked store sector: the ``fill`` rows (stores only, one load a row) of at least
  2^18 rows (many waves): the measured time over the walked store sectors that
  :mod:`workbench.models.row_walk_features` counts, the median per dtype;
* the walked loads are not priced here: their L1 wavefronts are (``f_l1_walk_s``, one
  line a cycle per SM); the ``sum`` rows' time over that bound is printed as a check;
* an ``erfc`` call: the ``erfc_chain`` slope from 4 to 16 rounds (a warp's call, the
  mean of groups 128 and 256) less what the model's sum already charges each round (a
  special function and a multiplication at the weights given).

    python benchmarks/row_walk_prices.py sample_data/h100/row-walk.sqlite \\
        sample_data/h100/weights-linear-fp64-sectors-chains10.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import warnings

DEVICE = "NVIDIA H100 80GB HBM3"
WAVES_FROM = 2 ** 18


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("weights", help="the fitted model whose sum the erfc price tops up")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from workbench.kernels.candidate import Candidate
    from workbench.measure.store import MeasurementStore
    from workbench.models.row_walk_features import row_walk_values

    with MeasurementStore.open(args.store, create=False, readonly=True) as store:
        rows = [m for m in store.measurements() if m.time_s is not None]
    cands = [Candidate(m.key.kernel, m.key.variant, tuple(m.key.group_size),
                       tuple(m.key.params), m.key.dtype) for m in rows]
    values = row_walk_values(cands, DEVICE)
    weights = json.load(open(args.weights))["parameters"]
    prices, checks, slopes = {}, {}, {}
    for i, (m, c) in enumerate(zip(rows, cands)):
        p, dt = c.params_dict, c.dtype
        if m.key.kernel == "row_walk" and p["n"] >= WAVES_FROM:
            if m.key.variant == "fill":
                sectors = values[f"f_walk_{dt}_store_sectors"][i]
                prices.setdefault(dt, []).append(m.time_s / sectors)
                print(f"fill {dt} group {c.group_size[0]} cols {p['cols']:>3} n {p['n']:>8}: "
                      f"{m.time_s * 1e3:8.4f} ms, {m.time_s / sectors * 1e12:6.2f} ps a sector")
            elif m.key.variant == "sum":
                ratio = m.time_s / values["f_l1_walk_s"][i]
                checks.setdefault(dt, []).append(ratio)
                print(f"sum  {dt} group {c.group_size[0]} cols {p['cols']:>3} n {p['n']:>8}: "
                      f"{m.time_s * 1e3:8.4f} ms, {ratio:5.2f}x the L1 wavefront time")
        if m.key.kernel == "erfc_chain":
            slopes.setdefault((dt, c.group_size[0]), {})[p["rounds"]] = (m.time_s, p["n"])
    for dt, found in sorted(prices.items()):
        print(f"walked store sector, {dt}: median {statistics.median(found) * 1e12:.2f} ps "
              f"({len(found)} rows); sum rows / L1 time: median "
              f"{statistics.median(checks[dt]):.2f}")
    for dt in ("float32", "float64"):
        per_call = []
        for (d, _), t in slopes.items():
            if d == dt and 4 in t and 16 in t:
                (t4, n), (t16, _) = t[4], t[16]
                per_call.append((t16 - t4) / (12 * n / 32))
        suffix = "" if dt == "float32" else "_f64"
        charged = weights[f"p_spec{suffix}"] + weights[f"p_mul{suffix}"]
        slope = statistics.mean(per_call)
        print(f"erfc call, {dt}: {slope * 1e12:.2f} ps a warp's call; the sum charges "
              f"{charged * 1e12:.2f} ps (p_spec{suffix} + p_mul{suffix}): price "
              f"{(slope - charged) * 1e12:.2f} ps on top")


if __name__ == "__main__":
    main()
