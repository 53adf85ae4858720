"""cold_counts(): loopy's disk caches empty and private inside, the user's untouched."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# run in a process of its own: loopy's caches pick their folder when loopy is imported,
# and this one's XDG_CACHE_HOME is the test's folder, not the user's
_SCRIPT = textwrap.dedent('''
    import contextlib, glob, multiprocessing, os, sqlite3
    import loopy as lp
    import numpy as np
    from loopy.schedule import schedule_cache
    from workbench.tuning.loopy_caches import loopy_disk_caches
    from workbench.tuning.stream import cold_counts

    folder = os.path.join(os.environ["XDG_CACHE_HOME"], "pytools")

    def entries():
        """every (file, key) in the user's cache files, read from disk"""
        out = set()
        for path in glob.glob(os.path.join(folder, "*.sqlite")):
            with contextlib.closing(sqlite3.connect(path)) as conn:
                out |= {(os.path.basename(path), k)
                        for (k,) in conn.execute("SELECT keyhash FROM dict")}
        return out

    def look(queue):
        queue.put("workbench-test-before" in schedule_cache)
        schedule_cache.store("workbench-test-forked", 1)

    knl = lp.add_dtypes(lp.make_kernel("{[i]: 0<=i<n}", "a[i] = 2*b[i]",
                                         lang_version=(2018, 2)), {"b": np.float32})
    lp.generate_code_v2(knl)
    schedule_cache.store("workbench-test-before", "kept")
    assert schedule_cache.fetch("workbench-test-before") == "kept"  # remembered in memory too
    before = entries()
    assert len({f for f, _ in before}) >= 3, before

    with cold_counts():
        caches = loopy_disk_caches()
        assert len(caches) >= 6 and all(len(c) == 0 for c in caches)
        assert "workbench-test-before" not in schedule_cache
        lp.generate_code_v2(knl)  # a cold build writes its entries, privately
        assert sum(len(c) for c in caches) >= 3
        queue = multiprocessing.get_context("fork").SimpleQueue()
        child = multiprocessing.get_context("fork").Process(target=look, args=(queue,))
        child.start()
        child.join()
        assert child.exitcode == 0 and queue.get() is False
        assert "workbench-test-forked" in schedule_cache
        assert entries() == before

    assert entries() == before
    assert schedule_cache.fetch("workbench-test-before") == "kept"
    assert "workbench-test-forked" not in schedule_cache
    print("private caches ok")
''')


def test_cold_counts_keeps_the_users_loopy_caches_and_misses_them_inside(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), WORKBENCH_COUNT_CACHE="off",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         env=env, cwd=str(tmp_path), timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "private caches ok" in out.stdout
