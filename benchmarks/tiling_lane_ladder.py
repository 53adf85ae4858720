"""The lane-shape ladder of the hexagonal/hybrid tiles on the H100 (issue 34, item 4):
per lane shape, the load passes and rows of one tile and its twin's and band's time,
a line of the twins' time per (sub-)tile against the passes, and how well each resident
form's calibration prices the twins (RMS relative error, this ladder and all twins).

    python benchmarks/tiling_lane_ladder.py [--store S]

Reads the shipped ``hexagonal-lanes.sqlite`` (``scripts/h100_hexagonal_lanes.sh``) and
the calibration ``tiling-calibration.json``; about 10 s, no GPU.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

H100_DIR = ROOT / "sample_data" / "h100"
FORMS = ("resident-latency", "resident-load-passes", "resident-rows-passes")


def ladder_rows(store: Path):
    from workbench.measure.store import MeasurementStore
    from workbench.measure.store.compressed import resolve_store_path
    from workbench.models.tiling.calibrate import rows_from_measurements

    with MeasurementStore.open(resolve_store_path(store), create=False,
                               readonly=True) as st:
        return [r for r in rows_from_measurements(st.measurements(status=None))
                if r.what.startswith("hex_ladder")]


def passes_of(r) -> int:
    from workbench.kernels.timetiled.hexagonal import HexConfig

    thr = next(p for p in r.variant.replace(",", " ").split() if p.startswith("thr="))
    f = r.facts
    cfg = HexConfig(r.variant.split(":", 1)[0], tuple(int(x) for x in f["shape"]),
                    int(f["T"]), int(f["t_T"]), (int(f["t_S1"]),) + (
                        (int(f["inner"]),) if int(f["stencil_dims"]) == 2 else ()),
                    tuple(int(x) for x in thr[4:].split("x")))
    return cfg.per_tile()["load_passes"]


def twin_errors(rows, cal, form):
    """Relative error of each twin as the form's shipped constants price it."""
    from workbench.models.tiling import H100
    from workbench.models.tiling.calibrate import _resident_launch
    from workbench.models.tiling.schemes import Form, Scheme

    regs = dict(cal.provenance.get("registers_per_item") or {})
    out = []
    for r in rows:
        scheme = Scheme.paper(int(r.facts["stencil_dims"]))
        c = cal.schemes[Form(form).constants_key(scheme)]
        st = r.variant.split(":", 1)[0]
        t = _resident_launch(scheme, r, H100, replace(cal, schemes={}), c.L,
                             (c.row_latency, c.pass_latency), 0.0, st, regs.get(st), True,
                             Form(form))
        out.append(t / r.time_s - 1.0)
    return np.array(out)


def main() -> int:
    from workbench.models.tiling import load_calibration

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, default=H100_DIR / "hexagonal-lanes.sqlite")
    args = parser.parse_args()
    rows = ladder_rows(args.store)
    twins = {r.variant: r for r in rows if r.what == "hex_ladder_wr"}
    print(f"{'variant':48s} {'rows':>4s} {'passes':>6s} {'twin us':>9s} {'band us':>9s} "
          f"{'twin/tile us':>12s}")
    per_scheme: dict = {}
    for r in sorted(rows, key=lambda r: (r.variant.split(":")[0], passes_of(r))):
        if r.what != "hex_ladder":
            continue
        tw, n = twins[r.variant], int(r.facts["sub_tiles"])
        p = passes_of(r)
        print(f"{r.variant:48s} {int(r.facts['t_T']):4d} {p:6d} {tw.time_s * 1e6:9.1f} "
              f"{r.time_s * 1e6:9.1f} {tw.time_s / n * 1e6:12.2f}")
        if int(r.facts.get("per_sm", 1)) == 1:
            per_scheme.setdefault(r.variant.split(":")[0], []).append(
                (p, tw.time_s / n, int(r.facts["t_T"])))
    for stencil, pts in per_scheme.items():
        p, t, rows_ = (np.array(x, dtype=float) for x in zip(*pts))
        slope, icpt = np.polyfit(p, t, 1)
        print(f"{stencil}, twins at 1 hexagon per SM: {slope * 1e9:.1f} ns per load pass, "
              f"intercept {icpt * 1e6:.2f} us per (sub-)tile = {icpt / rows_[0] * 1e9:.0f} ns "
              f"per row (R^2 {np.corrcoef(p, t)[0, 1] ** 2:.3f})")
    cal = load_calibration(H100_DIR / "tiling-calibration.json")
    twin_rows = [r for r in rows if r.what == "hex_ladder_wr"]
    for form in FORMS:
        for dims, name in ((1, "hexagonal"), (2, "hybrid")):
            sel = [r for r in twin_rows if int(r.facts["stencil_dims"]) == dims]
            e = twin_errors(sel, cal, form)
            c = cal.schemes[f"{name}+{form}"]
            allerr = np.array(c.provenance.get("twin_rel_error", []))
            print(f"{form:22s} {name:9s}: lane ladder twins RMS {np.sqrt(np.mean(e ** 2)):6.1%}"
                  f" (max {np.max(np.abs(e)):6.1%}); all {len(allerr)} twins of the fit RMS "
                  f"{np.sqrt(np.mean(allerr ** 2)):6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
