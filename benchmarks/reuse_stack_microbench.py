"""Benchmark: global loads served by L1 without a prefetch, a private array indexed by
loaded keys, and exp/log chains on a device (issue #34, round 7).

Measures the microbenchmarks of :mod:`workbench.kernels.generators.reuse_stack_chains`
into a measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``, so that
a fit reads them (``workbench fit --store ... --store THIS``); float32 and float64,
groups of 128 and 256, launches of many waves:

* ``window_filter``: stride 1 and 3, 4, 16 and 64 taps;
* ``broadcast_coeffs``: 8, 32 and 128 columns of the shared matrix;
* ``private_scatter``: 8 and 32 private sums, chunks of 16 and 64 values;
* ``explog_chain``: 1, 4 and 16 rounds.

    python benchmarks/reuse_stack_microbench.py --device NVIDIA --store r.sqlite \\
        --build-info build-info-reuse-stack.json
    python benchmarks/reuse_stack_microbench.py --small --store /tmp/r.sqlite  # pocl
    python benchmarks/reuse_stack_microbench.py --table r.sqlite
"""

from __future__ import annotations

GROUPS = (128, 256)


def configurations(small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    big = (2 ** 12,) if small else (2 ** 22, 2 ** 24)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for n in big:
                for variant in ("stride1", "stride3"):
                    for taps in (4, 16, 64):
                        yield "window_filter", variant, dtype, g, {"n": n, "taps": taps}
                for m in (8, 32, 128):
                    yield "broadcast_coeffs", "default", dtype, g, {"n": n, "m": m}
                for variant in ("keys8", "keys32"):
                    for chunk in (16, 64):
                        yield "private_scatter", variant, dtype, g, \
                            {"n": n // 16, "chunk": chunk}
                for rounds in (1, 4, 16):
                    yield "explog_chain", "default", dtype, g, \
                        {"n": n // 4, "rounds": rounds}


def main() -> None:
    from microbench_campaign import microbench_main

    microbench_main(__doc__.splitlines()[0], configurations, set_name="reuse_stack_chains",
                    campaign="reuse-stack-chains", command="benchmarks/reuse_stack_microbench.py")


if __name__ == "__main__":
    main()
