"""Model adapters: how a loaded mlx-lm model computes the work the decode core asks for.

The decode core asks for two kinds of work: `Extend` (the last few prompt tokens of a document, logits of the
last one) and `BranchStep` (one token for each of k branches that continue a document's prompt). `forward`
computes a list of them at once. Two adapters:

- `StepModel` for the llama-family architectures `step.CompiledStep` reproduces: one compiled fixed-shape step
  for the whole list, documents included (their rows share the weights' reads); k branches attend the
  document's prompt in place, never a copy of it.
- `PlainModel` for every other mlx-lm model: the model's own call, one item at a time, branches in a copy of
  the document's cache (k > 1) as mlx-lm's batched generation does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import mlx.core as mx
from mlx_lm.models.cache import KVCache, can_trim_prompt_cache, trim_prompt_cache

from .cache import DocumentCache
from .step import CompiledStep, RowGroup, supports

# Architectures whose Model.__call__ is `head(self.model(inputs, cache))`: for tokens whose logits are not
# needed, running only the backbone skips the vocabulary projection (most of a small model's prefill cost).
_BACKBONE_TYPES = {"llama", "qwen2", "qwen3", "starcoder2", "gemma3_text", "mistral", "phi3", "granite"}

# The longest prompt tail a step computes; longer prompts are prefilled in chunks first. Tails are padded to a
# power of two so a typing session uses a handful of step shapes.
MAX_TAIL_ROWS = 16


@dataclass
class Extend:
    """Append `tokens` (the end of a prompt) to the document's cache; the logits of the last one, shape (vocab,)."""

    doc: DocumentCache
    tokens: list[int]


@dataclass
class Branches:
    """k branches continuing a document's prompt; `steps` tokens of each are in the cache (past the prompt)."""

    doc: DocumentCache
    k: int
    prompt: int  # tokens of the prompt they continue
    steps: int = 0
    copy: list[Any] | None = field(default=None, repr=False)  # PlainModel: the branches' own cache


@dataclass
class BranchStep:
    """Feed each branch its next token (`tokens`, shape (k,), possibly still lazy); logits shape (k, vocab)."""

    branches: Branches
    tokens: mx.array


Work = Extend | BranchStep


class DecodeModel(Protocol):
    """What the decode core needs from a model (see the module docstring)."""

    model: Any
    max_tail_rows: int  # prompt tokens an Extend may carry; longer prompts are prefilled by `prefill_chunk`

    def reserve(self, doc: DocumentCache, columns: int) -> None:
        """Make room in the document's cache for `columns` tokens (prompt plus branches) before work starts."""

    def prefill_chunk(self, doc: DocumentCache, tokens: list[int]) -> None:
        """Compute a chunk of prompt tokens into the document's cache (no logits), evaluated."""

    def forward(self, work: Sequence[Work]) -> list[mx.array]:
        """Logits for each item (lazy); Extend's tokens are in its document's cache afterwards."""

    def open(self, doc: DocumentCache, k: int, max_tokens: int) -> Branches:
        """Start k branches after the document's prompt."""

    def close(self, branches: Branches) -> None:
        """End the branches; the document's cache covers its prompt only again."""


def backbone(model: Any) -> Any | None:
    """The model without its vocabulary head, for the architectures known to be built that way."""
    args = getattr(model, "args", None)
    inner = getattr(model, "model", None)
    if inner is not None and getattr(args, "model_type", None) in _BACKBONE_TYPES:
        return inner
    return None


class _ChunkedPrefill:
    """Prompt chunks through mlx-lm's own model call: the backbone when the head is not needed."""

    model: Any

    def prefill_chunk(self, doc: DocumentCache, tokens: list[int]) -> None:
        body = backbone(self.model)
        out = (body or self.model)(mx.array(tokens)[None], cache=doc.layers)
        mx.eval(out, [c.state for c in doc.layers])
        doc.ids.extend(tokens)


