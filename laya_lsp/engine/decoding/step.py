"""A compiled, fixed-shape forward step for llama-family models over rows of tokens in block-preallocated KV caches.

A step computes rows: each row is one token at one position, in one document's cache. Rows of one document form a
group; every group writes its rows' keys/values at consecutive columns of that document's cache and attends with an
offset mask over the whole preallocated block (never a sliced cache), so shapes change only when a cache grows by a
block. The same step serves the last few prompt tokens of a keystroke (rows at consecutive positions), k branches
that share the document's prompt (rows at one position, each seeing the prompt once plus its own earlier tokens) and
several documents at once (one group each; the weights are read once for all rows).

mlx-lm's own `KVCache` is the cache: `keys`/`values` are its preallocated arrays and `offset` stays the length of
the prompt it holds, so everything else (chunked prefill, trimming, decisions' scoring) keeps using mlx-lm's code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import mlx.core as mx
from mlx_lm.models.cache import KVCache

from .cpu_math import Rotary, attention, gated_mlp, has_gated_mlp

# mlx-lm architectures whose decoder block this step reproduces exactly: x + attn(norm(x)), then h + mlp(norm(h)),
# with q/k/v/o projections, rotary embeddings and a gated MLP (llama.py and qwen2.py read the same top to bottom).
KNOWN_ARCHITECTURES = frozenset({"mlx_lm.models.llama", "mlx_lm.models.qwen2"})

# Caches grow by whole blocks (mlx-lm's KVCache step), so a document's step shape changes only every BLOCK tokens.
BLOCK = KVCache.step
# What selects a trace of the step: (rows per group, logits kept, cache columns per group).
Shape = tuple[tuple[int, ...], int, tuple[int, ...]]


def supports(model: Any) -> bool:
    """True when `model` is a plain (non-sliding-window) llama-family mlx-lm model this step reproduces."""
    if type(model).__module__ not in KNOWN_ARCHITECTURES:
        return False
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if not layers:
        return False
    first = layers[0]
    needed = (
        hasattr(first, "self_attn") and hasattr(first, "mlp") and hasattr(first, "input_layernorm")
        and all(hasattr(first.self_attn, n) for n in ("q_proj", "k_proj", "v_proj", "o_proj", "rope", "n_heads"))
    )
    return needed and not any(getattr(layer, "use_sliding", False) for layer in layers)


@dataclass
class RowGroup:
    """Rows of one document computed in a step.

    Row r writes its key/value at column `columns[r]` and sees every column before `ends[r]`, plus, from column
    `tail` on, every `stride`-th column of its own `phase` up to its own column (a branch's earlier tokens when
    k branches write their tokens interleaved after the shared prompt). A phase of -1 sees no tail.
    """

    layers: list[KVCache]
    tokens: mx.array  # (R,) int32; may still be lazy (the tokens sampled by the step before)
    columns: list[int]  # where each row's key/value goes (a verified draft: a branch's next columns)
    positions: list[int]  # rotary position of each row
    ends: list[int]
    phases: list[int]
    tail: int
    stride: int
    keep: list[int]  # rows whose logits are wanted, in order

    @property
    def rows(self) -> int:
        return len(self.positions)


class CompiledStep:
    """The step for one loaded model: `run(groups)` returns each group's logits and updates the groups' caches.

    One compiled function per group layout (rows per group, logits kept); mx.compile traces it again when an
    input shape changes, i.e. when a cache grows by a block. `traced` records every new shape (compiled: a trace;
    on a GPU, compiled or not, also new attention plans and perhaps kernel compiles: a stall), so tests and
    `laya/stats` can see them.

    With a fixed `capacity` (set_capacity; the GPU default) every cache is allocated at that many columns, so a
    document's shapes never change while typing; and once `freeze()` is called, several groups whose layout was
    not traced run one group at a time (traced shapes) instead of tracing their combination on a request.
    """

    def __init__(self, model: Any, compiled: bool = True) -> None:
        if not supports(model):
            raise ValueError(f"{type(model).__module__} is not a llama-family model this step knows")
        self.model = model
        self.inner = model.model
        attn = self.inner.layers[0].self_attn
        self.heads, self.kv_heads = attn.n_heads, attn.n_kv_heads
        # (qwen2's attention has no head_dim attribute; a quantized weight's rows are still the output features)
        self.head_dim = getattr(attn, "head_dim", None) or attn.q_proj.weight.shape[0] // self.heads
        self.scale = attn.scale
        self.dtype = self.inner.norm.weight.dtype
        self.compiled = compiled
        # MLX's CPU exp is elementwise-slow: there the softmax and the SiLU are built from cheap ops (cpu_math.py)
        self.cpu_math = mx.default_device() == mx.cpu and has_gated_mlp(self.inner.layers[0])
        # (on a CPU, one step's rotary tables serve every layer: Rotary)
        self.rotary = self.cpu_math and Rotary.serves([layer.self_attn.rope for layer in self.inner.layers])
        self._fns: dict[tuple[tuple[int, ...], int], Callable[..., Any]] = {}
        self.capacity = 0  # columns every cache is allocated with (0: grow by blocks as needed)
        self.frozen = False
        self.warm_traces = 0  # traces made by warm-up (mark_warm)
        self.traced: list[Shape] = []  # one entry per trace, in order
        self._seen: set[Shape] = set()

    def set_capacity(self, columns: int) -> None:
        """Allocate every cache with at least `columns` columns (whole blocks) from now on."""
        self.capacity = -(-columns // BLOCK) * BLOCK

    def freeze(self) -> None:
        """From now on, run an untraced combination of several groups one group at a time (see the class)."""
        self.frozen = True

    def report(self) -> dict[str, Any]:
        """New shapes so far (warm-up's included; one after warm-up is a request that waited for it), those of
        warm-up, whether shapes are frozen, and the last few."""
        return {"traces": len(self.traced), "warmUpTraces": self.warm_traces, "fixed": self.frozen,
                "last": [list(s) for s in self.traced[-8:]]}

    def mark_warm(self) -> None:
        """Warm-up is over: traces from now on were made for requests."""
        self.warm_traces = len(self.traced)

    @staticmethod
    def shape(groups: Sequence[RowGroup]) -> Shape:
        """What selects a trace: rows per group, logits kept, and each group's cache columns."""
        return (tuple(g.rows for g in groups), sum(len(g.keep) for g in groups),
                tuple(g.layers[0].keys.shape[2] for g in groups))

    def reserve(self, layers: list[KVCache], columns: int) -> None:
        """Make every cache hold at least `columns` columns in whole blocks, keeping the prompt it holds.

        Allocates an empty cache; brings a cache that mlx-lm grew (or a scoring copy cut) to an odd size back
        to whole blocks. Columns past `offset` are scratch (earlier branches' tokens) and are not copied.
        """
        cap = max(self.capacity, -(-columns // BLOCK) * BLOCK)
        columns = max(columns, self.capacity)
        for c in layers:
            have = 0 if c.keys is None else c.keys.shape[2]
            if have >= columns and have % BLOCK == 0:
                continue
            kept = c.offset if c.keys is not None else 0
            pad = mx.zeros((1, self.kv_heads, cap - kept, self.head_dim), self.dtype)
            if kept == 0:
                c.keys, c.values = pad, mx.zeros_like(pad)
            else:
                c.keys = mx.concatenate([c.keys[..., :kept, :], pad], axis=2)
                c.values = mx.concatenate([c.values[..., :kept, :], pad], axis=2)

    def run(self, groups: Sequence[RowGroup]) -> list[mx.array]:
        """Logits (lazy) of each group's kept rows, shape (len(keep), vocab); caches get the rows' keys/values."""
        shape = self.shape(groups)
        if shape not in self._seen:
            if self.frozen and len(groups) > 1:
                return [self.run([g])[0] for g in groups]
            self._seen.add(shape)
            self.traced.append(shape)
        layout = tuple(g.rows for g in groups)
        kept = sum(len(g.keep) for g in groups)
        fn = self._fns.get((layout, kept))
        if fn is None:
            fn = self._fns[(layout, kept)] = mx.compile(self._forward) if self.compiled else self._forward
        i32 = mx.int32
        tokens = mx.concatenate([g.tokens for g in groups]) if len(groups) > 1 else groups[0].tokens
        positions = mx.array([p for g in groups for p in g.positions], dtype=i32)
        offsets, keep = 0, []
        for g in groups:
            keep += [offsets + r for r in g.keep]
            offsets += g.rows
        masks = [
            (mx.array(g.columns, dtype=i32), mx.array(g.ends, dtype=i32), mx.array(g.phases, dtype=i32),
             mx.array(g.tail, dtype=i32), mx.array(g.stride, dtype=i32))
            for g in groups
        ]
        caches = [([c.keys for c in g.layers], [c.values for c in g.layers]) for g in groups]
        logits, new_caches = fn(tokens.astype(i32), positions, mx.array(keep, dtype=i32), masks, caches)
        out, lo = [], 0
        for g, (keys, values) in zip(groups, new_caches):
            for c, k, v in zip(g.layers, keys, values):
                c.keys, c.values = k, v  # the old arrays are now only in the graph: the update happens in place
            out.append(logits[lo : lo + len(g.keep)])
            lo += len(g.keep)
        return out

    def _forward(self, tokens: mx.array, positions: mx.array, keep: mx.array,
                 masks: Sequence[tuple[mx.array, ...]], caches: list[tuple[list[mx.array], list[mx.array]]]) -> Any:
        """The traced step: embeddings, every layer over all rows, the head over the kept rows."""
        heads, kv_heads, head_dim = self.heads, self.kv_heads, self.head_dim
        sizes = [m[1].shape[0] for m in masks]
        bounds = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
        attend = [self._mask(m, caches[g][0][0].shape[2]) for g, m in enumerate(masks)]
        h = self.inner.embed_tokens(tokens)[None]  # (1, R, hidden)
        rows = h.shape[1]
        new_keys: list[list[mx.array]] = [[] for _ in masks]
        new_values: list[list[mx.array]] = [[] for _ in masks]
        rotary = Rotary(self.inner.layers[0].self_attn.rope, positions) if self.rotary else None
        for li, layer in enumerate(self.inner.layers):
            attn = layer.self_attn
            x = layer.input_layernorm(h)
            # Rows as the batch axis: each gets its own rotary position.
            rope = rotary or (lambda t, a=attn: a.rope(t, offset=positions))
            q = rope(attn.q_proj(x).reshape(rows, heads, 1, head_dim))
            k = rope(attn.k_proj(x).reshape(rows, kv_heads, 1, head_dim))
            v = attn.v_proj(x).reshape(rows, kv_heads, 1, head_dim)
            outs = []
            for g, (lo, hi) in enumerate(pairwise(bounds)):
                at = mx.broadcast_to(masks[g][0][None, None, :, None], (1, kv_heads, hi - lo, head_dim))
                keys = mx.put_along_axis(caches[g][0][li], at, k[lo:hi].transpose(2, 1, 0, 3), axis=2)
                values = mx.put_along_axis(caches[g][1][li], at, v[lo:hi].transpose(2, 1, 0, 3), axis=2)
                new_keys[g].append(keys)
                new_values[g].append(values)
                qg = q[lo:hi].transpose(2, 1, 0, 3)  # (1, heads, rows, head_dim)
                if self.cpu_math:
                    outs.append(attention(qg, keys, values, self.scale, attend[g]))
                else:
                    outs.append(mx.fast.scaled_dot_product_attention(qg, keys, values, scale=self.scale,
                                                                     mask=attend[g]))
            o = outs[0] if len(outs) == 1 else mx.concatenate(outs, axis=2)
            h = h + attn.o_proj(o.transpose(0, 2, 1, 3).reshape(1, rows, heads * head_dim))
            x = layer.post_attention_layernorm(h)
            h = h + (gated_mlp(layer.mlp, x) if self.cpu_math else layer.mlp(x))
        out = self.inner.norm(h[0][keep])
        if hasattr(self.model, "lm_head"):
            logits = self.model.lm_head(out)
        else:
            logits = self.inner.embed_tokens.as_linear(out)
        return logits, list(zip(new_keys, new_values))

    @staticmethod
    def _mask(m: tuple[mx.array, ...], cap: int) -> mx.array:
        """(rows, cap) boolean: the columns each row of a group sees (see RowGroup)."""
        columns, ends, phases, tail, stride = m
        cols = mx.arange(cap)[None]
        own = columns[:, None]
        branch = (cols >= tail) & (cols <= own) & ((cols - tail) % stride == phases[:, None])
        return (cols < ends[:, None]) | branch
