"""Check: the local barriers the workbench counts (one linearization of the prepared
kernel, none where loopy inserts none: ``workbench.properties.counting.local_barriers``)
equal loopy's own ``get_synchronization_map`` (``barrier_local``), kernel by kernel.

Over every point of every ``examples/spaces/*.py``, ``examples/kernels/my_space.py``
and ``tests/spaces/*.py``, and every catalog kernel's builds (each variant and
dtype).  Prints each mismatch and a summary; exits 1 on a mismatch.  Rerun it after a
loopy upgrade.  Run: ``python benchmarks/local_barriers_check.py [spaces] [catalog]``
(minutes on a 2-core machine).
"""

from __future__ import annotations

import functools
import glob
import os
import sys
import time
import warnings


def _loopy(pre):
    import loopy as lp

    from workbench.properties.symbolic import pwqpolynomial_to_expr

    sync = lp.get_synchronization_map(pre, subgroup_size=1)
    parts = [pwqpolynomial_to_expr(v.pwqpolynomial) for s, v in sync.items()
             if s.kind == "barrier_local"]
    return functools.reduce(lambda a, b: a + b, parts) if parts else 0


def _ours(pre):
    from workbench.properties.counting import local_barriers
    from workbench.properties.symbolic import pwqpolynomial_to_expr

    count = local_barriers(pre)
    return 0 if isinstance(count, int) else pwqpolynomial_to_expr(count.pwqpolynomial)


def _kernels(which):
    from workbench.kernels.catalog import all_kernels
    from workbench.tuning.catalog import resolve_space

    if "spaces" in which:
        for f in [*sorted(glob.glob("examples/spaces/*.py")), "examples/kernels/my_space.py",
                  *sorted(glob.glob("tests/spaces/*.py"))]:
            space = resolve_space(f"{f}:space")
            for p in space.points():
                yield f"{f}:{p.label}", lambda space=space, p=p: space.build(p)
    if "catalog" in which:
        for spec in all_kernels():
            for variant in spec.variants:
                for dtype in spec.dtypes:
                    request = spec.request(variant, dtype.value, None)
                    yield (f"{spec.name}/{variant}/{dtype.value}",
                           lambda spec=spec, request=request: spec.build(request))


def main() -> int:
    warnings.filterwarnings("ignore")
    from workbench.properties.counting import prepare

    which = sys.argv[1:] or ["spaces", "catalog"]
    began = time.time()
    compared = with_barriers = mismatches = failed = 0
    for label, build in _kernels(which):
        try:
            want = _loopy(prepare(build()))
        except Exception as err:  # noqa: BLE001 - a kernel loopy cannot linearize
            failed += 1
            print(f"loopy fails on {label}: {type(err).__name__}: {str(err)[:100]}")
            continue
        got = _ours(prepare(build()))
        compared += 1
        with_barriers += want != 0
        if str(got) != str(want):
            mismatches += 1
            print(f"MISMATCH {label}: loopy {want} | workbench {got}")
    print(f"{compared} kernels compared ({with_barriers} with local barriers), "
          f"{mismatches} mismatches, {failed} that loopy could not count; "
          f"{time.time() - began:.0f} s, load average "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
