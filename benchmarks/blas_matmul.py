"""Every BLAS MLX's CPU backend can run on here, side by side in one run: correctness, the decode step's matrix
products, and (with --parts decode) the whole decode step and prefill.

    python -m benchmarks.blas_matmul [--rounds 3] [--parts matmul,decode] [--only LABEL,...] [--threads 1,2]
                                     [--library LABEL=PATH ...]

Variants: the reference BLAS the mlx[cpu] wheel bundles; every library laya knows that is installed
(`laya_lsp.blas.LIBRARIES`), loaded as it is (OpenBLAS: the kernels it detects) and, for OpenBLAS, with each
coretype the CPU's flags allow forced (Haswell, SkylakeX); other BLAS builds found here that export the plain
`cblas_sgemm` (ATLAS) and any `--library` given; and laya's default choice. Each runs with 1 and 2 BLAS threads.
Every variant runs in a fresh process that loads its library as laya-lsp does (`prepare_mlx`, LAYA_BLAS_LIBRARY)
and reports what `cblas_sgemm` bound to and which kernels run; rounds interleave the variants so a load spike on
the shared machine hits them alike, and each figure is the median over rounds.

Correctness: the largest error of MLX's `x @ w.T` against a float64 numpy product, relative to the largest
product, over the shapes below and odd sizes (a wrong or misdetected kernel gives ~1, fp32 rounding ~1e-6).
Speed: microseconds per product `x @ w.T` for M rows against the embedded model's weights (q/k/v/o 384x384, fused
q/k/v 1152x384, gate/up 1024x384, down 384x1024, head 8192x384) and the Qwen2.5-Coder-0.5B shape's; each product
is timed inside one evaluation of several weight copies (so weights are not L2-resident, as in a step).
--parts decode: laya's decode step (ms/token, ctx 64/1000, k 1/5) and 512-token prefill tokens/s per variant, through
`benchmarks/decode_step.py --step-only`, against the memory floor (weight bytes / measured read bandwidth).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import save

ROOT = Path(__file__).resolve().parent.parent
ROWS = (1, 2, 5, 8, 128, 512)
# (name, out features N, in features K) of `x @ w.T`, w stored (N, K) as MLX's Linear stores it.
EMBEDDED = (("qkvo", 384, 384), ("qkv fused", 1152, 384), ("gate/up", 1024, 384), ("down", 384, 1024),
            ("head", 8192, 384))
QWEN_05B = (("0.5b q/o", 896, 896), ("0.5b k/v", 128, 896), ("0.5b gate/up", 4864, 896), ("0.5b down", 896, 4864),
            ("0.5b head", 151936, 896))
# (M, N, K): edge sizes no kernel's blocking divides evenly; M=1 and 2 are the decode step's.
ODD = ((1, 1153, 385), (2, 127, 1025), (3, 8191, 383), (7, 385, 4865), (129, 1025, 387), (513, 383, 1151))
# Builds of other BLAS that export the plain `cblas_sgemm` and Debian installs (compared, not chosen by laya).
OTHERS = {"atlas": "/usr/lib/{arch}-linux-gnu/atlas/libblas.so.3"}
THREAD_ENV = ("OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

PROBE = """
import json, statistics, sys, time
from laya_lsp.blas import blas_info
from laya_lsp.device import prepare_mlx
prepare_mlx()
import mlx.core as mx
import numpy as np
shapes, odd, rows, heavy = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
def product(m, n, k):
    x = rng.standard_normal((m, k), dtype=np.float32); w = rng.standard_normal((n, k), dtype=np.float32)
    got = np.array(mx.array(x) @ mx.array(w).T).astype(np.float64)
    want = x.astype(np.float64) @ w.astype(np.float64).T
    return float(np.abs(got - want).max() / np.abs(want).max()) if np.isfinite(got).all() else float("inf")
