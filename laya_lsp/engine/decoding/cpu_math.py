"""Attention and the gated MLP for MLX's CPU backend, without its slow exp.

On a CPU, MLX computes `exp` (and `sigmoid`) one element at a time: ~16-27 ms per million elements on this machine
against ~0.14 ms for an add, and ~2.8 ms for the same exp built from adds, multiplies and a shift inside a compiled
graph (`fast_exp`; docs/benchmarks.md, "Every first answer, part 3"). The step's attention runs a softmax over every
cache column of every row, and the MLP a SiLU over its 1,024-wide hidden layer: at a 1,000-token context these
exps cost more than the step's matrix products. The step (step.py) uses these on the CPU and MLX's fused
`scaled_dot_product_attention` and mlx-lm's MLP elsewhere. Same results to float32 rounding (`fast_exp` is within
a few ulps of `mx.exp`).
"""

from __future__ import annotations

import math
from typing import Any

import mlx.core as mx

_LOG2E = 1.4426950408889634
# 2**f on [-0.5, 0.5], highest power first (a degree-6 fit; relative error below float32's rounding there)
_POW2 = (1.5353362e-4, 1.3398874e-3, 9.6181291e-3, 5.5504109e-2, 2.4022651e-1, 6.9314718e-1, 1.0)


def fast_exp(x: mx.array) -> mx.array:
    """exp(x) as 2**i * 2**f (i an integer, |f| <= 0.5): a polynomial for 2**f, the exponent bits for 2**i.
    Below exp(-87) it returns ~1e-38 rather than 0, above exp(88) float32's largest range rather than inf."""
    y = mx.clip(x * _LOG2E, -126.0, 127.0)
    i = mx.round(y)
    f = y - i
    p = mx.full(f.shape, _POW2[0], dtype=f.dtype)
    for c in _POW2[1:]:
        p = p * f + c
    return p * mx.view(mx.left_shift(i.astype(mx.int32) + 127, 23), mx.float32).astype(x.dtype)


def attention(q: mx.array, keys: mx.array, values: mx.array, scale: float, mask: mx.array) -> mx.array:
    """`mx.fast.scaled_dot_product_attention(q, keys, values, scale=scale, mask=mask)` for a boolean (rows, columns)
    mask: q (1, heads, rows, dim), keys and values (1, kv_heads, columns, dim), grouped query heads allowed."""
    _, heads, rows, dim = q.shape
    kv_heads = keys.shape[1]
    group = heads // kv_heads
    qg = q.reshape(1, kv_heads, group * rows, dim)  # head h reads kv head h // group
    scores = (qg @ keys.transpose(0, 1, 3, 2)).reshape(1, kv_heads, group, rows, -1) * scale
    seen = mask[None, None, None]
    top = mx.max(mx.where(seen, scores, -mx.inf), axis=-1, keepdims=True)
    weights = mx.where(seen, fast_exp(scores - top), 0.0)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights.reshape(1, kv_heads, group * rows, -1) @ values
    return out.reshape(1, heads, rows, dim)


def gated_mlp(mlp: Any, x: mx.array) -> mx.array:
    """A llama-family MLP (`down(silu(gate(x)) * up(x))`, mlx-lm's `MLP`) with its SiLU from `fast_exp`."""
    gate = mlp.gate_proj(x)
    return mlp.down_proj(gate / (1.0 + fast_exp(-gate)) * mlp.up_proj(x))


class Rotary:
    """Rotary embeddings for one step's rows, computed once and applied to every layer's queries and keys (mlx-lm's
    `nn.RoPE`, non-traditional): MLX's CPU `fast.rope` with per-row positions falls back to ~12 operations per call,
    twice per layer; a step's operations each cost a dispatch on the CPU stream, far more than their arithmetic at
    a few rows. Same values as `nn.RoPE` (its fallback's frequencies, computed the same way)."""

    def __init__(self, rope: Any, positions: mx.array) -> None:
        self.dims = rope.dims
        freqs = mx.exp(-mx.arange(0, self.dims, 2, dtype=mx.float32) * (math.log(rope.base) / self.dims))
        theta = (positions.astype(mx.float32) * rope.scale)[:, None] * freqs[None]  # (rows, dims / 2)
        self.cos, self.sin = mx.cos(theta)[:, None, None, :], mx.sin(theta)[:, None, None, :]

    @staticmethod
    def serves(ropes: list[Any]) -> bool:
        """Whether every layer's rope is the same plain non-traditional `nn.RoPE` (others keep their own call)."""
        from mlx import nn

        first = ropes[0]
        return all(type(r) is nn.RoPE and not r.traditional and (r.dims, r.base, r.scale)
                   == (first.dims, first.base, first.scale) for r in ropes)

    def __call__(self, x: mx.array) -> mx.array:
        """x (rows, heads, 1, head_dim) rotated at each row's position."""
        half = self.dims // 2
        x1, x2 = x[..., :half], x[..., half : self.dims]
        parts = [x1 * self.cos - x2 * self.sin, x1 * self.sin + x2 * self.cos]
        if self.dims < x.shape[-1]:
            parts.append(x[..., self.dims :])
        return mx.concatenate(parts, axis=-1)


def has_gated_mlp(layer: Any) -> bool:
    """Whether the layer's MLP is the gated SiLU one `gated_mlp` computes."""
    mlp = getattr(layer, "mlp", None)
    return all(hasattr(mlp, n) for n in ("gate_proj", "up_proj", "down_proj"))


def prefill_body(inner: Any, tokens: list[int], caches: list[Any]) -> None:
    """A llama-family model body (`model.model`) over `tokens` into its mlx-lm caches (`update_and_fetch`),
    evaluated, with `attention` and `gated_mlp`: the prompt chunks' path on a CPU. Only the caches are wanted, so
    the last layer stops at its keys and values (its attention and MLP feed nothing)."""
    h = inner.embed_tokens(mx.array(tokens)[None])
    rows, last = len(tokens), len(inner.layers) - 1
    for li, layer in enumerate(inner.layers):
        attn, cache = layer.self_attn, caches[li]
        x = layer.input_layernorm(h)
        q = attn.q_proj(x).reshape(1, rows, attn.n_heads, -1).transpose(0, 2, 1, 3)
        k = attn.k_proj(x).reshape(1, rows, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
        v = attn.v_proj(x).reshape(1, rows, attn.n_kv_heads, -1).transpose(0, 2, 1, 3)
        start = cache.offset
        keys, values = cache.update_and_fetch(attn.rope(k, offset=start), v)
        if li == last:
            break
        causal = mx.arange(start + rows)[None] <= (mx.arange(rows) + start)[:, None]
        o = attention(attn.rope(q, offset=start), keys, values, attn.scale, causal)
        h = h + attn.o_proj(o.transpose(0, 2, 1, 3).reshape(1, rows, -1))
        h = h + gated_mlp(layer.mlp, layer.post_attention_layernorm(h))
    mx.eval([c.state for c in caches])
