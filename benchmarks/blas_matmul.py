"""MLX fp32 matmul speed with the BLAS the mlx[cpu] wheel bundles vs with OpenBLAS preloaded (as laya-lsp does).

    python -m benchmarks.blas_matmul [--n 1024] [--reps 10]
Runs both in fresh subprocesses in one go and prints the ratio; saves JSON under benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from benchmarks.common import save

PROBE = """
import json, time, mlx.core as mx
from laya_lsp.blas import active_blas
n, reps = {n}, {reps}
a = mx.random.normal((n, n)); b = mx.random.normal((n, n)); mx.eval(a, b)
for _ in range(2): mx.eval(a @ b)
t = time.perf_counter()
for _ in range(reps): mx.eval(a @ b)
ms = (time.perf_counter() - t) / reps * 1000
print(json.dumps({{"ms": ms, "gflops": 2 * n**3 / ms / 1e6, "blas": active_blas()}}))
"""


def run(n: int, reps: int, preload: bool) -> dict:
    from laya_lsp.blas import PRELOADED_MARK, find_openblas

    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", PRELOADED_MARK)}
    if preload:
        lib = find_openblas()
        if lib is None:
            return {"error": "no OpenBLAS installed"}
        env["LD_PRELOAD"] = lib
    out = subprocess.run([sys.executable, "-c", PROBE.format(n=n, reps=reps)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--n", type=int, default=1024)
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args()
    bundled = run(args.n, max(2, args.reps // 5), preload=False)
    fast = run(args.n, args.reps, preload=True)
    result = {"n": args.n, "bundled": bundled, "openblas": fast}
    if "ms" in fast:
        result["speedup"] = round(bundled["ms"] / fast["ms"], 1)
    for name in ("bundled", "openblas"):
        r = result[name]
        print(f"{name:>9}: {r.get('ms', float('nan')):8.1f} ms  {r.get('gflops', 0):7.1f} GFLOP/s  {r.get('blas', r)}")
    if "speedup" in result:
        print(f"  speedup: {result['speedup']}x  ({args.n}x{args.n} fp32 matmul)")
    print("saved", save("blas-matmul", result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
