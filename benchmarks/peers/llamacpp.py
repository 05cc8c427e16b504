"""The llama.cpp peer: the same weights as GGUF (f32 and f16) in llama-cpp-python, answering the same prompts.

    python -m benchmarks.peers.llamacpp --model DIR --prompts prompts.json --out out.json [--threads 2]
Run by run_all in its own process (no MLX threads next to llama.cpp's). Per buffer one `Llama` object, so
each buffer keeps its own KV cache: `Llama.generate` reuses the longest common prefix with what that context
already holds (llama-cpp-python's prompt cache) and evaluates only the rest, as laya's per-buffer cache does.
Greedy, one candidate, the same token cap and stop rule as the engine. Before timing, the logits after a
prompt are compared with the reference logits that run_all computed with MLX (`parity`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np


def _latency(ms: list[float]) -> dict[str, Any]:
    s = sorted(ms)
    if not s:
        return {"n": 0}
    return {
        "n": len(s),
        "p50_ms": round(statistics.median(s), 2),
        "p95_ms": round(s[min(len(s) - 1, int(0.95 * len(s)))], 2),
        "max_ms": round(s[-1], 2),
        "mean_ms": round(statistics.fmean(s), 2),
    }


def new_llama(path: Path, threads: int, n_ctx: int = 2048, logits_all: bool = False) -> Any:
    from llama_cpp import Llama

    return Llama(model_path=str(path), n_ctx=n_ctx, n_batch=512, n_threads=threads, n_threads_batch=threads,
                 logits_all=logits_all, verbose=False, seed=0)


def parity(path: Path, threads: int, ref: dict[str, Any]) -> dict[str, Any]:
    """Compare llama.cpp's last-position logits with MLX's for the same prompt."""
    llm = new_llama(path, threads, logits_all=True)
    ids = ref["ids"]
    llm.eval(ids)
    got = np.array(llm.scores[len(ids) - 1], dtype=np.float64)
    want = np.array(ref["logits"], dtype=np.float64)
    n = min(len(got), len(want))
    got, want = got[:n], want[:n]
    top_got, top_want = list(np.argsort(-got)[:5]), list(np.argsort(-want)[:5])
    out = {"prompt_tokens": len(ids), "max_abs_diff": round(float(np.max(np.abs(got - want))), 5),
           "logit_scale": round(float(np.max(np.abs(want))), 3),
           "corr": round(float(np.corrcoef(got, want)[0, 1]), 6), "argmax_equal": bool(top_got[0] == top_want[0]),
           "top5_overlap": len(set(top_got) & set(top_want))}
    del llm
    return out


def run_prompts(path: Path, threads: int, ps: dict[str, Any], limit: int = 0,
                warm_first: bool = False) -> dict[str, Any]:
    """One Llama per document; time every prompt (prefill of what is not cached + greedy decode). `warm_first`:
    each document's context first evaluates its first prompt but the last token, untimed (warmed at the typing
    position, as laya is by `laya/focus`)."""
    stop, newline, blank = set(ps["stop_ids"]), set(ps["newline_ids"]), set(ps["blank_ids"])
    prompts = ps["prompts"][:limit] if limit else ps["prompts"]
    llms: dict[str, Any] = {}
    times, toks, reused, total = [], 0, 0, 0
    for p in prompts:
        llm = llms.get(p["doc"])
        if llm is None:
            llm = llms[p["doc"]] = new_llama(path, threads)
            if warm_first:
                llm.eval(p["ids"][:-1])
        ids = p["ids"]
        # What the context holds in common with this prompt (what llama-cpp-python will not recompute).
        held = list(llm._input_ids[: llm.n_tokens])
        common = 0
        for a, b in zip(held, ids[:-1]):
            if a != b:
                break
            common += 1
        t0 = time.perf_counter()
        out: list[int] = []
        lines, content = 0, False
        for tok in llm.generate(ids, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0, reset=True):
            tok = int(tok)
            if tok in stop:
                break
            out.append(tok)
            if tok in newline and content:
                lines += 1
                if lines >= p["max_lines"]:
                    break
            if tok not in blank:
                content = True
            if len(out) >= p["max_tokens"]:
                break
        times.append((time.perf_counter() - t0) * 1000)
        toks += len(out)
        reused += common
        total += len(ids)
    return {**_latency(times), "decoded_tokens": toks, "reuse_ratio": round(reused / max(total, 1), 4),
            "contexts": len(llms), "latencies_ms": [round(x, 2) for x in times]}


def decode_speed(path: Path, threads: int, context: int = 64, tokens: int = 24) -> dict[str, Any]:
    """ms/token of single-token evals after a `context`-token prompt, for the shape table."""
    llm = new_llama(path, threads)
    vocab = llm.n_vocab()
    ids = [(i * 7919) % (vocab - 10) + 5 for i in range(context)]
    t = time.perf_counter()
    llm.eval(ids)
    prefill_s = time.perf_counter() - t
    steps = []
    for i in range(tokens):
        t = time.perf_counter()
        llm.eval([(i * 31) % (vocab - 10) + 5])
        steps.append((time.perf_counter() - t) * 1000)
    steps.sort()
    return {"context": context, "ms_per_token": round(steps[len(steps) // 2], 3),
            "prefill_tokens_per_s": round(context / prefill_s, 1)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", type=Path, required=True, help="mlx-lm model directory (exported to GGUF here)")
    p.add_argument("--prompts", type=Path, required=True, help="JSON: {name: PromptSet dict, '_parity': {...}}")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--gguf-dir", type=Path, default=Path("/tmp"))
    p.add_argument("--dtypes", default="f32,f16")
    p.add_argument("--warm-first", action="store_true", help="warm each buffer at its first prompt, untimed")
    p.add_argument("--no-decode-speed", action="store_true", help="skip the ms/token measurement")
    p.add_argument("--omp-wait", choices=["passive", "active", "default"], default="passive",
                   help="OMP_WAIT_POLICY for llama.cpp's OpenMP threads (see below)")
    args = p.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    # llama.cpp's OpenMP threads spin at barriers by default. On a shared 2-core machine a descheduled
    # thread makes the other spin for a whole time slice at every op: decode got ~10x slower at load ~6.
    # Passive waiting avoids that but pays a wake-up per barrier: on the idle machine 2 passive threads
    # decoded at 5.7-6.8 ms/token against 1.0 spinning and 1.4 with 1 thread (2026-12-02). run_all runs
    # several settings and reports the fastest.
    if args.omp_wait != "default":
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait.upper()
    import llama_cpp

    from benchmarks.peers.gguf_export import export_gguf

    sets = json.loads(args.prompts.read_text())
    ref = sets.pop("_parity", None)
    result: dict[str, Any] = {"llama_cpp_python": llama_cpp.__version__, "threads": args.threads,
                              "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
                              "system_info": llama_cpp.llama_print_system_info().decode(errors="replace").strip()}
    for dtype in [d for d in args.dtypes.split(",") if d]:
        t = time.perf_counter()
        path = args.gguf_dir / f"model-{dtype}.gguf"
        info = export_gguf(args.model, path, dtype)
        info["export_s"] = round(time.perf_counter() - t, 1)
        section: dict[str, Any] = {"gguf": info}
        if ref:
            section["parity"] = parity(path, args.threads, ref)
            print(f"llama.cpp {dtype} parity vs MLX: {section['parity']}", flush=True)
        for name, ps in sets.items():
            res = run_prompts(path, args.threads, ps, args.limit, args.warm_first)
            section[name] = res
            print(f"llama.cpp {dtype} {name}: p50 {res['p50_ms']:.1f} ms  p95 {res['p95_ms']:.1f}  (n={res['n']}, "
                  f"{res['decoded_tokens']} tokens decoded, reuse {res['reuse_ratio']:.3f})", flush=True)
        if not args.no_decode_speed:
            section["decode"] = [decode_speed(path, args.threads, ctx) for ctx in (64, 1024)]
            print(f"llama.cpp {dtype} decode: {section['decode']}", flush=True)
        result[dtype] = section
    args.out.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
