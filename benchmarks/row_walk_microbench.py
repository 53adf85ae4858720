"""Benchmark: rows walked along one work item (lanes a row apart) and erfc chains on a
device (issue #34, round 10).

Measures the microbenchmarks of :mod:`workbench.kernels.generators.row_walk` into a
measurement store by the calibration's own protocol
(:func:`workbench.measure.campaign.run_configurations`), role ``measurement``;
float32 and float64, groups of 128 and 256:

* ``row_walk`` (sum, fill, copy): 2^14 to 2^20 rows of 16 and 64 entries (from a
  quarter of the device's lanes to many waves: the lines of the resident rows from
  well inside to far beyond L1);
* ``erfc_chain``: 1, 4 and 16 rounds over 2^22 entries.

    python benchmarks/row_walk_microbench.py --device NVIDIA --store r.sqlite \\
        --build-info build-info-row-walk.json
    python benchmarks/row_walk_microbench.py --small --store /tmp/r.sqlite  # pocl
    python benchmarks/row_walk_microbench.py --table r.sqlite
"""

from __future__ import annotations

GROUPS = (128, 256)


def configurations(small: bool):
    """(kernel, variant, dtype, group, params) of every point, in measuring order."""
    rows = (2 ** 10,) if small else (2 ** 14, 2 ** 16, 2 ** 18, 2 ** 20)
    groups = (32,) if small else GROUPS
    for dtype in ("float32", "float64"):
        for g in groups:
            for variant in ("sum", "fill", "copy"):
                for cols in (16, 64):
                    for n in rows:
                        yield "row_walk", variant, dtype, g, {"n": n, "cols": cols}
            for rounds in (1, 4, 16):
                yield "erfc_chain", "default", dtype, g, \
                    {"n": 2 ** 12 if small else 2 ** 22, "rounds": rounds}


def main() -> None:
    from microbench_campaign import microbench_main

    microbench_main(__doc__.splitlines()[0], configurations, set_name="row_walk",
                    campaign="row-walk", command="benchmarks/row_walk_microbench.py")


if __name__ == "__main__":
    main()
