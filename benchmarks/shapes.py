"""Decode ms/token and prefill tokens/s per model shape and dtype, next to the memory-bandwidth floor.

    python -m benchmarks.shapes [--model DIR] [--quick]
Shapes: the default model (its real weights) and random-initialised llama models with the shapes of
Qwen2.5-Coder-0.5B and -1.5B (hidden/layers/heads/kv heads/intermediate/vocab from their config.json; llama
blocks, so no q/k/v bias). Dtypes: fp32, bf16, 4-bit (mlx `nn.quantize`, group 64). Each (shape, dtype) runs in
its own subprocess with a time limit, so a slow dtype cannot stall the run and memory is returned.

A decode step reads every weight once (tied embeddings: the embedding matrix is the output head), so the
floor is weight bytes / memory read bandwidth; bandwidth is measured here with a large-array sum.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import best_ms, named_parameters

ROOT = Path(__file__).resolve().parent.parent

# From the models' config.json (Qwen/Qwen2.5-Coder-0.5B, Qwen/Qwen2.5-Coder-1.5B); all tie embeddings.
QWEN_SHAPES: dict[str, dict[str, Any]] = {
    "qwen2.5-coder-0.5b-shape": {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
                                 "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936},
    "qwen2.5-coder-1.5b-shape": {"hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12,
                                 "num_key_value_heads": 2, "intermediate_size": 8960, "vocab_size": 151936},
}
COMMON = {"model_type": "llama", "rms_norm_eps": 1e-6, "rope_theta": 1e6, "tie_word_embeddings": True,
          "max_position_embeddings": 32768}
DTYPES = ("fp32", "bf16", "4bit")


def measure_bandwidth(mb: int = 512, reps: int = 5) -> dict[str, float]:
    """Memory read bandwidth (GB/s): best of `reps` passes over a large fp32 array, as a sum (numpy, MLX)
    and as a matrix-vector product (numpy's BLAS; the access pattern of a decode step). `gbs` is the best."""
    import mlx.core as mx
    import numpy as np

    n = mb * 2**20 // 4
    a = np.ones(n, dtype=np.float32)
    m, x = a.reshape(-1, 4096), np.ones(4096, dtype=np.float32)
    b = mx.ones((n,), dtype=mx.float32)
    mx.eval(b)
    best = {
        "numpy_sum": min(_timed(lambda: a.sum()) for _ in range(reps)),
        "numpy_gemv": min(_timed(lambda: m @ x) for _ in range(reps)),
        "mlx_sum": min(_timed(lambda: mx.eval(mx.sum(b))) for _ in range(reps)),
    }
    out: dict[str, Any] = {f"{k}_gbs": round(n * 4 / v / 1e9, 2) for k, v in best.items()}
    out["array_mb"] = mb
    out["gbs"] = max(v for k, v in out.items() if k.endswith("_gbs"))
    # Weights smaller than the last-level cache stay there between decode steps: measure that bandwidth too.
    llc = last_level_cache_bytes()
    small_n = min(n, (llc // 8 if llc else 16 * 2**20) // 4) // 4096 * 4096
    sm = a[:small_n].reshape(-1, 4096)
    out["cache_resident_mb"] = round(small_n * 4 / 2**20, 1)
    out["cache_resident_gbs"] = round(small_n * 4 / min(_timed(lambda: sm @ x) for _ in range(reps * 4)) / 1e9, 2)
    out["llc_mb"] = round(llc / 2**20) if llc else None
    return out


def last_level_cache_bytes() -> int | None:
    """Size of the CPU's last-level cache (Linux sysfs), or None."""
    try:
        caches = sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"))
        size = (caches[-1] / "size").read_text().strip()
        mult = {"K": 2**10, "M": 2**20, "G": 2**30}.get(size[-1], 1)
        return int(size.rstrip("KMG")) * mult
    except (OSError, ValueError, IndexError):
        return None


def _timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _build(spec: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The model for a worker spec: real weights from `model_dir`, else random init from `config`."""
    import mlx.core as mx
    from mlx import nn
    from mlx_lm.models import llama

    if spec.get("model_dir"):
        from mlx_lm.utils import load_model

        model, config = load_model(Path(spec["model_dir"]), lazy=False)
    else:
        from mlx.utils import tree_map

        config = {**COMMON, **spec["config"]}
        model = llama.Model(llama.ModelArgs.from_dict(config))  # its own init stays lazy, never computed
        # Generating ~10^9 random numbers on 2 cores takes minutes: tile one random block instead.
        mx.random.seed(0)
        block = mx.random.normal((1 << 20,)) * 0.02
        mx.eval(block)

        def fill(p: mx.array) -> mx.array:
            if p.ndim == 1:
                return mx.ones(p.shape, dtype=mx.float32)  # norm weights
            reps = -(-p.size // block.size)
            return mx.tile(block, (reps,))[: p.size].reshape(p.shape)

        model.update(tree_map(fill, model.parameters()))
    dtype = spec["dtype"]
    if dtype == "bf16":
        model.set_dtype(mx.bfloat16)
    else:
        model.set_dtype(mx.float32)
    mx.eval(model.parameters())
    config["_params"] = sum(v.size for _, v in named_parameters(model))
    if dtype == "4bit":
        nn.quantize(model, group_size=64, bits=4)
        mx.eval(model.parameters())
    return model, config


def worker(spec: dict[str, Any]) -> dict[str, Any]:
    """One shape/dtype: weight bytes, prefill tokens/s, decode ms/token at each context length."""
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    t0 = time.perf_counter()
    model, config = _build(spec)
    build_s = time.perf_counter() - t0
    params = named_parameters(model)
    weight_bytes = sum(v.nbytes for _, v in params)
    n_params = config.pop("_params")
    vocab = int(config["vocab_size"])
    tied = bool(config.get("tie_word_embeddings", True))
    embed_bytes = sum(v.nbytes for k, v in params if "embed_tokens" in k)
    # Untied: a decode step reads one embedding row, not the table.
    read_bytes = weight_bytes if tied else weight_bytes - embed_bytes
    rng = [(i * 7919) % (vocab - 10) + 5 for i in range(4096)]
    out: dict[str, Any] = {"params": n_params, "weight_bytes": weight_bytes, "decode_read_bytes": read_bytes,
                           "build_s": round(build_s, 2)}
    p = spec["prefill_tokens"]
    # Warm-up: small shapes of both calls (page in the weights, first-call costs).
    cache = make_prompt_cache(model)
    mx.eval(model(mx.array(rng[:8])[None], cache=cache))
    mx.eval(model(mx.array(rng[8:9])[None], cache=cache))
    cache = make_prompt_cache(model)
    t = time.perf_counter()
    mx.eval(model(mx.array(rng[:p])[None], cache=cache))
    prefill_s = time.perf_counter() - t
    out["prefill_tokens"] = p
    out["prefill_tokens_per_s"] = round(p / prefill_s, 1)
    out["decode"] = []
    prefilled = cache
    for ctx in spec["contexts"]:
        cache = make_prompt_cache(model)
        if ctx == p:  # decode straight after the timed prefill (slow dtypes cannot afford another fill)
            cache, prefilled = prefilled, cache
        for s in range(cache[0].offset, ctx, 512):
            mx.eval(model(mx.array(rng[s : min(ctx, s + 512)])[None], cache=cache), [c.state for c in cache])
        steps = []
        tok = mx.array([[rng[ctx % len(rng)]]])
        for _ in range(spec["decode_tokens"]):
            t = time.perf_counter()
            logits = model(tok, cache=cache)
            tok = mx.argmax(logits[:, -1, :], axis=-1, keepdims=True)
            mx.eval(tok)
            steps.append((time.perf_counter() - t) * 1000)
        steps.sort()
        out["decode"].append({"context": ctx, "tokens": len(steps), "ms_per_token": round(steps[len(steps) // 2], 3),
                              "min_ms": round(steps[0], 3)})
    return out


def decode_breakdown(model_dir: str, contexts: tuple[int, ...] = (64, 1024), reps: int = 50) -> dict[str, Any]:
    """What one fp32 decode step of the model costs, op by op, each timed alone (with its own eval).

    Projections are (1 x in) @ (in x out) matmuls of the real weights; attention is MLX's fused SDPA on a
    KV cache of `context` tokens (mlx-lm's step slices the cache) and, for laya's step, over the whole
    preallocated block with its offset mask; `eval_overhead` is an eval of a trivial op. The sum of the parts
    next to the measured steps (mlx-lm's module call; laya's compiled step, k=1 and k=5 branches) shows how
    much of a step is graph building / dispatch rather than arithmetic.
    """
    import mlx.core as mx
    from mlx_lm.models.cache import make_prompt_cache

    from laya_lsp.engine.caches.prompt_caches import DocumentCache
    from laya_lsp.engine.decoding.adapter import StepModel, decode_model
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked
    from laya_lsp.engine.decoding.step import BLOCK
    from laya_lsp.engine.loading.model import load_model as load_laya

    lm = load_laya(model_dir)
    model, config = lm.model, lm.config
    hidden, layers = int(config["hidden_size"]), int(config["num_hidden_layers"])
    heads = int(config["num_attention_heads"])
    kv = int(config.get("num_key_value_heads", heads))
    head_dim = int(config.get("head_dim") or hidden // heads)
    dm = decode_model(model)

    def timed(fn: Any) -> float:
        return best_ms(fn, reps)

    x = mx.random.normal((1, 1, hidden))
    layer = model.model.layers[0]
    att, mlp = layer.self_attn, layer.mlp
    mx.eval(x)
    ms: dict[str, float] = {"eval_overhead": timed(lambda: x + 1)}
    ms["q,k,v,o projections"] = layers * sum(timed(lambda m=m: m(x)) for m in (att.q_proj, att.k_proj, att.v_proj))
    ms["q,k,v,o projections"] += layers * timed(lambda: att.o_proj(x))
    h = mx.random.normal((1, 1, int(config["intermediate_size"])))
    mx.eval(h)
    ms["mlp gate,up,down"] = layers * (timed(lambda: mlp.gate_proj(x)) + timed(lambda: mlp.up_proj(x))
                                       + timed(lambda: mlp.down_proj(h)))
    ms["output head"] = timed(lambda: model.model.embed_tokens.as_linear(x)
                              if config.get("tie_word_embeddings", True) else model.lm_head(x))
    ms["one layer (module call)"] = timed(lambda: layer(x, None, None))
    out: dict[str, Any] = {"parts_ms": {k: round(v, 3) for k, v in ms.items()}, "by_context": []}
    weights = sum(v for k, v in ms.items() if k not in ("eval_overhead", "one layer (module call)"))
    for ctx in contexts:
        q = mx.random.normal((1, heads, 1, head_dim))
        k = mx.random.normal((1, kv, ctx, head_dim))
        v = mx.random.normal((1, kv, ctx, head_dim))
        cap = -(-(ctx + 64) // BLOCK) * BLOCK  # laya's block: the prompt, a k=1 answer, a tail's padding
        kb, vb = mx.random.normal((1, kv, cap, head_dim)), mx.random.normal((1, kv, cap, head_dim))
        mask = mx.arange(cap)[None] <= ctx
        mx.eval(q, k, v, kb, vb, mask)
        sdpa = layers * timed(lambda q=q, k=k, v=v: mx.fast.scaled_dot_product_attention(q, k, v,
                                                                                         scale=head_dim**-0.5))
        sdpa_block = layers * timed(lambda q=q, kb=kb, vb=vb, m=mask: mx.fast.scaled_dot_product_attention(
            q, kb, vb, scale=head_dim**-0.5, mask=m))
        cache = make_prompt_cache(model)
        ids = [(i * 7919) % (int(config["vocab_size"]) - 10) + 5 for i in range(ctx)]
        for s in range(0, ctx, 512):
            mx.eval(model(mx.array(ids[s : s + 512])[None], cache=cache))
        tok = mx.array([[7]])
        steps = []
        for _ in range(reps // 2):
            t = time.perf_counter()
            mx.eval(model(tok, cache=cache))
            steps.append((time.perf_counter() - t) * 1000)
        steps.sort()
        row = {"context": ctx, "step_ms": round(steps[len(steps) // 2], 3), "step_min_ms": round(steps[0], 3),
               "attention_sdpa_ms": round(sdpa, 3), "sum_of_parts_ms": round(weights + sdpa, 3)}
        if isinstance(dm, StepModel):
            doc = DocumentCache(make_prompt_cache(model))
            logits = prefill_chunked(model, doc, ids, 256, CancelToken()).logits
            for branches in (1, 5):
                row[f"laya_step_k{branches}_ms"] = round(_laya_step_ms(dm, doc, logits, branches, reps), 3)
            row["laya_attention_block_ms"] = round(sdpa_block, 3)
            row["laya_block_columns"] = cap
            row["laya_sum_of_parts_ms"] = round(weights + sdpa_block, 3)
        out["by_context"].append(row)
    return out


def _laya_step_ms(dm: Any, doc: Any, logits: Any, k: int, reps: int) -> float:
    """Median ms of laya's compiled branch step (decode core included) on a document's cache."""
    from laya_lsp.engine.decoding.decode import CancelToken, DecodeSettings, branch_steps, first_tokens

    times: list[float] = []
    for _ in range(max(1, reps // 10)):
        s = DecodeSettings(k=k, max_tokens=12)
        coro = branch_steps(dm, doc, *first_tokens(logits, s), s, CancelToken())
        work = next(coro)
        try:
            while True:
                t = time.perf_counter()
                work = coro.send(dm.forward([work])[0])
                times.append((time.perf_counter() - t) * 1000)
        except StopIteration:
            pass
    times.sort()
    return times[len(times) // 2]


def run_one(spec: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.shapes", "--worker", json.dumps(spec)]
    t = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout_s:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:300]}
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    res["wall_s"] = round(time.perf_counter() - t, 1)
    return res


def plan(model_dir: str, quick: bool) -> list[dict[str, Any]]:
    """Which (shape, dtype) runs and how long each is (the big shapes stay short)."""
    specs: list[dict[str, Any]] = []
    for dtype in DTYPES:
        specs.append({"name": "default", "model_dir": model_dir, "dtype": dtype,
                      "prefill_tokens": 128 if quick else 512, "contexts": [64] if quick else [64, 1024],
                      "decode_tokens": 8 if quick else 24, "timeout": 120})
    # Priority order: every shape in fp32 first, then the slow dtypes (cut first when time runs out).
    for dtype in DTYPES:
        for name, cfg in QWEN_SHAPES.items():
            big = "1.5b" in name
            # bf16 matmuls have no BLAS path on MLX's CPU backend: keep its prefill tiny.
            p = 16 if dtype == "fp32" else 8
            specs.append({"name": name, "config": cfg, "dtype": dtype, "prefill_tokens": p, "contexts": [p],
                          "decode_tokens": 3, "timeout": 150 if big else 100})
    if quick:  # the default model in all dtypes, the big shapes in fp32 only
        specs = [s for s in specs if s["name"] == "default" or s["dtype"] == "fp32"]
    return specs


def run_shapes(model_dir: str, quick: bool = False, log: Any = print, budget_s: float = 300.0) -> dict[str, Any]:
    """All planned runs within `budget_s` seconds; the ones that no longer fit are reported as skipped."""
    t0 = time.perf_counter()
    bw = measure_bandwidth(256 if quick else 512)
    log(f"memory read bandwidth: {bw['gbs']} GB/s ({bw})")
    breakdown = run_one({"breakdown": True, "model_dir": model_dir}, 90)
    log(f"default model fp32 decode step, op by op: {breakdown}")
    rows = []
    for spec in plan(model_dir, quick):
        left = budget_s - (time.perf_counter() - t0)
        timeout = min(spec.pop("timeout"), left)
        res: dict[str, Any] = run_one(spec, timeout) if timeout > 15 else {"error": "skipped: shapes time budget spent"}
        row = {"shape": spec["name"], "dtype": spec["dtype"], **res}
        if "decode_read_bytes" in res:
            row["floor_ms_per_token"] = round(res["decode_read_bytes"] / (bw["gbs"] * 1e9) * 1000, 3)
            fits = bw.get("llc_mb") and res["decode_read_bytes"] < bw["llc_mb"] * 2**20 / 2
            if fits and bw["cache_resident_gbs"] > bw["gbs"]:  # (a VM may report a host cache it cannot use)
                # Fits in the last-level cache: steps re-read it from there, not from memory.
                row["cache_floor_ms_per_token"] = round(res["decode_read_bytes"] / (bw["cache_resident_gbs"] * 1e9)
                                                        * 1000, 3)
            d0 = res["decode"][0]
            row["ms_per_token"] = d0["ms_per_token"]
            row["x_floor"] = round(d0["ms_per_token"] / max(row["floor_ms_per_token"], 1e-9), 1)
            log(f"{spec['name']:<26} {spec['dtype']:<5} {res['params'] / 1e6:8.1f}M  "
                f"{res['weight_bytes'] / 2**20:8.1f} MiB  prefill {res['prefill_tokens_per_s']:8.1f} tok/s  "
                + "  ".join(f"decode@{d['context']} {d['ms_per_token']:.2f} ms" for d in res["decode"])
                + f"  floor {row['floor_ms_per_token']:.2f} ms ({row['x_floor']}x)")
        else:
            log(f"{spec['name']:<26} {spec['dtype']:<5} {res.get('error')}")
        rows.append(row)
    return {"bandwidth": bw, "decode_breakdown": breakdown, "rows": rows}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--model", help="model directory (default: the embedded model)")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    if args.worker:
        spec = json.loads(args.worker)
        print(json.dumps(decode_breakdown(spec["model_dir"]) if spec.get("breakdown") else worker(spec)))
        return 0
    from laya_lsp.bootstrap import use_fast_blas

    use_fast_blas()  # before laya_lsp.engine imports MLX
    from laya_lsp.engine import resolve_model

    print(json.dumps(run_shapes(str(resolve_model(args.model)), args.quick), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
