"""Check: two versions of the counting code extract the same properties.

``dump OUT.json [--step N] [--prepared]`` writes, for every N-th point of every
``examples/spaces/*.py``, ``examples/kernels/my_space.py`` and ``tests/spaces/*.py``,
the text of every count, the parameters, group size, assumptions, footprints and
access records at work-item and at sub-group (32) granularity; ``--prepared``
extracts the sub-group ones with the work-item properties given (``workitem=``: their
prepared program and barriers), as the ranking now does; ``--memo`` builds the points
with the factory's ``lp.make_kernel`` memoized, as the ranking now does.  ``compare A.json B.json`` prints every difference and exits 1 on
one.  Run the dump once with ``PYTHONPATH`` at an older checkout (e.g. ``git archive
COMMIT workbench | tar -x -C /tmp/old``) and once at this one.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
import warnings


def dump(out: str, step: int, prepared: bool, memo: bool = False) -> None:
    import contextlib

    import workbench
    from workbench.properties import extract_properties
    from workbench.properties.features import Granularity
    from workbench.tuning.catalog import resolve_space

    began = time.time()
    found = {}
    for f in [*sorted(glob.glob("examples/spaces/*.py")), "examples/kernels/my_space.py",
              *sorted(glob.glob("tests/spaces/*.py"))]:
        space = resolve_space(f"{f}:space")
        for p in space.points()[::step]:
            if memo:
                from workbench.models.factory_memo import memoized_make_kernel
            with memoized_make_kernel() if memo else contextlib.nullcontext():
                kernel = space.build(p)
            workitem = extract_properties(kernel)
            subgroup = extract_properties(kernel, granularity=Granularity.SUBGROUP,
                                          subgroup_size=32,
                                          **({"workitem": workitem} if prepared else {}))
            found[f"{f}|{p.label}"] = {tag: {
                "parameters": list(props.parameters), "group": list(props.group_size),
                "assumptions": str(props.assumptions),
                "counts": {feature.name: str(e) for feature, e in props.counts.items()},
                "utilization": {a: [str(fp.used), str(fp.filled)]
                                for a, fp in props.utilization.items()},
                "accesses": sorted(str(r) for r in props.accesses)}
                for tag, props in (("workitem", workitem), ("subgroup", subgroup))}
    with open(out, "w") as fh:
        json.dump(found, fh)
    print(f"{workbench.__file__}: {len(found)} points, {time.time() - began:.0f} s")


def compare(a_path: str, b_path: str) -> int:
    with open(a_path) as fh:
        a = json.load(fh)
    with open(b_path) as fh:
        b = json.load(fh)
    differences = 0
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            differences += 1
            print(f"only in one: {key}")
            continue
        for tag in a[key]:
            for field, value in a[key][tag].items():
                if b[key][tag].get(field) != value:
                    differences += 1
                    print(f"{key} [{tag}] {field} differs")
    print(f"{len(a)} points, 2 granularities: {differences} differences")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("--step", type=int, default=1)
    d.add_argument("--prepared", action="store_true")
    d.add_argument("--memo", action="store_true",
                   help="build the points as a ranking does, the factory's make_kernel "
                        "memoized (workbench.models.factory_memo)")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.command == "dump":
        dump(args.out, args.step, args.prepared, args.memo)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
