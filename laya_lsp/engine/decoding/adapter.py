"""Model adapters: how a loaded mlx-lm model computes the work the decode core asks for.

The decode core asks for two kinds of work: `Extend` (the last few prompt tokens of a document, logits of the
last one) and `BranchStep` (the next tokens of k branches that continue a document's prompt: one each, or a
branch's newest token and a draft to verify, at consecutive positions). `forward` computes a list of them at
once. Two adapters:

- `StepModel` for the llama-family architectures `step.CompiledStep` reproduces: one compiled fixed-shape step
  for the whole list, documents included (their rows share the weights' reads); k branches attend the
  document's prompt in place, never a copy of it; drafts are verified in the same step (`drafts` is True).
- `PlainModel` for every other mlx-lm model: the model's own call, one item at a time, branches in a copy of
  the document's cache (k > 1) as mlx-lm's batched generation does; one token per branch (no drafts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Protocol

import mlx.core as mx
from mlx_lm.models.cache import KVCache, can_trim_prompt_cache, trim_prompt_cache

from ..caches.prompt_caches import DocumentCache
from .cpu_math import prefill_body
from .step import CompiledStep, RowGroup, supports

# Architectures whose Model.__call__ is `head(self.model(inputs, cache))`: for tokens whose logits are not
# needed, running only the backbone skips the vocabulary projection (most of a small model's prefill cost).
_BACKBONE_TYPES = {"llama", "qwen2", "qwen3", "starcoder2", "gemma3_text", "mistral", "phi3", "granite"}

# The longest prompt tail a step computes; longer prompts are prefilled in chunks first. Tails are padded to a
# power of two so a typing session uses a handful of step shapes.
MAX_TAIL_ROWS = 16
# Branch steps are padded to one of these row counts (k branches with drafts of varying length, ended branches
# fed no more), so a session meets a handful of step shapes; up to 8 every count is its own (k <= 8 undrafted
# costs no padding).
ROW_SIZES = (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64)


def padded_rows(n: int) -> int:
    """The step size `n` branch rows are padded to."""
    return next((r for r in ROW_SIZES if r >= n), n)


@dataclass
class Extend:
    """Append `tokens` (the end of a prompt) to the document's cache; the logits of the last one, shape (vocab,).

    With a `draft` (what the first branch may write; adapters with `drafts` only), the draft's tokens are fed
    after the prompt where the first of k (`stride`) branches keeps its tokens, and the logits are
    (1 + len(draft), vocab): the prompt's last, then after each draft token."""

    doc: DocumentCache
    tokens: list[int]
    draft: list[int] = field(default_factory=list)
    stride: int = 1


@dataclass
class Branches:
    """k branches continuing a document's prompt; `steps[i]` tokens of branch i are in the cache (past the
    prompt), at most `room` each."""

    doc: DocumentCache
    k: int
    prompt: int  # tokens of the prompt they continue
    room: int = 0
    steps: list[int] = field(default_factory=list)
    copy: list[Any] | None = field(default=None, repr=False)  # PlainModel: the branches' own cache

    def __post_init__(self) -> None:
        self.steps = self.steps or [0] * self.k

    def trim(self, branch: int, n: int) -> None:
        """Forget the branch's last `n` tokens (a draft's rejected tail): the next step overwrites them."""
        self.steps[branch] -= n


@dataclass
class BranchStep:
    """Feed branches their next tokens (`tokens`, possibly still lazy): one each (`rows` None), or `rows[i]`
    consecutive tokens of branch i (0: an ended branch; more: its newest token then a draft). Logits: one row
    per token fed, shape (sum(rows), vocab)."""

    branches: Branches
    tokens: mx.array
    rows: list[int] | None = None

    @property
    def counts(self) -> list[int]:
        return self.rows if self.rows is not None else [1] * self.branches.k


Work = Extend | BranchStep


