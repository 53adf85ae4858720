"""The driver of ``scripts/h100_hexagonal_resident.sh`` (issue 34, item 4): the
row-latency ladder, the resident-latency constants derived from it and the shipped
hexagonal microbenchmarks, and the picks of both calibrations measured.

    python3 scripts/h100_hexagonal_resident.py OUT STAGE SECONDS

Stages: ``ladder`` (the ``hex_ladder`` rungs into ``OUT/hexagonal-resident.sqlite``,
campaign ``hexagonal-ladder``), ``picks`` (per problem: the best baseline point of the
shipped stores measured again, then the points the paper's form with the scheme's own
constants and the two forms of the resident-latency extension predict within 10 % of
their minimum, at most ``HXR_PICKS`` each, campaigns ``tune/hx_<s>/{best-baseline,
chosen-own,chosen-resident,chosen-load-passes}/<sizes>``); both stop themselves at
``SECONDS``.  (The shipped call, 2026-11-26, ran before the load-pass form existed, and
averaged ``C_iter`` over the ladder's bands too: ``sample_data/h100/README.md``.)
``HXR_ROUND=2``: the lane-shape ladder and the two-term picks; ``HXR_ROUND=3``: no
ladder, the picks stage measures the plan file ``HXR_PLAN`` (written by
``benchmarks/tiling_round3.py --plan``).  ``HXR_DRY_RUN=1 HXR_DEVICE=Portable``: tiny
problems on a CPU.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.errors import ModelError  # noqa: E402
from workbench.kernels.timetiled import hexspaces  # noqa: E402
from workbench.kernels.timetiled.microbench import (  # noqa: E402
    HEX_LANE_LADDERS,
    QUICK_HEX_LADDERS,
    hex_ladder,
)
from workbench.measure import find_device, open_device  # noqa: E402
from workbench.measure.runner import TimingProtocol  # noqa: E402
from workbench.measure.store import MeasurementStore  # noqa: E402
from workbench.measure.store.compressed import resolve_store_path  # noqa: E402
from workbench.models.tiling import (  # noqa: E402
    H100,
    TilingModel,
    evaluate_grid,
    feasible_grid,
    load_calibration,
    near_minimum,
    point_labels,
    save_calibration,
)
from workbench.models.tiling.calibrate import (  # noqa: E402
    resident_constants,
    rows_from_measurements,
    with_scheme_constants,
)
from workbench.models.tiling.schemes import Form, Scheme  # noqa: E402

DRY = bool(os.environ.get("HXR_DRY_RUN"))
PICKS = int(os.environ.get("HXR_PICKS", 16))
H100_DIR = ROOT / "sample_data" / "h100"
#: round 2 (``HXR_ROUND=2``, scripts/h100_hexagonal_lanes.sh): the lane-shape ladder,
#: the two-term form, and the picks the first call left unmeasured, into its own store
ROUND = int(os.environ.get("HXR_ROUND", 1))
#: round 3 (``HXR_ROUND=3``, scripts/h100_hexagonal_round3.sh): no ladder; the picks of
#: the lane-pass form not yet measured and each problem's best baseline again, from the
#: plan ``benchmarks/tiling_round3.py --plan`` wrote (``HXR_PLAN``)
#: round 4 (``HXR_ROUND=4``, scripts/h100_hexagonal_round4.sh): the selection with
#: builds: the lane-pass form's first ``HXR_TOP`` points per problem built (no run) for
#: their registers, priced again with them, the new picks (at most ``HXR_PICKS``) and
#: the best baseline measured
#: round 5 (``HXR_ROUND=5``, scripts/h100_hexagonal_round5.sh): round 4's selection
#: with builds, with the lane-rows form and the shipped calibration's constants (fitted
#: by ``benchmarks/tiling_round5.py --update-calibration``), the 8192^2 problems first
#: round 6 (``HXR_ROUND=6``, scripts/h100_hexagonal_round6.sh): round 5's selection with
#: the constants of ``tiling-calibration-round6.json`` (``benchmarks/tiling_round6.py
#: --write-calibration``), and a hold-out size no call measured before (``HOLDOUT``):
#: its picks and every third point of its baseline set (campaign kind ``baseline``)
#: round 7 (``HXR_ROUND=7``, scripts/h100_hexagonal_round7.sh): the selection with the
#: constants of ``tiling-calibration-round7.json`` (``benchmarks/tiling_holdout.py
#: --write-calibration``: round 7's 1-D term) on sizes no call measured (``HOLDOUT``:
#: 1-D 2^21 and 2^22 with their whole baseline sets, jacobi2d 10240^2 with every third
#: point), and jacobi1d 2^20's picks against its best baseline again; with
#: ``HXR_HOLDOUT=0``, the three 1-D sizes alone: the picks and each size's best baseline
#: point (of the shipped stores, the first round-7 call's included) again
STORE = {1: "hexagonal-resident.sqlite", 2: "hexagonal-lanes.sqlite",
         4: "hexagonal-round4.sqlite", 5: "hexagonal-round5.sqlite",
         6: "hexagonal-round6.sqlite", 7: "hexagonal-round7.sqlite"}.get(
    ROUND, "hexagonal-round3.sqlite")
CAL_OUT = "tiling-calibration-resident.json"
FORMS = ("resident-latency", "resident-load-passes") + (
    ("resident-rows-passes",) if ROUND == 2 else ())
KIND = {"paper": "chosen-own", "resident-latency": "chosen-resident",
        "resident-load-passes": "chosen-load-passes",
        "resident-rows-passes": "chosen-rows-passes",
        "resident-lane-passes": "chosen-lane-passes"}
TOP = int(os.environ.get("HXR_TOP", 24))
#: QUICK_HEX_LADDERS' tiles under another lane shape (the dry run of round 2)
QUICK_LANE_LADDERS = (("jacobi1d", (4, (64,), (16,)), (), 16, (1,)),
                      ("jacobi2d", (4, (2, 32), (2, 16)), (64,), 16, (1,)))
if DRY:
    PROBLEMS = [("jacobi1d", {"S1": 4096, "T": 16}), ("jacobi2d", {"S1": 128, "S2": 128,
                                                                   "T": 48})]
else:
    PROBLEMS = [("jacobi1d", {"S1": 1 << 20, "T": 256})] + [
        (s, {"S1": n, "S2": n, "T": 48}) for n in (4096, 8192)
        for s in ("jacobi2d", "heat2d", "laplacian2d", "gradient2d")]
#: round 6's hold-out problems: a size no earlier call measured, two 2-D stencils
#: (``HXR_HOLDOUT=0``: none)
HOLDOUT = ([] if ROUND != 6 or os.environ.get("HXR_HOLDOUT") == "0" else
           [("jacobi2d", {"S1": 96, "S2": 96, "T": 48})] if DRY else
           [(s, {"S1": 6144, "S2": 6144, "T": 48}) for s in ("jacobi2d", "gradient2d")])
if ROUND == 7:
    HOLDOUT = ([("jacobi1d", {"S1": 8192, "T": 16}), ("jacobi2d", {"S1": 96, "S2": 96,
                                                                  "T": 48})] if DRY else
               [("jacobi1d", {"S1": 1 << 21, "T": 256}), ("jacobi1d", {"S1": 1 << 22,
                                                                      "T": 256}),
                ("jacobi2d", {"S1": 10240, "S2": 10240, "T": 48})])
    if os.environ.get("HXR_HOLDOUT") == "0":      # the 1-D sizes' picks alone
        PROBLEMS = [p for p in HOLDOUT if len(p[1]) == 2] + PROBLEMS[:1]
        HOLDOUT = []
#: every this many-th point of a hold-out problem's baseline set (sorted labels); round
#: 7 measures the whole 1-D sets (73 points)
HOLDOUT_STRIDE = 3
PROTOCOL = TimingProtocol(runs=5, discard_first=0)
CHOSEN = """from workbench.kernels.timetiled.hexspaces import hexagonal_space


