"""Chunked prefill and k-candidate decoding, both checking a cancel token between steps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
from mlx_lm.models.cache import KVCache, can_trim_prompt_cache, trim_prompt_cache

from .cache import DocumentCache


class Cancelled(Exception):
    """Raised inside the worker when a request's cancel token fires; `reason` is 'cancelled' or 'superseded'."""

    def __init__(self, reason: str = "cancelled") -> None:
        super().__init__(reason)
        self.reason = reason


class CancelToken:
    """Set from any thread; checked by the worker between prefill chunks and decode steps."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "cancelled"

    def cancel(self, reason: str = "cancelled") -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled(self.reason)


@dataclass
class PrefillResult:
    logits: mx.array  # (vocab,) logits after the last prompt token
    reused: int
    computed: int
    ms: float


# Architectures whose Model.__call__ is `head(self.model(inputs, cache))`: for tokens whose logits are not
# needed, running only the backbone skips the vocabulary projection (most of a small model's prefill cost).
_BACKBONE_TYPES = {"llama", "qwen2", "qwen3", "starcoder2", "gemma3_text", "mistral", "phi3", "granite"}


def _backbone(model: Any) -> Any | None:
    args = getattr(model, "args", None)
    inner = getattr(model, "model", None)
    if inner is not None and getattr(args, "model_type", None) in _BACKBONE_TYPES:
        return inner
    return None


def prefill_chunked(
    model: Any, doc: DocumentCache, prompt: list[int], chunk: int, cancel: CancelToken
) -> PrefillResult:
    """Bring the document cache to cover `prompt`, computing only the tokens it does not already hold.

    Chunks are checked for cancellation in between; work done before a cancel stays in the cache (the next
    request will want it). Only the last token goes through the vocabulary head.
    """
    t0 = time.perf_counter()
    # The last prompt token is always recomputed: its logits are what decoding starts from.
    keep = min(doc.reusable(prompt), len(prompt) - 1)
    doc.trim_to(keep)
    backbone = _backbone(model)
    pos = keep
    body_end = len(prompt) - 1 if backbone is not None else len(prompt)
    logits = None
    while pos < body_end:
        cancel.check()
        piece = prompt[pos : min(pos + chunk, body_end)]
        if backbone is not None:
            mx.eval(backbone(mx.array(piece)[None], doc.layers), [c.state for c in doc.layers])
        else:
            logits = model(mx.array(piece)[None], cache=doc.layers)[0, -1, :]
            mx.eval(logits, [c.state for c in doc.layers])
        doc.ids.extend(piece)
        pos += len(piece)
    if backbone is not None:
        cancel.check()
        logits = model(mx.array(prompt[-1:])[None], cache=doc.layers)[0, -1, :]
        mx.eval(logits)
        doc.ids.append(prompt[-1])
    assert logits is not None
    return PrefillResult(logits, keep, len(prompt) - keep, (time.perf_counter() - t0) * 1000)


@dataclass
class DecodeSettings:
    k: int = 1
    max_tokens: int = 64
    max_lines: int = 1  # stop a branch at this many newlines after its first non-blank token
    stop_ids: set[int] = field(default_factory=set)


@dataclass
class Branch:
    ids: list[int]  # emitted tokens (stop tokens excluded)
    last: int  # the token fed at the next step (finished branches keep feeding it; their output is ignored)
    logprob: float = 0.0
    done: bool = False
    newlines: int = 0
    content: bool = False  # emitted a non-whitespace token yet (a leading newline does not count as a line)


def _batched_cache(doc: DocumentCache, k: int) -> list[KVCache]:
    """k copies of the document's cache for batched decoding of k branches (the document's stays intact)."""
    out = []
    for c in doc.layers:
        keys, values = c.keys_and_values() if hasattr(c, "keys_and_values") else c.state[:2]
        b = KVCache()
        b.keys = mx.repeat(keys, k, axis=0)
        b.values = mx.repeat(values, k, axis=0)
        b.offset = keys.shape[2]
        out.append(b)
    return out


def decode_branches(
    model: Any,
    doc: DocumentCache,
    first_logits: mx.array,
    settings: DecodeSettings,
    newline_ids: frozenset[int],
    cancel: CancelToken,
    blank_ids: frozenset[int] = frozenset(),
    on_token: Callable[[], None] | None = None,
) -> list[Branch]:
    """Greedy-decode up to k branches that start from the k most likely first tokens, in one batch.

    With k == 1 decoding runs in the document cache itself and is trimmed off afterwards, so no copy is made.
    """
    logprobs = first_logits - mx.logsumexp(first_logits)
    k = max(1, settings.k)
    if k == 1:
        firsts = [int(mx.argmax(logprobs).item())]
        first_lp = [float(logprobs[firsts[0]].item())]
    else:
        top = mx.argpartition(-logprobs, kth=k - 1)[:k]
        vals = logprobs[top]
        order = mx.argsort(-vals)
        firsts = [int(x) for x in top[order].tolist()]
        first_lp = [float(x) for x in vals[order].tolist()]
    branches = [Branch([t], t, lp) for t, lp in zip(firsts, first_lp)]
    for b in branches:
        _update_stop(b, b.ids[-1], settings, newline_ids, blank_ids)

    in_place = k == 1 and can_trim_prompt_cache(doc.layers)
    cache = doc.layers if in_place else _batched_cache(doc, len(branches))
    try:
        steps = 1
        while steps < settings.max_tokens and not all(b.done for b in branches):
            cancel.check()
            inp = mx.array([[b.last] for b in branches])
            logits = model(inp, cache=cache)[:, -1, :]
            lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
            nxt = mx.argmax(lp, axis=-1)
            chosen = mx.take_along_axis(lp, nxt[:, None], axis=-1)[:, 0]
            mx.eval(nxt, chosen)
            for b, t, l in zip(branches, nxt.tolist(), chosen.tolist()):
                if b.done:
                    continue
                b.ids.append(int(t))
                b.last = int(t)
                b.logprob += float(l)
                _update_stop(b, int(t), settings, newline_ids, blank_ids)
            steps += 1
            if on_token:
                on_token()
    finally:
        if in_place:
            # Generated tokens never stay in the document cache: it covers the prompt only.
            trim_prompt_cache(doc.layers, doc.layers[0].size() - len(doc.ids))
    return branches


def _update_stop(
    b: Branch, tok: int, s: DecodeSettings, newline_ids: frozenset[int], blank_ids: frozenset[int]
) -> None:
    if tok in s.stop_ids:
        b.ids.pop()
        b.done = True
        return
    if tok in newline_ids and b.content:
        b.newlines += 1
        if b.newlines >= s.max_lines:
            b.done = True
    if tok not in blank_ids:
        b.content = True