class DecodeModel(Protocol):
    """What the decode core needs from a model (see the module docstring)."""

    model: Any
    max_tail_rows: int  # prompt tokens an Extend may carry; longer prompts are prefilled by `prefill_chunk`
    drafts: bool  # a BranchStep may carry several tokens of a branch (a draft verified in one step)

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

    def continuations(self, doc: DocumentCache, tail: list[int],
                      inputs: list[list[int]]) -> tuple[mx.array | None, list[mx.array]]:
        """The document's cache extended by `tail` (the prompt's last tokens), and the logits after it (vocab,;
        None for no tail) and after each token of each continuation of it, shape (len(inputs[i]), vocab): all in
        one pass (decisions score their options so). Only `tail` stays in the cache."""


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
        (body or self.model)(mx.array(tokens)[None], cache=doc.layers)
        # Only the caches are evaluated: nothing reads the output, so the last layer's attention and MLP (a third of
        # a 3-layer model's prefill) are never computed.
        mx.eval([c.state for c in doc.layers])
        doc.ids.extend(tokens)


class StepModel(_ChunkedPrefill):
    """Llama-family models through the compiled step: all work of a call in one step (see step.py). On a CPU,
    prompt chunks go through `cpu_math.prefill_body` (mlx-lm's body, without MLX's slow exp).

    With fixed shapes (`fix_shapes`, the GPU default) prompt chunks go through the step too, padded to a power of
    two rows like a prompt's tail, instead of through mlx-lm's call, whose every new length and cache size is a
    new attention plan on a GPU; and every step keeps the logits of all its rows (a step's shape is then its row
    count alone): a typing session meets only shapes that warm-up ran (`row_sizes`, `warm_rows`).
    """

    max_tail_rows = MAX_TAIL_ROWS
    drafts = True

    def __init__(self, model: Any, compiled: bool = True) -> None:
        self.model = model
        self.step = CompiledStep(model, compiled)
        self.chunk_rows = 0  # prompt chunks through the step, padded up to this many rows (0: mlx-lm's call)

    def fix_shapes(self, capacity: int, chunk: int) -> None:
        """Every cache at `capacity` columns; prompt chunks of up to `chunk` tokens through the step."""
        self.step.set_capacity(capacity + self.max_tail_rows)
        self.chunk_rows = 1 << (max(chunk, self.max_tail_rows) - 1).bit_length()

    def row_sizes(self, branch_rows: int) -> list[int]:
        """Every row count a step is padded to: an Extend's (with fixed shapes, a prompt chunk's) powers of two,
        and a branch step's sizes up to `branch_rows` (k branches each verifying a full draft)."""
        top = max(self.max_tail_rows, self.chunk_rows)
        return sorted({1 << i for i in range(top.bit_length())} | {r for r in ROW_SIZES if r <= branch_rows}
                      | {padded_rows(branch_rows)})

    def warm_rows(self, doc: DocumentCache, rows: int) -> None:
        """Run a step of `rows` rows (all kept) on scratch columns past the document's prompt."""
        start = doc.layers[0].offset
        self.step.reserve(doc.layers, start + rows)
        cols = list(range(start, start + rows))
        group = RowGroup(doc.layers, mx.zeros((rows,), dtype=mx.int32), cols, cols, [c + 1 for c in cols],
                         [-1] * rows, start, 1, list(range(rows)))
        mx.eval(self.step.run([group]), [c.keys for c in doc.layers], [c.values for c in doc.layers])

    def reserve(self, doc: DocumentCache, columns: int) -> None:
        self.step.reserve(doc.layers, columns + self.max_tail_rows)  # (an Extend's padding rows)

    def prefill_chunk(self, doc: DocumentCache, tokens: list[int]) -> None:
        if not self.chunk_rows and self.step.cpu_math:
            prefill_body(self.model.model, tokens, doc.layers)  # mlx-lm's body without MLX's CPU exp
            doc.ids.extend(tokens)
            return None
        if not self.chunk_rows:
            return super().prefill_chunk(doc, tokens)
        for lo in range(0, len(tokens), self.chunk_rows):
            logits = self.forward([Extend(doc, tokens[lo : lo + self.chunk_rows])])
            mx.eval(logits, [c.keys for c in doc.layers], [c.values for c in doc.layers])

    def forward(self, work: Sequence[Work]) -> list[mx.array]:
        groups = [self._extend(w) if isinstance(w, Extend) else self._branch(w) for w in work]
        out = self.step.run(groups)
        results = []
        for w, logits in zip(work, out):
            if isinstance(w, Extend):
                for c in w.doc.layers:
                    c.offset += len(w.tokens)
                w.doc.ids.extend(w.tokens)
                first = len(w.tokens) - 1 if self.chunk_rows else 0  # (fixed shapes keep every row)
                results.append(logits[first : first + 1 + len(w.draft)] if w.draft else logits[first])
            else:
                counts = w.counts
                for i, n in enumerate(counts):
                    w.branches.steps[i] += n
                results.append(logits[: sum(counts)])  # (padding rows last)
        return results

    def _extend(self, w: Extend) -> RowGroup:
        """The prompt's tail at the next columns (causal), a draft at the first branch's columns after it (as
        `_branch` lays them out), padding rows past both (scratch, never kept)."""
        n, d, start = len(w.tokens), len(w.draft), w.doc.layers[0].offset
        if n > max(self.max_tail_rows, self.chunk_rows):
            raise ValueError(f"an Extend carries at most {max(self.max_tail_rows, self.chunk_rows)} tokens, not {n}")
        end = start + n
        pad = (1 << (n + d - 1).bit_length()) - n - d
        scratch = [end + d * w.stride + r for r in range(pad)]
        self.step.reserve(w.doc.layers, end + d * w.stride + pad)
        tail = list(range(start, end))
        drafted = [end + j * w.stride for j in range(d)]
        tokens = mx.array(w.tokens + w.draft + [0] * pad, dtype=mx.int32)
        return RowGroup(w.doc.layers, tokens, tail + drafted + scratch, tail + list(range(end, end + d)) + scratch,
                        [c + 1 for c in tail] + [end] * d + [1] * pad, [-1] * n + [0] * d + [-1] * pad, end,
                        w.stride, list(range(n + d + pad)) if self.chunk_rows else list(range(n - 1, n + d)))

    def _branch(self, w: BranchStep) -> RowGroup:
        """Branch i's j-th token after the prompt sits at column prompt + j*k + i (interleaved), position
        prompt + j. Padding rows write one scratch column past every branch's room and see column 0 only."""
        b = w.branches
        cols, pos, phases = [], [], []
        for i, n in enumerate(w.counts):
            for j in range(b.steps[i], b.steps[i] + n):
                cols.append(b.prompt + j * b.k + i)
                pos.append(b.prompt + j)
                phases.append(i)
        real = len(cols)
        pad = padded_rows(real) - real
        scratch = b.prompt + b.k * b.room
        self.step.reserve(b.doc.layers, scratch + 1)
        tokens = w.tokens.astype(mx.int32)
        if pad:
            tokens = mx.concatenate([tokens, mx.zeros((pad,), dtype=mx.int32)])
        return RowGroup(b.doc.layers, tokens, cols + [scratch] * pad, pos + [0] * pad, [b.prompt] * real + [1] * pad,
                        phases + [-1] * pad, b.prompt, b.k, list(range(real + pad)))

    def open(self, doc: DocumentCache, k: int, max_tokens: int) -> Branches:
        self.step.reserve(doc.layers, len(doc.ids) + k * max_tokens + 1)
        return Branches(doc, k, len(doc.ids), max_tokens)

    def close(self, branches: Branches) -> None:
        """Nothing to undo: the branches' tokens lie past the prompt, where the next prompt overwrites them."""

    def continuations(self, doc: DocumentCache, tail: list[int],
                      inputs: list[list[int]]) -> tuple[mx.array | None, list[mx.array]]:
        """One step: the tail's rows at the next columns (causal, as an Extend's), then each continuation as a
        branch after it whose tokens are all fed at once (as a draft is), interleaved at the columns `_branch`
        gives branches, attending the prompt in place; rows are padded as branch steps are, so decisions reuse a
        few traces."""
        n, k, start = len(tail), len(inputs), doc.layers[0].offset
        end, width = start + n, max((len(x) for x in inputs), default=0)
        cols = list(range(start, end))
        positions, ends, phases = list(cols), [c + 1 for c in cols], [-1] * n
        for i, x in enumerate(inputs):
            cols += [end + j * k + i for j in range(len(x))]
            positions += range(end, end + len(x))
            ends += [end] * len(x)
            phases += [i] * len(x)
        real = len(cols)
        pad = padded_rows(real) - real
        scratch = end + k * width
        self.step.reserve(doc.layers, scratch + 1)
        tokens = mx.array(tail + [t for x in inputs for t in x] + [0] * pad, dtype=mx.int32)
        group = RowGroup(doc.layers, tokens, cols + [scratch] * pad, positions + [0] * pad, ends + [1] * pad,
                         phases + [-1] * pad, end, max(k, 1), list(range(real + pad)))
        logits = self.step.run([group])[0]
        for c in doc.layers:
            c.offset = end
        doc.ids.extend(tail)
        bounds = [n + sum(len(x) for x in inputs[:i]) for i in range(k + 1)]
        return logits[n - 1] if n else None, [logits[lo:hi] for lo, hi in pairwise(bounds)]


