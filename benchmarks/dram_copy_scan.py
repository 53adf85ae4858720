"""Scan of loopy stream-copy variants on one device, next to CuPy's copy (how the DRAM
microbenchmark of workbench/measure/bandwidth.py was chosen; sample_data/h100/README.md).

    python3 benchmarks/dram_copy_scan.py            # the NVIDIA device, 2 x 1 GiB float32
    python3 benchmarks/dram_copy_scan.py --small    # pocl, 16 MiB: a smoke test
"""
import sys

import loopy as lp
import numpy as np
import pyopencl as cl
import pyopencl.array as cla

LANG = (2018, 2)
small = "--small" in sys.argv
n = (1 << 22) if small else (1 << 28)

def base(name):
    return lp.make_kernel("{[i]: 0<=i<n}", "b[i] = a[i]",
        [lp.GlobalArg("a,b", np.float32, shape=("n",)), lp.ValueArg("n", np.int32)],
        name=name, lang_version=LANG, assumptions="n>=1")

def one(group):
    k = base(f"c1_{group}")
    return lp.split_iname(k, "i", group, outer_tag="g.0", inner_tag="l.0")

def strided(group, per):
    # each work item copies `per` elements, group*per apart within its group's chunk
    k = base(f"cs_{group}_{per}")
    k = lp.split_iname(k, "i", group * per, outer_tag="g.0")
    k = lp.split_iname(k, "i_inner", group, inner_tag="l.0", outer_tag="unr")
    return lp.assume(k, f"n mod {group*per} = 0") if hasattr(lp, "assume") else k

def vec(group, width):
    k = base(f"cv_{group}_{width}")
    k = lp.split_array_axis(k, "a,b", 0, width)
    k = lp.tag_array_axes(k, "a,b", "c,vec")
    k = lp.split_iname(k, "i", width, inner_tag="vec")
    k = lp.split_iname(k, "i_outer", group, outer_tag="g.0", inner_tag="l.0")
    return k

def vec_strided(group, width, per):
    k = base(f"cvs_{group}_{width}_{per}")
    k = lp.split_array_axis(k, "a,b", 0, width)
    k = lp.tag_array_axes(k, "a,b", "c,vec")
    k = lp.split_iname(k, "i", width, inner_tag="vec")
    k = lp.split_iname(k, "i_outer", group * per, outer_tag="g.0")
    k = lp.split_iname(k, "i_outer_inner", group, inner_tag="l.0", outer_tag="unr")
    return k

def candidates():
    for g in (128, 256, 512, 1024):
        yield "one", g, one(g)
    for g in (128, 256, 512):
        for per in (2, 4, 8):
            yield f"strided{per}", g, strided(g, per)
    for g in (128, 256, 512):
        for w in (2, 4):
            yield f"vec{w}", g, vec(g, w)
    for g in (128, 256):
        for w in (4,):
            for per in (2, 4):
                yield f"vec{w}x{per}", g, vec_strided(g, w, per)

plat = [p for p in cl.get_platforms()]
dev = None
for p in plat:
    for d in p.get_devices():
        if ("NVIDIA" in p.name) or small:
            dev = d; break
    if dev: break
ctx = cl.Context([dev]); q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
print("device", dev.name, dev.driver_version, flush=True)
src = cla.empty(q, n, np.float32); src.fill(np.float32(1.5))
results = []
for label, g, knl in candidates():
    try:
        dst = cla.zeros(q, n, np.float32)
        ex = knl.executor(q)
        times = []
        if label.startswith("vec"):
            w = int(label[3])
            a2 = src.reshape(n // w, w); b2 = dst.reshape(n // w, w)
            args = dict(a=a2, b=b2, n=n)
        else:
            args = dict(a=src, b=dst, n=n)
        for _ in range(30):
            evt, _ = ex(q, **args); evt.wait()
            times.append((evt.profile.end - evt.profile.start) * 1e-9)
        ok = bool(np.all(dst.get()[:: max(1, n // 4096)] == 1.5))
        best = min(times[4:])
        results.append(dict(label=label, group=g, time_s=best, GBps=8 * n / best / 1e9, ok=ok))
        print(f"{label:10s} g={g:5d} {8*n/best/1e9:8.1f} GB/s ok={ok}", flush=True)
    except Exception as e:
        print(f"{label:10s} g={g:5d} FAILED {type(e).__name__}: {str(e)[:200]}", flush=True)
try:
    import cupy as cp
    a = cp.ones(n, dtype=cp.float32); b = cp.empty_like(a)
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(30):
        s.record(); cp.copyto(b, a); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) * 1e-3)
    print(f"cupy copy  {8*n/min(ts[4:])/1e9:8.1f} GB/s")
except ImportError:
    pass
