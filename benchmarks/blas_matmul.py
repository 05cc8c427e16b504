"""MLX fp32 matmul speed with the BLAS the mlx[cpu] wheel bundles vs with OpenBLAS loaded as laya-lsp loads it.

    python -m benchmarks.blas_matmul [--n 1024] [--reps 10]
Runs both in fresh subprocesses in one go (`prepare_mlx()` before MLX is imported, or LAYA_NO_BLAS_PRELOAD=1),
prints ms per n x n matmul and the ratio, and which library MLX's cblas_sgemm bound to in each (the dynamic
linker's report); saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from benchmarks.common import save

PROBE = """
import json, time
from laya_lsp.blas import active_blas
from laya_lsp.device import prepare_mlx
prepare_mlx()
import mlx.core as mx
n, reps = {n}, {reps}
a = mx.random.normal((n, n)); b = mx.random.normal((n, n)); mx.eval(a, b)
for _ in range(2): mx.eval(a @ b)
t = time.perf_counter()
for _ in range(reps): mx.eval(a @ b)
ms = (time.perf_counter() - t) / reps * 1000
print(json.dumps({{"ms": ms, "gflops": 2 * n**3 / ms / 1e6, "blas": active_blas()}}))
"""


def run(n: int, reps: int, preload: bool) -> dict:
    from laya_lsp.blas import find_openblas, sgemm_binding

    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if not preload:
        env["LAYA_NO_BLAS_PRELOAD"] = "1"
    elif find_openblas() is None:
        return {"error": "no OpenBLAS installed"}
    out = subprocess.run([sys.executable, "-c", PROBE.format(n=n, reps=reps)], env=env, capture_output=True,
                         text=True, check=True)
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "sgemm_binds_to": sgemm_binding(preload)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args()
    bundled = run(args.n, max(2, args.reps // 5), preload=False)
    fast = run(args.n, args.reps, preload=True)
    result = {"n": args.n, "bundled": bundled, "openblas": fast, "load_average": [round(x, 2) for x in os.getloadavg()]}
    if "ms" in fast:
        result["speedup"] = round(bundled["ms"] / fast["ms"], 1)
    for name in ("bundled", "openblas"):
        r = result[name]
        print(f"{name:>9}: {r.get('ms', float('nan')):8.1f} ms  {r.get('gflops', 0):7.1f} GFLOP/s  "
              f"cblas_sgemm -> {r.get('sgemm_binds_to', r)}")
    if "speedup" in result:
        print(f"  speedup: {result['speedup']}x  ({args.n}x{args.n} fp32 matmul)")
    print("saved", save("blas-matmul", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
