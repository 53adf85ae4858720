"""The block-size study of Ernst et al. on a device: measured performance per block.

For the 3D 25-point star stencil (XYZ = 1024) and the LBM-like kernel (XYZ = 512),
every block shape of eq. (9), without and with 2x thread folding in y and z, is
timed by the project's protocol into a measurement store.

    python benchmarks/block_study.py --device NVIDIA --store block-study.sqlite
"""

from __future__ import annotations

import argparse
import time

from workbench.kernels.study import lbm_spec, star_stencil_spec, study_block_sizes
from workbench.measure import MeasurementStore, TimingProtocol, find_device, open_device
from workbench.measure.campaign import run_configurations

SIZES = {"star_stencil": {"nx": 512, "ny": 512, "nz": 512},
         "lbm": {"nx": 256, "ny": 256, "nz": 256}}
SMALL = {"star_stencil": {"nx": 32, "ny": 32, "nz": 32},
         "lbm": {"nx": 16, "ny": 16, "nz": 16}}


def configurations(small: bool, dtype: str = "float64"):
    for spec, total in ((star_stencil_spec(), 1024), (lbm_spec(), 512)):
        key = "star_stencil" if "stencil" in spec.name else "lbm"
        params = (SMALL if small else SIZES)[key]
        for variant in spec.variants:
            for block in study_block_sizes(total):
                yield (spec, spec.request(variant, dtype, block), params,
                       {"study": key, "total": total})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device")
    parser.add_argument("--store", required=True)
    parser.add_argument("--small", action="store_true", help="CPU-sized grids")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--limit", type=int, help="first N configurations only (smoke test)")
    args = parser.parse_args()
    device = find_device(args.device)
    _, queue = open_device(device)
    protocol = TimingProtocol(runs=args.runs, discard_first=min(4, args.runs - 1))
    configs = list(configurations(args.small))[: args.limit]
    start = time.perf_counter()
    with MeasurementStore.open(args.store) as store:
        t = run_configurations(store, device, queue, configs, name="block-study",
                               protocol=protocol)
    print(f"block study on {device.name}: {len(configs)} configurations, {t.measured} "
          f"measured, {t.skipped} already stored, {t.failed} failed; build "
          f"{t.build_s:.1f} s, run {t.run_s:.1f} s, wall {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
