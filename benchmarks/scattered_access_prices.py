"""Benchmark: the prices of round 14 of issue #34 (a sector a store writes in part, a
sector a load reads alone), from the H100 access probe.

The probe (``scripts/h100_access_probe.py``, ``sample_data/h100/access-probe.txt``: plain
OpenCL, float32, 2^23 work items in groups of 256) is rebuilt here as loopy kernels of
the same accesses (``out[i] = in[S i]``; nine values a work item at stride 9 or as nine
planes).  A model's prediction of each (the weights given) is set beside the probe's
time; a price is what the model lacks over the scattered sectors that
:mod:`workbench.models.scattered_access_features` counts:

* a partial store sector: the stride-9 store's time over its partial sectors (a
  bound, not a sum: the stride-9 store runs at one partial sector a 9.7 ps, an L2
  rate; the three-field ``hsv_to_rgb`` of heldout11 is within 5% without any price,
  so a model takes the larger of its sum and this time, as ``f_l1_walk_s``);
* an isolated load sector: the mean over the strides of 64 bytes and more of (the
  time - the prediction) over the isolated sectors.

    python benchmarks/scattered_access_prices.py sample_data/h100/access-probe.txt \\
        sample_data/h100/weights-linear-fp64-sectors-chains15.json
"""

from __future__ import annotations

import argparse
import statistics
import warnings

N = 1 << 23
GROUP = 256
STORE_VALUES = 9


def _split(knl):
    import loopy as lp

    return lp.split_iname(knl, "i", GROUP, outer_tag="g.0", inner_tag="l.0")


def read_stride(stride: int, dtype: str = "float32"):
    """``out[i] = inp[stride i]``: one value a lane, ``stride`` elements apart."""
    import loopy as lp
    import numpy as np

    suffix = "" if dtype == "float32" else "_f64"
    return _split(lp.make_kernel(
        "{[i]: 0 <= i < n}", f"out[i] = inp[{stride} * i]",
        [lp.GlobalArg("inp", np.dtype(dtype), shape=(f"{stride} * n",)),
         lp.GlobalArg("out", np.dtype(dtype), shape=("n",)), lp.ValueArg("n", np.int32)],
        name=f"read_stride{stride}{suffix}", lang_version=(2018, 2), assumptions="n >= 1"))


def store_fields(aos: bool, fields: int = STORE_VALUES, dtype: str = "float32"):
    """``fields`` values a work item: as an array of structures (``out[i, k]``) or as
    ``fields`` planes (``out[k, i]``)."""
    import loopy as lp
    import numpy as np

    lines = [(f"out[i, {k}]" if aos else f"out[{k}, i]") + f" = v + {k}"
             for k in range(fields)]
    shape = ("n", fields) if aos else (fields, "n")
    suffix = ("" if fields == STORE_VALUES else str(fields)) + \
        ("" if dtype == "float32" else "_f64")
    return _split(lp.make_kernel(
        "{[i]: 0 <= i < n}", "\n".join(["<> v = inp[i]", *lines]),
        [lp.GlobalArg("inp", np.dtype(dtype), shape=("n",)),
         lp.GlobalArg("out", np.dtype(dtype), shape=shape), lp.ValueArg("n", np.int32)],
        name=("store_aos" if aos else "store_soa") + suffix, lang_version=(2018, 2),
        assumptions="n >= 1", seq_dependencies=True))


def store_nine(aos: bool):
    return store_fields(aos)


def probe_times(path: str) -> dict[str, float]:
    """{loopy kernel name: seconds} from the probe's table."""
    out = {}
    for line in open(path):
        parts = line.split()
        if not parts or line.startswith("#") or parts[0] == "kernel":
            continue
        name = parts[0] if parts[0].startswith("store") else f"read_stride{parts[1]}"
        out[name] = float(parts[2]) * 1e-3
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe")
    parser.add_argument("weights", help="the fitted model whose prediction the prices top up")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import numpy as np

    from workbench.kernels.candidate import Candidate
    from workbench.kernels.user import spec_from_loopy
    from workbench.models.prediction import predict
    from workbench.models.registry import load_model
    from workbench.models.scattered_access_features import scattered_sectors

    measured = probe_times(args.probe)
    model = load_model(args.weights)
    iso, partial = [], None
    print("kernel          measured_ms  predicted_ms  partial_sectors  isolated_sectors  "
          "price_ps")
    for knl in [read_stride(s) for s in (1, 2, 4, 8, 16, 32, 64, 128)] + \
            [store_nine(True), store_nine(False)]:
        spec = spec_from_loopy(knl)
        cand = Candidate.of(spec, {"n": N}, dtype="float32", group_size=(GROUP,))
        predicted = float(np.asarray(predict(model, [cand]).seconds)[0])
        sectors = scattered_sectors(cand)
        t = measured[spec.name]
        count = sectors["store"] or sectors["load"]
        price = (t - predicted) / count if count else float("nan")
        if sectors["load"]:
            iso.append(price)
        if sectors["store"]:
            partial = t / count
        print(f"{spec.name:15s} {t * 1e3:11.4f}  {predicted * 1e3:12.4f}  "
              f"{sectors['store']:15.4g}  {sectors['load']:16.4g}  {price * 1e12:8.2f}")
    print(f"partial store sector (a bound: the time over the partial sectors): "
          f"{partial * 1e12:.2f} ps")
    print(f"isolated load sector: {statistics.mean(iso) * 1e12:.2f} ps "
          f"(the mean of {len(iso)} strides)")


if __name__ == "__main__":
    main()