def space(**sizes):
    return hexagonal_space({stencil!r}, only={only!r}, **sizes)
"""


def sizes_text(sizes):
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def ladder(out, dev, queue, seconds):
    from workbench.tuning.timetiled_microbench import measure_microbenchmarks

    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    ladders = ((QUICK_HEX_LADDERS if ROUND == 1 else QUICK_LANE_LADDERS) if DRY else
               (HEX_LANE_LADDERS if ROUND == 2 else None))
    benches = hex_ladder(2 if DRY else H100.n_SM, **({"ladders": ladders} if ladders
                                                      else {}))
    began = time.time()
    with MeasurementStore.open(f"{out}/{STORE}") as store:
        cid = measure_microbenchmarks(
            queue, dev.identity, store, benches=benches, build_options=nv,
            name="hexagonal-ladder" if ROUND == 1 else "hexagonal-lane-ladder",
            on_progress=lambda i, n, what: print(f"[{i + 1}/{n}] {what}", flush=True))
        measured = list(store.measurements(campaign=cid, status=None))
    print(f"{len(measured)} of {len(benches)} ladder rungs recorded in "
          f"{time.time() - began:.1f} s")
    for m in measured:
        print(f"  {m.key.kernel:18s} {m.key.variant:48s} {m.status.value:8s} min "
              f"{min(m.raw_times_s) if m.raw_times_s else float('nan'):.6g} s")


def calibrations(out):
    """(the shipped calibration: the paper's form with the schemes' own constants,
    the same with the resident-latency constants added, or None when not derived)."""
    shipped = load_calibration(H100_DIR / "tiling-calibration.json")
    regs = dict(shipped.provenance.get("registers_per_item") or {})
    rows = []
    # round 2: the first call's row-latency ladders (shipped) beside the lane-shape one
    earlier = [H100_DIR / "hexagonal-resident.sqlite"] if ROUND == 2 and not DRY else []
    for path in [H100_DIR / "hexagonal-microbench.sqlite", *earlier, Path(out) / STORE]:
        found = resolve_store_path(path)
        if found is None:
            continue
        with MeasurementStore.open(found, create=False, readonly=True) as store:
            rows += rows_from_measurements(store.measurements(status=None))
    try:
        found = {}
        for form in FORMS:
            found.update(resident_constants(rows, H100, replace(shipped, schemes={}), regs,
                                            form))
    except ModelError as err:
        print(f"resident-latency constants not derived: {err}")
        return shipped, None
    for key, c in found.items():
        print(f"{key}: L = {c.L:.4g} s/word/SM, row latency = {c.row_latency:.4g} s, "
              f"pass latency = {c.pass_latency:.4g} s, "
              "C_iter = " + ", ".join(f"{s} {v:.4g}" for s, v in sorted(c.C_iter.items()))
              + f"; twins' relative error {c.provenance['twin_rel_error']}")
    if not found:
        return shipped, None
    ext = with_scheme_constants(shipped, found)
    save_calibration(ext, Path(out) / CAL_OUT)
    return shipped, ext


def chosen_labels(cal, form, stencil, sizes):
    regs = dict(cal.provenance.get("registers_per_item") or {})
    dims = len(sizes) - 1
    model = TilingModel().ready(device_model="h100", calibration=cal, registers=regs,
                                scheme=Scheme.paper(dims).value, form=form)
    frame = evaluate_grid(model, stencil, sizes,
                          feasible_grid(dims, sizes["T"], scheme=Scheme.paper(dims)))
    ok = []
    for label in point_labels(near_minimum(frame, 0.10), dims):
        p = {k: int(v) for k, v in (x.split("=") for x in label.split(","))}
        if hexspaces.feasible(hexspaces.hex_config(stencil, p, sizes)):
            ok.append(label)
        if len(ok) == PICKS:
            break
    return ok


def best_baseline(stencil, sizes):
    name = f"tune/hx_{stencil}/baseline/{sizes_text(sizes)}"
    for path in (H100_DIR / "hexagonal.sqlite", H100_DIR / "hexagonal-8192.sqlite",
                 H100_DIR / "hexagonal-round7.sqlite"):
        found = resolve_store_path(path)
        if found is None:
            continue
        with MeasurementStore.open(found, create=False, readonly=True) as store:
            ok = [m for m in store.measurements(campaign=name) if m.time_s is not None]
        if ok:
            return [min(ok, key=lambda m: m.time_s).key.variant]
    return []


def measure(store, dev, queue, stencil, sizes, kind, labels, deadline, order_by=None):
    """``labels``' points into ``store`` until ``deadline``, in the order of the strategy
    ``order_by()`` makes (default: exhaustive, the space's order)."""
    from workbench.tuning.parallel import PrebuildPool
    from workbench.tuning.runner import Explorer
    from workbench.tuning.sequence import SequenceEvaluator
    from workbench.tuning.strategies import make_strategy

    order_by = order_by or (lambda: make_strategy("exhaustive"))
    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    began = time.time()
    space = hexspaces.hexagonal_space(stencil, baseline=1, only=labels, **sizes)
    name = f"tune/{space.name}/{kind}/{sizes_text(sizes)}"
    ev = SequenceEvaluator(space, queue, protocol=PROTOCOL, verify=False, build_options=nv)
    probe = order_by()
    probe.start(space, space.points())
    order = []
    while (p := probe.ask()) is not None:
        order.append(p)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chosen.py"
        path.write_text(CHOSEN.format(stencil=stencil, only=sorted(labels)))
        with PrebuildPool(ev, f"{path}:space", order, dev.index,
                          int(os.environ.get("HXR_JOBS", 14))) as pool:
            result = Explorer(space, order_by(), pool, store=store,
                              device=dev.identity, name=name,
                              discard_first=PROTOCOL.discard_first).run(
                None, should_stop=lambda: time.time() > deadline)
    ok = [e for e in result.evaluations if e.ok]
    best = min(ok, key=lambda e: e.time_s) if ok else None
    print(f"{stencil} {sizes_text(sizes)} {kind}: {len(result.evaluations)} of "
          f"{len(labels)} points, {len(ok)} ok, {time.time() - began:.1f} s; best "
          f"{best.point.label if best else '-'} "
          f"{best.time_s if best else float('nan'):.6g} s", flush=True)


def holdout_baseline(stencil, sizes):
    """Every ``HOLDOUT_STRIDE``-th point of the baseline set, by sorted label."""
    labels = sorted(p.label for p in hexspaces.hexagonal_space(
        stencil, baseline=1, **sizes).points())
    return labels[::1 if ROUND == 7 and len(sizes) == 2 else HOLDOUT_STRIDE]


def round2_plan(shipped, ext):
    """Round 2's picks, the most informative first: the 8192^2 problems the first call
    left unmeasured (best baseline, the two-term and load-pass picks, the per-row ones),
    then the others (best baseline, the two-term and load-pass picks).  Each problem's
    best baseline is measured again in this call."""
    missing = {"heat2d", "laplacian2d", "gradient2d"} if not DRY else set()
    first = [(s, z) for s, z in PROBLEMS if s in missing and z.get("S1") == 8192]
    order = first + [p for p in PROBLEMS if p not in first]
    plan = {}
    for stencil, sizes in order:
        forms = ["resident-rows-passes", "resident-load-passes"] + (
            ["resident-latency"] if (stencil, sizes) in first else [])
        plan[(stencil, sizes_text(sizes))] = {
            "best-baseline": best_baseline(stencil, sizes),
            **{KIND[f]: (chosen_labels(ext, f, stencil, sizes) if ext is not None else [])
               for f in forms}}
    return order, plan


def round3_plan(path):
    """The plan file's problems, in its order, and per problem the labels per kind."""
    problems, plan = [], {}
    for key, kinds in json.loads(Path(path).read_text()).items():
        stencil, sizes = key.split(" ", 1)
        problems.append((stencil, {k: int(v) for k, v in
                                   (x.split("=") for x in sizes.split(","))}))
        plan[(stencil, sizes)] = kinds
    return problems, plan


def round4_plan(out, dev):
    """Round 4: per problem (the 2-D ones at 4096^2 first, then 8192^2, then 1-D), the
    lane-pass form's first ``TOP`` points the generator builds, built in one pool for
    their registers, priced again with them; the picks are those within 10 % of the new
    minimum (at most ``PICKS``).  Writes every candidate to
    ``OUT/hexagonal-round4-builds.csv``."""
    import pandas as pd

    from benchmarks.tiling_side_by_side import LADDERS, MICROBENCH, resident_calibration
    from workbench.models.tiling.points import parse_label
    from workbench.models.tiling.selection import reprice_with_registers, top_candidates
    from workbench.tuning.tiling_builds import build_points

    began = time.time()
    if ROUND == 5:
        cal, form = load_calibration(H100_DIR / "tiling-calibration.json"), "resident-lane-rows"
        order = sorted(PROBLEMS, key=lambda p: (len(p[1]) != 3, -p[1]["S1"]))
    elif ROUND == 6:
        cal = load_calibration(H100_DIR / "tiling-calibration-round6.json")
        form = "resident-lane-rows"
        big = sorted(PROBLEMS, key=lambda p: (len(p[1]) != 3, -p[1]["S1"]))
        order = big[:4] + HOLDOUT + big[4:]       # 8192^2, the hold-out, 4096^2, 1-D
    elif ROUND == 7:
        cal = load_calibration(H100_DIR / "tiling-calibration-round7.json")
        form = "resident-lane-rows"
        # the new 1-D sizes, jacobi1d's own size (its picks change), the new 2-D size
        order = [p for p in HOLDOUT if len(p[1]) == 2] + [
            p for p in PROBLEMS if len(p[1]) == 2][-3:] + [
            p for p in HOLDOUT if len(p[1]) == 3]
    else:
        cal, form = resident_calibration(MICROBENCH, LADDERS), "resident-lane-passes"
        order = sorted(PROBLEMS, key=lambda p: (len(p[1]) == 2, p[1]["S1"]))
    nv = ("-cl-nv-verbose",) if "NVIDIA" in dev.label else ()
    tops, models = {}, {}
    for stencil, sizes in order:
        dims = len(sizes) - 1
        models[stencil, sizes_text(sizes)] = model = TilingModel().ready(
            device_model="h100", calibration=cal, form=form,
            registers=dict(cal.provenance.get("registers_per_item") or {}),
            scheme=Scheme.paper(dims).value)
        tops[stencil, sizes_text(sizes)] = top_candidates(
            model, stencil, sizes, TOP, keep=lambda lb, s=stencil, z=sizes: hexspaces.feasible(
                hexspaces.hex_config(s, parse_label(lb), z)))
    print(f"model and top {TOP} of {len(order)} problems: {time.time() - began:.1f} s")
    began = time.time()
    work = [(s, z, lb) for s, z in order for lb in tops[s, sizes_text(z)]["label"]]
    builds = build_points(dev.index, work, nv, jobs=int(os.environ.get("HXR_JOBS", 14)))
    wall = time.time() - began
    print(f"{len(builds)} builds in {wall:.1f} s wall ({os.environ.get('HXR_JOBS', 14)} "
          f"processes); codegen {sum(b.codegen_s for b in builds):.1f} s, build "
          f"{sum(b.build_s for b in builds):.1f} s in all", flush=True)
    found = {(s, sizes_text(z), b.label): b for (s, z, _), b in zip(work, builds)}
    plan, rows = {}, []
    for stencil, sizes in order:
        key = (stencil, sizes_text(sizes))
        priced = reprice_with_registers(models[key], stencil, sizes, tops[key], {
            lb: found[(*key, lb)].registers for lb in tops[key]["label"]})
        chosen = point_labels_of(near_minimum(priced, 0.10))[:PICKS]
        for rank, row in enumerate(priced.itertuples(index=False)):
            b = found[(*key, row.label)]
            rows.append({"stencil": stencil, "sizes": key[1], "label": row.label,
                         "estimated_s": row.estimated_s, "registers": row.registers,
                         "repriced_s": row.T_alg_s, "rank": rank,
                         "picked": row.label in chosen, "codegen_s": b.codegen_s,
                         "build_s": b.build_s, "failure": (b.failure or "")[-200:]})
        plan[key] = {"best-baseline": best_baseline(stencil, sizes),
                     "chosen-with-builds": chosen}
        if (stencil, sizes) in HOLDOUT:
            plan[key]["baseline"] = holdout_baseline(stencil, sizes)
        print(f"{stencil} {key[1]}: picks {chosen}", flush=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(Path(out, f"hexagonal-round{ROUND}-builds.csv"), index=False)
    Path(out, f"hexagonal-round{ROUND}-build-wall.txt").write_text(
        f"{len(builds)} builds, {wall:.2f} s wall, {os.environ.get('HXR_JOBS', 14)} processes\n")
    return order, plan


def point_labels_of(frame):
    return list(frame["label"])


def picks(out, dev, queue, seconds):
    deadline = time.time() + seconds
    if ROUND in (4, 5, 6, 7):
        problems, plan = round4_plan(out, dev)
    elif ROUND == 3:
        problems, plan = round3_plan(os.environ["HXR_PLAN"])
    else:
        shipped, ext = calibrations(out)
        problems, plan = (round2_plan(shipped, ext) if ROUND == 2 else (PROBLEMS, {}))
    for stencil, sizes in (PROBLEMS if ROUND == 1 else []):
        plan[(stencil, sizes_text(sizes))] = {
            "best-baseline": best_baseline(stencil, sizes),
            "chosen-own": chosen_labels(shipped, "paper", stencil, sizes),
            "chosen-resident": (chosen_labels(ext, "resident-latency", stencil, sizes)
                                if ext is not None else []),
            "chosen-load-passes": (chosen_labels(ext, "resident-load-passes", stencil,
                                                 sizes) if ext is not None else [])}
    Path(out, "hexagonal-resident-plan.json").write_text(json.dumps(
        {f"{s} {z}": v for (s, z), v in plan.items()}, indent=1) + "\n")
    with MeasurementStore.open(f"{out}/{STORE}") as store:
        for stencil, sizes in problems:
            for kind, labels in plan[(stencil, sizes_text(sizes))].items():
                if time.time() > deadline:
                    print(f"time is up before {stencil} {sizes_text(sizes)} {kind}")
                    continue
                if labels:
                    measure(store, dev, queue, stencil, sizes, kind, labels, deadline)


if __name__ == "__main__":
    out, stage, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    dev = find_device(os.environ.get("HXR_DEVICE", "NVIDIA"))
    _, queue = open_device(dev)
    {"ladder": ladder, "picks": picks}[stage](out, dev, queue, seconds)
