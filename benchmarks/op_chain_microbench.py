"""Benchmark: one operation in a dependent chain, per precision, on a device (issue #34,
round 11).

Measures ``op_chain`` (:mod:`workbench.kernels.generators.op_chains`: fma, add, mul,
div, sqrt, exp, log) into a measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``; float32
and float64, groups of 128 and 256; 4, 16 and 64 rounds over 2^22 entries (every SM
full: throughput) and over 2^14 (about one warp a scheduler: latency).

    python benchmarks/op_chain_microbench.py --device NVIDIA --store o.sqlite \\
        --build-info build-info-op-chain.json
    python benchmarks/op_chain_microbench.py --small --store /tmp/o.sqlite  # pocl
    python benchmarks/op_chain_microbench.py --table o.sqlite

Round 12 of #34 measured only its own variants (pow and the mixes):
``OP_CHAIN_ROUND12=1 python benchmarks/op_chain_microbench.py ...``.
"""

from __future__ import annotations

import os

GROUPS = (128, 256)
ROUNDS = (4, 16, 64)


def configurations(small: bool, variants=None):
    """(kernel, variant, dtype, group, params) of every point, in measuring order
    (``variants``: those to measure, default all)."""
    from workbench.kernels.generators.op_chains import OP_CHAIN_VARIANTS

    entries = (2 ** 10,) if small else (2 ** 14, 2 ** 22)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for variant in variants or OP_CHAIN_VARIANTS:
                for n in entries:
                    for rounds in ROUNDS:
                        yield "op_chain", variant, dtype, g, {"n": n, "rounds": rounds}


def main() -> None:
    from microbench_campaign import microbench_main

    from workbench.kernels.generators.op_chains import ROUND12_VARIANTS

    round12 = os.environ.get("OP_CHAIN_ROUND12") == "1"
    microbench_main(__doc__.splitlines()[0],
                    (lambda small: configurations(small, ROUND12_VARIANTS)) if round12
                    else configurations, set_name="op_chain",
                    campaign="op-chain", command="benchmarks/op_chain_microbench.py")


if __name__ == "__main__":
    main()
