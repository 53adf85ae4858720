"""Which ingredient of the in-situ model buys what, on the shipped H100 data.

Fits variants of the overlap model on the catalog measurements (and, where a model
reads ``f_wr_wall_time``, the catalog's work-removed twins), then prints for each the
training error, Table 1's cross-kernel error (256-item groups) and the measured
performance of the predicted pick per variant family (fraction of the best).

    python benchmarks/selection_ablation.py [--all-sets]

``--all-sets`` also fits on the generated 2019 measurement set and its twins.
Takes a few minutes on 2 cores (one property extraction per kernel build, cached).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

from workbench.errors import WorkbenchWarning
from workbench.kernels.families import default_families
from workbench.measure.store import MeasurementStore
from workbench.models.dataset import build_dataset
from workbench.models.expressions.insitu import attach_twin_times, twin_times
from workbench.models.registry import get_family
from workbench.tuning.selection import measured_times, select
from workbench.reports import table1

ROOT = Path(__file__).resolve().parents[1]
H100 = ROOT / "sample_data" / "h100"
DEVICE = "NVIDIA H100 80GB HBM3"

ON_CHIP = ("p_add*f_op_float32_add + p_mul*f_op_float32_mul + p_div*f_op_float32_div"
           " + p_pow*f_op_float32_pow + p_spec*f_op_float32_special + p_lld*{lld}"
           " + p_lst*{lst} + p_bar*f_sync_barrier_local")
GLOBAL_COUNTS = json.loads((ROOT / "models" / "overlap.json").read_text())["model"]
GLOBAL_COUNTS = GLOBAL_COUNTS[GLOBAL_COUNTS.rindex(", p_ld1") + 2:-1]


def expression(bank_passes: bool, balance: bool, in_situ: bool) -> str:
    suffix = "_bankpasses" if bank_passes else ""
    chip = ON_CHIP.format(lld=f"f_mem_access_local_float32_load{suffix}",
                          lst=f"f_mem_access_local_float32_store{suffix}")
    if balance:
        chip = f"f_cu_balance*({chip})"
    memory = "p_wr*f_wr_wall_time" if in_situ else GLOBAL_COUNTS
    return (f"p_launch*f_sync_kernel_launch + p_groups*f_thread_groups"
            f" + smax({chip}, {memory})")


VARIANTS = {
    "overlap (counts)": (False, False, False),
    "+ bank passes + CU balance": (True, True, False),
    "in-situ twin only": (False, False, True),
    "in-situ + bank passes": (True, False, True),
    "in-situ + CU balance": (False, True, True),
    "in-situ + bank passes + CU balance (models/insitu-overlap.json)": (True, True, True),
}


def load(paths):
    out = []
    for p in paths:
        with MeasurementStore.open(p, create=False, readonly=True) as st:
            out += st.measurements()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--all-sets", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore", WorkbenchWarning)
    stores = [H100 / "measurements.sqlite", H100 / "twins.sqlite"]
    if args.all_sets:
        stores.insert(1, H100 / "measurements-2019.sqlite")
    measurements = load(stores)
    family_ms = load([H100 / "families.sqlite", H100 / "families-work-removed.sqlite"])
    families = default_families(None)
    fam_twins = twin_times(family_ms)
    family = get_family("expression")
    data = None
    print(f"fitted on: {', '.join(p.name for p in stores)}")
    for label, (banks, balance, insitu) in VARIANTS.items():
        start = time.perf_counter()
        spec = family.spec(expression(banks, balance, insitu), granularity="subgroup",
                           subgroup_size=32)
        spec = family.spec({**spec.to_document(), "bounds": {
            p: [0.0, None] for p in spec.parameters}})
        if data is None:
            data = build_dataset(measurements, granularity="subgroup", subgroup_size=32)
            data = attach_twin_times(data, twin_times(measurements))
        train = data if insitu else data[~data["kernel"].str.endswith("_wr")]
        model = family.fit(train, model=spec, device={"device": DEVICE})
        t1 = table1(model, data)
        picks = [select(model, f, measured_times(family_ms, f), twins=fam_twins,
                        device=DEVICE).fraction_of_best for f in families]
        print(f"\n{label}\n  {spec.model.output} = {expression(banks, balance, insitu)}")
        print(f"  training {model.fit_stats['geomean_rel_error']:.1%} on "
              f"{model.fit_stats['n_measurements']} measurements; Table 1 cross-kernel "
              f"{t1.cross_kernel:.1%} ("
              + ", ".join(f"{k} {v:.1%}" for k, v in t1.per_kernel.items()) + ")")
        print("  pick / best: " + ", ".join(f"{f.name} {p:.1%}"
                                            for f, p in zip(families, picks))
              + f"  [{time.perf_counter() - start:.0f} s]")


if __name__ == "__main__":
    main()
