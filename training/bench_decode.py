"""Decode latency of candidate llama shapes with mlx-lm on this CPU (random init, fp32).

Run with OpenBLAS preloaded on Linux:
  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3 python training/bench_decode.py
"""
from __future__ import annotations

import argparse
import json
import time

import mlx.core as mx
from mlx_lm.models import llama
from mlx_lm.models.cache import make_prompt_cache

SHAPES = {
    # name: (hidden, layers, heads, kv_heads, intermediate, vocab)
    "d256-l6": (256, 6, 4, 4, 768, 8192),
    "d256-l4": (256, 4, 4, 4, 768, 8192),
    "d256-l4-kv2": (256, 4, 4, 2, 768, 8192),
    "d320-l4": (320, 4, 5, 5, 896, 8192),
    "d288-l5": (288, 5, 4, 4, 768, 8192),
    "d256-l5": (256, 5, 4, 4, 768, 8192),
    "d384-l3": (384, 3, 6, 6, 1024, 8192),
    "d256-l4-v12k": (256, 4, 4, 4, 768, 12288),
    "d192-l4": (192, 4, 3, 3, 512, 8192),
    "d256-l6-kv1": (256, 6, 4, 1, 768, 8192),
    "d192-l6": (192, 6, 3, 3, 512, 8192),
    "d320-l4-kv1": (320, 4, 5, 1, 896, 8192),
    "d384-l4-kv1": (384, 4, 6, 1, 1024, 8192),
    "d384-l3-kv1": (384, 3, 6, 1, 1024, 8192),
    "d512-l3-kv1": (512, 3, 8, 1, 1408, 8192),
    "d256-l8": (256, 8, 4, 4, 768, 8192),
    "d320-l6": (320, 6, 5, 5, 896, 8192),
    "d384-l4": (384, 4, 6, 6, 1024, 8192),
    "d384-l6": (384, 6, 6, 6, 1024, 8192),
    "d384-l6-v16k": (384, 6, 6, 6, 1024, 16384),
    "d512-l4": (512, 4, 8, 8, 1408, 8192),
    "d448-l6": (448, 6, 7, 7, 1216, 8192),
    "d512-l2": (512, 2, 8, 8, 1408, 8192),
    "d448-l3": (448, 3, 7, 7, 1216, 8192),
    "d448-l2": (448, 2, 7, 7, 1216, 8192),
    "d640-l2": (640, 2, 10, 10, 1664, 8192),
    "d512-l3": (512, 3, 8, 8, 1408, 8192),
    "d448-l4": (448, 4, 7, 7, 1216, 8192),
    "d576-l3": (576, 3, 9, 9, 1536, 8192),
    "d576-l6": (576, 6, 9, 9, 1536, 8192),
    "d640-l6": (
        640,
        6,
        10,
        10,
        1728,
        8192,
    ),  # pause tier: 35.0M, 17.5 ms/token on the 2-core CPU under load 2.7 (2026-12-03)
}


def make_args(hidden: int, layers: int, heads: int, kv: int, inter: int, vocab: int) -> llama.ModelArgs:
    return llama.ModelArgs(
        model_type="llama", hidden_size=hidden, num_hidden_layers=layers, intermediate_size=inter,
        num_attention_heads=heads, num_key_value_heads=kv, rms_norm_eps=1e-5, vocab_size=vocab,
        tie_word_embeddings=True, rope_theta=10000.0, max_position_embeddings=4096,
    )


def bench(model: llama.Model, prompt_len: int = 1000, steps: int = 64) -> float:
    cache = make_prompt_cache(model)
    prompt = mx.random.randint(0, model.args.vocab_size, (1, prompt_len))
    for i in range(0, prompt_len, 256):
        mx.eval(model(prompt[:, i:i + 256], cache=cache)[:, -1])
    tok = mx.array([[1]])
    for _ in range(8):  # warm-up
        tok = mx.argmax(model(tok, cache=cache)[:, -1], axis=-1, keepdims=True)
        mx.eval(tok)
    t0 = time.perf_counter()
    for _ in range(steps):
        tok = mx.argmax(model(tok, cache=cache)[:, -1], axis=-1, keepdims=True)
        mx.eval(tok)
    return (time.perf_counter() - t0) / steps * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES))
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    mx.random.seed(0)
    for name in args.shapes:
        model = llama.Model(make_args(*SHAPES[name]))
        mx.eval(model.parameters())
        n = sum(v.size for _, v in __import__("mlx.utils").utils.tree_flatten(model.parameters()))
        ms = sorted(bench(model) for _ in range(args.repeats))
        print(
            json.dumps(
                {
                    "shape": name,
                    "params_M": round(n / 1e6, 2),
                    "ms_per_token_median": round(ms[len(ms) // 2], 2),
                    "ms_min": round(ms[0], 2),
                    "ms_all": [round(x, 2) for x in ms],
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