class StepModel(_ChunkedPrefill):
    """Llama-family models through the compiled step: all work of a call in one step (see step.py).

    With fixed shapes (`fix_shapes`, the GPU default) prompt chunks go through the step too, padded to a power of
    two rows like a prompt's tail, instead of through mlx-lm's call, whose every new length and cache size is a
    new attention plan on a GPU: a typing session then meets only shapes that warm-up traced.
    """

    max_tail_rows = MAX_TAIL_ROWS

    def __init__(self, model: Any, compiled: bool = True) -> None:
        self.model = model
        self.step = CompiledStep(model, compiled)
        self.chunk_rows = 0  # prompt chunks through the step, padded up to this many rows (0: mlx-lm's call)

    def fix_shapes(self, capacity: int, chunk: int) -> None:
        """Every cache at `capacity` columns; prompt chunks of up to `chunk` tokens through the step."""
        self.step.set_capacity(capacity + self.max_tail_rows)
        self.chunk_rows = 1 << (max(chunk, self.max_tail_rows) - 1).bit_length()

    def row_sizes(self) -> list[int]:
        """Every row count an Extend (or, with fixed shapes, a prompt chunk) is padded to."""
        top = max(self.max_tail_rows, self.chunk_rows)
        return [1 << i for i in range(top.bit_length())]

    def reserve(self, doc: DocumentCache, columns: int) -> None:
        self.step.reserve(doc.layers, columns + self.max_tail_rows)  # (an Extend's padding rows)

    def prefill_chunk(self, doc: DocumentCache, tokens: list[int]) -> None:
        if not self.chunk_rows:
            return super().prefill_chunk(doc, tokens)
        for lo in range(0, len(tokens), self.chunk_rows):
            logits = self.forward([Extend(doc, tokens[lo : lo + self.chunk_rows])])
            mx.eval(logits, [c.keys for c in doc.layers], [c.values for c in doc.layers])

    def forward(self, work: Sequence[Work]) -> list[mx.array]:
        groups = [self._extend(w) if isinstance(w, Extend) else self._branch(w) for w in work]
        out = self.step.run(groups)
        for w, logits in zip(work, out):
            if isinstance(w, Extend):
                for c in w.doc.layers:
                    c.offset += len(w.tokens)
                w.doc.ids.extend(w.tokens)
            else:
                w.branches.steps += 1
        return [o[0] if isinstance(w, Extend) else o for w, o in zip(work, out)]

    def _extend(self, w: Extend) -> RowGroup:
        n, start = len(w.tokens), w.doc.layers[0].offset
        if n > max(self.max_tail_rows, self.chunk_rows):
            raise ValueError(f"an Extend carries at most {max(self.max_tail_rows, self.chunk_rows)} tokens, not {n}")
        rows = 1 << (n - 1).bit_length()  # padding rows write past the prompt (scratch) and are never kept
        self.step.reserve(w.doc.layers, start + rows)
        cols = list(range(start, start + rows))
        tokens = mx.array(w.tokens + [0] * (rows - n), dtype=mx.int32)
        return RowGroup(w.doc.layers, tokens, start, cols, [c + 1 for c in cols], [-1] * rows, start, 1, [n - 1])

    def _branch(self, w: BranchStep) -> RowGroup:
        b = w.branches
        start = b.prompt + b.steps * b.k
        self.step.reserve(b.doc.layers, start + b.k)
        return RowGroup(b.doc.layers, w.tokens.astype(mx.int32), start, [b.prompt + b.steps] * b.k,
                        [b.prompt] * b.k, list(range(b.k)), b.prompt, b.k, list(range(b.k)))

    def open(self, doc: DocumentCache, k: int, max_tokens: int) -> Branches:
        self.step.reserve(doc.layers, len(doc.ids) + k * max_tokens)
        return Branches(doc, k, len(doc.ids))

    def close(self, branches: Branches) -> None:
        """Nothing to undo: the branches' tokens lie past the prompt, where the next prompt overwrites them."""


class PlainModel(_ChunkedPrefill):
    """Any mlx-lm model through its own call, one item at a time (the reference the compiled step must equal)."""

    max_tail_rows = 1

    def __init__(self, model: Any) -> None:
        self.model = model

    def reserve(self, doc: DocumentCache, columns: int) -> None:
        """mlx-lm's caches grow by themselves."""

    def forward(self, work: Sequence[Work]) -> list[mx.array]:
        out = []
        for w in work:
            if isinstance(w, Extend):
                out.append(self.model(mx.array(w.tokens)[None], cache=w.doc.layers)[0, -1, :])
                w.doc.ids.extend(w.tokens)
            else:
                cache = w.branches.copy if w.branches.copy is not None else w.branches.doc.layers
                out.append(self.model(w.tokens[:, None], cache=cache)[:, -1, :])
                w.branches.steps += 1
        return out

    def open(self, doc: DocumentCache, k: int, max_tokens: int) -> Branches:
        """k == 1 decodes in the document's cache itself (trimmed after); k > 1 in k copies of it."""
        in_place = k == 1 and can_trim_prompt_cache(doc.layers)
        return Branches(doc, k, len(doc.ids), copy=None if in_place else repeat_cache(doc, k))

    def close(self, branches: Branches) -> None:
        if branches.copy is None:
            doc = branches.doc
            trim_prompt_cache(doc.layers, doc.layers[0].size() - len(doc.ids))


def repeat_cache(doc: DocumentCache, k: int) -> list[KVCache]:
    """k copies of the document's cache as one batch (the document's stays intact)."""
    out = []
    for c in doc.layers:
        keys, values = c.keys_and_values() if hasattr(c, "keys_and_values") else c.state[:2]
        b = KVCache()
        b.keys = mx.repeat(keys, k, axis=0)
        b.values = mx.repeat(values, k, axis=0)
        b.offset = keys.shape[2]
        out.append(b)
    return out


# The adapter lives on the model object it serves (a plain attribute: not a parameter, not a child module), so
# it dies with the model and every caller with the same model shares its compiled traces.
_ATTRIBUTE = "_laya_decode_model"


def decode_model(model: Any) -> DecodeModel:
    """The adapter for a loaded model, made once per model object."""
    dm = getattr(model, _ATTRIBUTE, None)
    if dm is None:
        from ..device import device_defaults, mlx_device_kind

        compiled = device_defaults(mlx_device_kind()).compile_step
        dm = StepModel(model, compiled) if supports(model) else PlainModel(model)
        setattr(model, _ATTRIBUTE, dm)
    return dm
