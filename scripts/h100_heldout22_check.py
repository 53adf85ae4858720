# every heldout22 kernel against its numpy reference on the device (after h100_heldout22.sh):
#   PYTHONPATH=/tmp/site:$PWD python3 scripts/h100_heldout22_check.py > OUTDIR/check-heldout22.log
import sys, warnings
warnings.simplefilter("ignore")
import numpy as np, pyopencl as cl, loopy as lp
from workbench.kernels.defs import HELDOUT22_SPECS
dev = [d for p in cl.get_platforms() for d in p.get_devices() if "NVIDIA" in d.name][0]
q = cl.CommandQueue(cl.Context([dev]))
print("device:", dev.name, dev.driver_version)
fails = 0
for spec in HELDOUT22_SPECS:
    for dt in ("float32", "float64"):
        for g in spec.group_sizes():
            req = spec.request(spec.variants[0], dt, g)
            params = dict(spec.check_params)
            inputs = spec.inputs(params, req.dtype, np.random.default_rng(1234), spec.variants[0])
            knl = lp.set_options(spec.build(req), return_dict=True)
            _, out = knl.executor(q)(q, **inputs, **params)
            want = spec.expected(inputs, params, spec.variants[0])
            worst = 0.0
            ok = True
            for k, v in want.items():
                got = out[k].get() if hasattr(out[k], "get") else out[k]
                ok &= bool(np.allclose(got, v, rtol=spec.rtol, atol=0))
                nz = v != 0
                worst = max(worst, float(np.max(np.abs(got[nz] - v[nz]) / np.abs(v[nz]))),
                            float(np.max(np.abs(got[~nz]), initial=0)))
            fails += not ok
            print(f"{spec.name} {dt} {g}: {'ok' if ok else 'FAIL'} worst rel {worst:.2e} (rtol {spec.rtol})")
print("failures:", fails)
