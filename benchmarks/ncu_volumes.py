"""Measured L2 and DRAM data volumes of the block-size study kernels (Ernst et al.,
figures 6 to 14), with Nsight Compute on an NVIDIA GPU.

ncu profiles CUDA, not OpenCL, so the *same loopy kernels* are generated for loopy's
CUDA target and launched through CuPy.  Two steps, so the GPU machine needs neither
loopy nor the workbench:

    # here: CUDA sources, launch geometry and argument lists of every configuration
    python benchmarks/ncu_volumes.py generate -o build/ncu-kernels.json
    # on the GPU machine (CuPy + ncu); --start/--stop select a slice of the list
    ncu --csv --metrics $(python3 benchmarks/ncu_volumes.py metrics) \\
        python3 benchmarks/ncu_volumes.py launch build/ncu-kernels.json > part.csv
    # here again: one row per configuration, volumes in bytes
    python benchmarks/ncu_volumes.py collect part*.csv -o ncu-volumes.csv

Each configuration's kernel gets a unique function name, ``<kernel>__<variant>__XxYxZ``,
so ncu's rows map back to it.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

#: Counters read (one ncu pass on Hopper): L2 sectors requested by L1 (loads and
#: stores), DRAM bytes, the L1's own global-load sector requests, kernel duration.
METRICS = ("lts__t_sectors_srcunit_tex_op_read.sum",
           "lts__t_sectors_srcunit_tex_op_write.sum",
           "dram__bytes_read.sum",
           "dram__bytes_write.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "gpu__time_duration.sum")

SIZES = {"star_stencil_3d": {"nx": 512, "ny": 512, "nz": 512},
         "lbm_like": {"nx": 256, "ny": 256, "nz": 256}}


def _function_name(kernel: str, variant: str, block) -> str:
    return f"{kernel}__{variant}__{'x'.join(map(str, block))}"


def generate(dtype: str = "float64", small: bool = False) -> list[dict]:
    import loopy as lp

    from workbench.kernels.study import (
        FOLDS,
        lbm_spec,
        star_stencil_spec,
        study_block_sizes,
    )

    out = []
    for spec, total in ((star_stencil_spec(), 1024), (lbm_spec(), 512)):
        sizes = {k: 32 for k in ("nx", "ny", "nz")} if small else SIZES[spec.name]
        for variant in spec.variants:
            fold = FOLDS[variant]
            for block in study_block_sizes(total):
                request = spec.request(variant, dtype, block)
                knl = spec.build(request).copy(target=lp.CudaTarget())
                entry = knl.default_entrypoint
                name = _function_name(spec.name, variant, block)
                code = lp.generate_code_v2(knl).device_code()
                code = re.sub(rf"\b{entry.name}\(", f"{name}(", code, count=1)
                args = [{"name": a.name,
                         "kind": "array" if isinstance(a, lp.ArrayArg) else "scalar",
                         "dtype": str(a.dtype.numpy_dtype),
                         "shape": [str(s) for s in a.shape] if isinstance(
                             a, lp.ArrayArg) else None}
                        for a in entry.args]
                grid = [math.ceil(sizes[d] / (b * f))
                        for d, b, f in zip(("nx", "ny", "nz"), block, fold)]
                out.append({"kernel": spec.name, "variant": variant, "block": list(block),
                            "fold": list(fold), "grid": grid, "sizes": sizes,
                            "dtype": dtype, "function": name, "args": args,
                            "source": code})
    return out


# {{{ GPU side: CuPy only

def _shape(shape, sizes) -> tuple[int, ...]:
    """Shapes such as ``["15", "nz + 2"]``: sums of integers and size names."""
    def extent(text: str) -> int:
        return sum(int(t) if t.strip().isdigit() else int(sizes[t.strip()])
                   for t in text.split("+"))
    return tuple(extent(s) for s in shape)


def launch(configs: list[dict]) -> None:
    import cupy as cp
    import numpy as np

    buffers: dict = {}
    for cfg in configs:
        kernel = cp.RawKernel(cfg["source"], cfg["function"])
        args = []
        for a in cfg["args"]:
            if a["kind"] == "array":
                shape = _shape(a["shape"], cfg["sizes"])
                key = (a["name"], shape, a["dtype"])
                if key not in buffers:
                    buffers[key] = cp.asarray(
                        np.random.default_rng(0).random(shape).astype(a["dtype"]))
                args.append(buffers[key])
            elif a["name"] in cfg["sizes"]:
                args.append(np.dtype(a["dtype"]).type(cfg["sizes"][a["name"]]))
            else:
                args.append(np.dtype(a["dtype"]).type(0.5))
        kernel(tuple(cfg["grid"]), tuple(cfg["block"]), tuple(args))
        cp.cuda.runtime.deviceSynchronize()
        print(cfg["function"], "launched", file=sys.stderr, flush=True)

# }}}


def collect(paths: list[str]) -> list[dict]:
    """ncu ``--csv`` output (one line per metric) to one row per configuration."""
    rows: dict[str, dict] = {}
    for path in paths:
        lines = Path(path).read_text().splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
        if start is None:
            continue
        for rec in csv.DictReader(lines[start:]):
            name = rec["Kernel Name"].split("(")[0].strip()
            row = rows.setdefault(name, {"function": name})
            value = rec["Metric Value"].replace(",", "")
            try:
                row[rec["Metric Name"]] = float(value)
            except ValueError:
                row[rec["Metric Name"]] = value
    out = []
    for name, row in rows.items():
        kernel, variant, block = name.split("__")
        x, y, z = (int(v) for v in block.split("x"))
        out.append({"kernel": kernel, "variant": variant, "X": x, "Y": y, "Z": z,
                    "l2_load_bytes": 32 * row.get(METRICS[0], math.nan),
                    "l2_store_bytes": 32 * row.get(METRICS[1], math.nan),
                    "dram_read_bytes": row.get(METRICS[2], math.nan),
                    "dram_write_bytes": row.get(METRICS[3], math.nan),
                    "l1_load_sector_requests": row.get(METRICS[4], math.nan),
                    "ncu_duration_ns": row.get(METRICS[5], math.nan)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("-o", "--output", required=True)
    g.add_argument("--small", action="store_true")
    sub.add_parser("metrics")
    la = sub.add_parser("launch")
    la.add_argument("configs")
    la.add_argument("--start", type=int, default=0)
    la.add_argument("--stop", type=int, default=None)
    co = sub.add_parser("collect")
    co.add_argument("csv", nargs="+")
    co.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if args.cmd == "generate":
        configs = generate(small=args.small)
        Path(args.output).write_text(json.dumps(configs))
        print(f"{len(configs)} configurations -> {args.output}")
    elif args.cmd == "metrics":
        print(",".join(METRICS))
    elif args.cmd == "launch":
        configs = json.loads(Path(args.configs).read_text())
        launch(configs[args.start: args.stop])
    else:
        rows = collect(args.csv)
        with open(args.output, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(sorted(rows, key=lambda r: (r["kernel"], r["variant"], r["X"],
                                                      r["Y"], r["Z"])))
        print(f"{len(rows)} configurations -> {args.output}")


if __name__ == "__main__":
    main()