errors = [product(m, n, k) for m, n, k in odd + [(m, n, k) for _, n, k in shapes[:5] for m in (1, 8, 128)]]
us = {}
for name, n, k in shapes:
    copies = max(1, min(16, -(-48 * 2**20 // (n * k * 4))))  # > L2, like the other layers' weights in a step
    ws = [mx.full((n, k), 0.01 * (i + 1)) for i in range(copies)]  # values do not change a BLAS's speed
    mx.eval(ws)
    for m in rows:
        if m > 8 and (name.endswith("head") and n > 10000 or not heavy and n * k > 10**6):
            continue
        x = mx.full((m, k), 0.5); mx.eval(x)
        cycled = ws if m <= 8 else ws[:1]  # many rows reuse each weight: its cache residency hardly matters
        mx.eval([x @ w.T for w in cycled])
        times, spent = [], 0.0
        while len(times) < 3 or (spent < 0.05 and len(times) < 20):
            t = time.perf_counter(); mx.eval([x @ w.T for w in cycled]); dt = time.perf_counter() - t
            times.append(dt / len(cycled) * 1e6); spent += dt
        us[f"{name} M={m}"] = round(statistics.median(times), 1)
    del ws
print(json.dumps({"info": blas_info(), "max_rel_error": max(errors), "us": us}))
"""


def variants(extra: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """(label, environment) of every variant; a library found under two paths (an alternatives link) runs once."""
    import platform

    from laya_lsp.blas import LIBRARY_ENV, OPENBLAS_CORETYPES, OPT_OUT_ENV, cpu_flags, installed_libraries

    arch, flags, seen = platform.machine(), cpu_flags(), set()
    out: list[tuple[str, dict[str, str]]] = [("reference", {OPT_OUT_ENV: "1"})]
    found = [(lib.name, lib.family, path) for lib, path in installed_libraries()]
    found += [(name, "other", p.format(arch=arch)) for name, p in OTHERS.items() if Path(p.format(arch=arch)).exists()]
    found += [(name, "other", path) for name, path in extra.items()]
    coretypes = [name for name, needs in OPENBLAS_CORETYPES.items() if needs <= flags]
    for name, family, path in found:
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        out.append((name, {LIBRARY_ENV: path}))
        if family == "openblas":
            out += [(f"{name} {c}", {LIBRARY_ENV: path, "OPENBLAS_CORETYPE": c}) for c in coretypes]
    out.append(("laya default", {}))
    return out


def _env(overrides: dict[str, str], threads: int) -> dict[str, str]:
    """This environment without any BLAS choice or thread/coretype setting, plus `overrides` and `threads`."""
    drop = {"LD_PRELOAD", "LAYA_BLAS_LIBRARY", "LAYA_NO_BLAS_PRELOAD", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
            *THREAD_ENV}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, **overrides, **{k: str(threads) for k in THREAD_ENV}, "PYTHONPATH": str(ROOT)}


def _run_json(cmd: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, check=True, cwd=ROOT)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except subprocess.CalledProcessError as exc:
        return {"error": f"exit {exc.returncode}: {exc.stderr.strip()[-300:]}"}
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}


def _medians(runs: list[dict[str, float]]) -> dict[str, float]:
    keys = dict.fromkeys(k for r in runs for k in r)
    return {k: round(statistics.median([r[k] for r in runs if k in r]), 2) for k in keys}


def measure(cases: list[tuple[str, dict[str, str], int]], rounds: int, parts: set[str], log: Any) -> dict[str, Any]:
    """Every case (label, environment, threads) once per round, rounds interleaved; per case the medians."""
    shapes = [list(s) for s in EMBEDDED + QWEN_05B]
    raw: dict[str, list[dict[str, Any]]] = {}
    for r in range(rounds):
        for label, env, threads in cases:
            key = f"{label} t{threads}"
            heavy = env.get("LAYA_NO_BLAS_PRELOAD") is None  # the reference BLAS is too slow for the big products
            arg = json.dumps([shapes, [list(o) for o in ODD], list(ROWS), heavy])
            res: dict[str, Any] = {}
            if "matmul" in parts:
                res = _run_json([sys.executable, "-c", PROBE, arg], _env(env, threads), 900)
            if "decode" in parts:
                res["decode"] = _run_json([sys.executable, str(ROOT / "benchmarks" / "decode_step.py"), "--step-only",
                                           "--repeats", "1"], _env(env, threads), 900)
            raw.setdefault(key, []).append(res)
            log(f"round {r + 1}/{rounds} {key}: {res.get('error') or res.get('info', {}).get('kernel', '')} "
                f"{res.get('decode', {}).get('ms_per_token', '')}")
    out: dict[str, Any] = {}
    for key, runs in raw.items():
        row: dict[str, Any] = {}
        ok = [r for r in runs if "us" in r]
        if ok:
            row.update(info=ok[0]["info"], max_rel_error=max(r["max_rel_error"] for r in ok),
                       us=_medians([r["us"] for r in ok]))
        elif "matmul" in parts:
            row["error"] = runs[0].get("error")
        dec = [r["decode"] for r in runs if "ms_per_token" in r.get("decode", {})]
        if dec:
            row["decode_ms_per_token"] = _medians([d["ms_per_token"] for d in dec])
            row["prefill_tokens_per_s"] = round(statistics.median(d["prefill_tokens_per_s"] for d in dec), 1)
            row["weight_bytes"] = dec[0]["weight_bytes"]
        elif "decode" in parts:
            row["decode_error"] = next((r.get("decode", {}).get("error") for r in runs), None)
        out[key] = row
    return out


def report(results: dict[str, Any], floor_ms: float | None, log: Any) -> None:
    """One line per variant: kernels, error, the decode step's products, and (with --parts decode) the step."""
    picks = ("qkvo M=1", "head M=1", "head M=5", "gate/up M=8", "down M=512", "0.5b gate/up M=1", "0.5b head M=1")
    log(f"{'variant':<26} {'kernel':<10} {'max err':>8}  " + "  ".join(f"{p:>16}" for p in picks) + "   (us)")
    for key, row in results.items():
        if "error" in row or "us" not in row:
            log(f"{key:<26} {row.get('error', '-')}")
            continue
        us = row["us"]
        log(f"{key:<26} {row['info'].get('kernel', '-')!s:<10} {row['max_rel_error']:8.1e}  "
            + "  ".join(f"{us.get(p, float('nan')):16.1f}" for p in picks))
    if floor_ms:
        log(f"decode step, laya (ms/token; floor {floor_ms:.2f} ms) and 512-token prefill:")
        for key, row in results.items():
            if "decode_ms_per_token" in row:
                d = row["decode_ms_per_token"]
                log(f"  {key:<26} " + "  ".join(f"{k} {v:6.2f} ({v / floor_ms:4.1f}x)" for k, v in d.items())
                    + f"  k5/k1 {d['ctx64 k=5'] / d['ctx64 k=1']:.2f}  prefill {row['prefill_tokens_per_s']} tok/s")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds over all variants; figures are medians over them")
    p.add_argument("--parts", default="matmul", help="matmul (correctness, products), decode (step, prefill) or both")
    p.add_argument("--threads", default="1,2", help="BLAS thread counts to run each variant with")
    p.add_argument("--only", help="comma-separated variant labels to run (default: all)")
    p.add_argument("--library", action="append", default=[], metavar="LABEL=PATH",
                   help="another BLAS exporting cblas_sgemm to compare, e.g. mkl=/path/libmkl_rt.so.2")
    args = p.parse_args()
    extra = dict(item.split("=", 1) for item in args.library)
    only = set(args.only.split(",")) if args.only else None
    threads = [int(t) for t in args.threads.split(",")]
    cases = [(label, env, t) for label, env in variants(extra) if not only or label in only
             for t in (threads if label != "reference" else threads[:1])]
    load_before = [round(x, 2) for x in os.getloadavg()]
    parts = set(args.parts.split(","))
    floor_ms = None
    if "decode" in parts:
        from benchmarks.shapes import measure_bandwidth

        bandwidth = measure_bandwidth(512)["gbs"]
    results = measure(cases, args.rounds, parts, lambda m: print(m, file=sys.stderr, flush=True))
    weight_bytes = next((r["weight_bytes"] for r in results.values() if "weight_bytes" in r), None)
    if "decode" in parts and weight_bytes:
        floor_ms = weight_bytes / (bandwidth * 1e9) * 1000
    report(results, floor_ms, print)
    out = {"rounds": args.rounds, "rows": list(ROWS), "variants": results, "floor_ms_per_token": floor_ms,
           "load_average_before": load_before, "load_average_after": [round(x, 2) for x in os.getloadavg()]}
    print(f"load average before {load_before}, after {out['load_average_after']}")
    print("saved", save("blas-matmul", out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
