"""The driver of ``scripts/h100_hexagonal_round9.sh`` (issue 34, round 9): what a
sub-tile width that is not a multiple of the lanes costs, and the picks of constants
fixed before the call on sizes no call measured.

    python3 scripts/h100_hexagonal_round9.py OUT STAGE SECONDS

Stages:

* ``widths``: one launch of a full A row of the hybrid kernel (``hex_pair``'s band, as
  round 8's sweep microbenchmark times it; jacobi2d, ``T = 48``) for the tiles of
  :data:`WIDTH_TILES`, each at the sub-tile widths of :data:`WIDTHS`, on the grids of
  :data:`WIDTH_SIZES` (the first tile on every grid, the others on the first), into
  ``OUT/hexagonal-round9.sqlite`` (campaign ``hexagonal-widths``, kernel
  ``ttmb.hex_band``, variants ending in ``,S=<n>``).
* ``picks``: round 8's picks stage (``scripts/h100_hexagonal_round8.py``) with the
  constants of ``sample_data/h100/tiling-calibration-round9.json`` (campaign kind
  ``chosen-with-builds``) and the shipped ones, round 7's
  (``tiling-calibration-round7.json``, kind ``chosen-round7``), then the plan's
  baseline points (``HXR_PLAN``, written by ``benchmarks/tiling_widths.py --plan``),
  into ``OUT/hexagonal-round9-picks.sqlite``.

Both stop themselves at ``SECONDS``.  ``HXR_DRY_RUN=1 HXR_DEVICE=Portable``: tiny
problems on a CPU.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import h100_hexagonal_resident as hxr  # noqa: E402
import h100_hexagonal_round8 as r8  # noqa: E402

DRY = bool(os.environ.get("HXR_DRY_RUN"))
STORE = "hexagonal-round9.sqlite"
PICKS_STORE = "hexagonal-round9-picks.sqlite"
#: grids of the width microbenchmark: the size whose picks lost (10240^2) and one that
#: round 8 measured (8192^2); neither is a hold-out size of this round
WIDTH_SIZES = (64,) if DRY else (10240, 8192)
#: sub-tile widths (``t_S2``): multiples of 32, two of them of 128 (the baseline's)
WIDTHS = (32, 48) if DRY else (192, 224, 256, 288, 320)
#: tiles (t_T, t_S1, lanes per axis, axis 0 first): round 8's 10240^2 picks (224 wide
#: at 2x128 and 1x128, 320 wide at 2x64) and the best baseline's (tT 12, 8 x 256)
WIDTH_TILES = (((4, 2, (1, 32)),) if DRY else
               ((8, 4, (2, 128)), (8, 2, (2, 64)), (12, 8, (2, 128)), (8, 1, (1, 128))))


def width_benches():
    from workbench.kernels.timetiled.microbench import hex_pair

    out = []
    for i, (t_T, t_S1, lanes) in enumerate(WIDTH_TILES):
        for n in WIDTH_SIZES if i == 0 else WIDTH_SIZES[:1]:
            out += [hex_pair("jacobi2d", t_T, (t_S1, w), lanes, (n, n), 48,
                             suffix=f",S={n}")[0] for w in WIDTHS]
    return out


def widths(out, dev, queue, seconds):
    from workbench.measure.store import MeasurementStore
    from workbench.tuning.timetiled_microbench import measure_microbenchmarks

    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    benches = width_benches()
    began = time.time()
    with MeasurementStore.open(f"{out}/{STORE}") as store:
        cid = measure_microbenchmarks(
            queue, dev.identity, store, benches=benches, build_options=nv,
            name="hexagonal-widths",
            on_progress=lambda i, n, what: print(f"[{i + 1}/{n}] {what}", flush=True))
        for m in store.measurements(campaign=cid, status=None):
            print(f"  {m.key.variant:52s} {m.status.value:8s} min "
                  f"{min(m.raw_times_s) if m.raw_times_s else float('nan'):.6g} s")
    print(f"width microbenchmarks: {time.time() - began:.1f} s", flush=True)


#: round 9's constants, and round 7's (the shipped ones) on the same problems
PICK_SETS = (("tiling-calibration-round9.json", "chosen-with-builds", ""),
             ("tiling-calibration-round7.json", "chosen-round7", "-round7"))


def picks(out, dev, queue, seconds):
    r8.picks(out, dev, queue, seconds, store=PICKS_STORE, pick_sets=PICK_SETS,
             prefix="hexagonal-round9-picks")


if __name__ == "__main__":
    out, stage, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dev = hxr.find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = hxr.open_device(dev)
    {"widths": widths, "picks": picks}[stage](out, dev, queue, seconds)
