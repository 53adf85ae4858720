"""Benchmark: symbolic extraction time per catalog kernel, and evaluation rate.

Prints the figures quoted in docs/performance.md.  Run: ``make bench`` (or
``.venv/bin/python benchmarks/extraction.py``).
"""

from __future__ import annotations

import platform
import time
import warnings

import numpy as np

from workbench.kernels import all_kernels
from workbench.properties import extract_properties


def main() -> None:
    warnings.filterwarnings("ignore")
    print(f"host: {platform.node()} ({platform.processor() or platform.machine()}), "
          f"python {platform.python_version()}")
    print(f"{'kernel':<18} {'variant':<14} {'props':>5} {'build s':>8} {'extract s':>9}")
    total_extract = 0.0
    total_build = 0.0
    extracted = []
    for spec in all_kernels():
        for variant in spec.variants:
            request = spec.request(variant, "float32")
            t0 = time.perf_counter()
            kernel = spec.build(request)
            t1 = time.perf_counter()
            props = extract_properties(kernel)
            t2 = time.perf_counter()
            total_build += t1 - t0
            total_extract += t2 - t1
            extracted.append((spec, variant, props))
            print(f"{spec.name:<18} {variant:<14} {len(props.counts):>5} "
                  f"{t1 - t0:>8.3f} {t2 - t1:>9.3f}")
    print(f"whole catalog: {len(extracted)} builds, extraction {total_extract:.2f} s "
          f"(kernel construction {total_build:.2f} s)")

    print("\nvectorized evaluation of every property, 10^6 parameter sets:")
    rng = np.random.default_rng(0)
    rates = []
    for spec, variant, props in extracted:
        if variant != spec.default_variant:
            continue
        base = spec.size_cases(spec.default_p)[0]
        count = 10**6
        # distinct sizes up to 16x the first size case: no repeated-value shortcut
        params = {p: rng.integers(base[p], 16 * base[p] + 1, count).astype(np.int64)
                  for p in props.parameters}
        props.evaluate({p: v[:10] for p, v in params.items()})  # warm-up, checks
        t0 = time.perf_counter()
        props.evaluate(params)
        dt = time.perf_counter() - t0
        rates.append(count / dt)
        print(f"  {spec.name:<18} {count / dt:>12,.0f} parameter sets/s")
    print(f"  minimum {min(rates):,.0f} /s, median {np.median(rates):,.0f} /s")

    spec, variant, props = extracted[0]
    import loopy as lp
    kernel = spec.build(spec.request(variant, "float32"))
    op_map = lp.get_op_map(kernel, subgroup_size=32)
    base = spec.size_cases(spec.default_p)[0]
    t0 = time.perf_counter()
    n = 200
    for _ in range(n):
        for poly in op_map.values():
            poly.eval_with_dict(dict(base))
    dt = (time.perf_counter() - t0) / (n * len(op_map))
    print(f"\nfor comparison, loopy eval_with_dict: {dt * 1e6:.0f} us per count and "
          f"parameter set ({spec.name})")


if __name__ == "__main__":
    main()