class PlainModel(_ChunkedPrefill):
    """Any mlx-lm model through its own call, one item at a time (the reference the compiled step must equal)."""

    max_tail_rows = 1
    drafts = False

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
                out.append(self._branch(w))
        return out

    def _branch(self, w: BranchStep) -> mx.array:
        """Every branch is fed (the batch keeps its size): an ended one a placeholder, whose logits are dropped."""
        counts = w.counts
        if any(n > 1 for n in counts):
            raise ValueError("the plain adapter feeds one token per branch (it verifies no drafts)")
        cache = w.branches.copy if w.branches.copy is not None else w.branches.doc.layers
        live = [i for i, n in enumerate(counts) if n]
        tokens = w.tokens
        if len(live) < len(counts):
            tokens = mx.zeros((len(counts),), dtype=mx.int32).at[mx.array(live)].add(w.tokens.astype(mx.int32))
        logits = self.model(tokens[:, None], cache=cache)[:, -1, :]
        for i in range(len(counts)):
            w.branches.steps[i] += 1
        return logits if len(live) == len(counts) else logits[mx.array(live)]

    def open(self, doc: DocumentCache, k: int, max_tokens: int) -> Branches:
        """k == 1 decodes in the document's cache itself (trimmed after); k > 1 in k copies of it."""
        in_place = k == 1 and can_trim_prompt_cache(doc.layers)
        return Branches(doc, k, len(doc.ids), max_tokens, copy=None if in_place else repeat_cache(doc, k))

    def close(self, branches: Branches) -> None:
        if branches.copy is None:
            doc = branches.doc
            trim_prompt_cache(doc.layers, doc.layers[0].size() - len(doc.ids))


    def continuations(self, doc: DocumentCache, tail: list[int],
                      inputs: list[list[int]]) -> tuple[mx.array | None, list[mx.array]]:
        """The tail through mlx-lm's call, then all continuations as one right-padded batch in copies of the
        cache: a real token never attends the padding after it (attention is causal), so no mask is needed."""
        last = self.model(mx.array(tail)[None], cache=doc.layers)[0, -1, :] if tail else None
        doc.ids.extend(tail)
        width = max((len(x) for x in inputs), default=0)
        if width == 0:
            return last, [mx.zeros((0, 0)) for _ in inputs]
        batch = mx.array([x + [0] * (width - len(x)) for x in inputs])
        logits = self.model(batch, cache=repeat_cache(doc, len(inputs)))
        return last, [logits[i, : len(x)] for i, x in enumerate(inputs)]


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
        dm = StepModel(model) if supports(model) else PlainModel(model)
        setattr(model, _ATTRIBUTE, dm)
    return dm
