"""Model-side primitives for decisions: likelihood of a closed set of continuations, and constrained decoding.

Both run on the inference worker only (like everything that touches MLX) and know nothing of LSP.

`score_options` prefills the shared prompt once (in a document's cache when the context is a document, so
completions and decisions share the work; else from the longest prefix of it a kept context holds, and the
prompt is kept for the next call, caches/prompt_caches.py `ContextCache`) but its last few tokens, and computes
those with every option in ONE forward pass: with the compiled step's models the prompt's tail is an Extend's rows
and each option a branch after it attending the cached prompt in place (no copy of it), otherwise the tail goes
through mlx-lm's call and the options are a right-padded batch in copies of the cache (adapter.py,
`continuations`). One evaluation reads every option token's log-probability.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import mlx.core as mx
from mlx_lm.models.cache import KVCache, make_prompt_cache

from ..caches.prompt_caches import ContextCache, DocumentCache
from ..loading.model import LoadedModel
from .adapter import DecodeModel, decode_model
from .decode import (
    CancelToken,
    DecodeSettings,
    LogitsProcessor,
    decode_branches,
    prefill_chunked,
    prefill_steps,
    run_alone,
)
from .logprobs import token_logprobs
from .stop import Verdict

# Options per forward pass; larger sets are scored in several passes of this size (rows of one step, or one KV
# copy each where the model takes no compiled step).
MAX_BATCH = 16


@dataclass
class OptionScore:
    """Log-likelihood of one option's tokens given the prompt."""

    logprob: float  # sum of the option's token log-probabilities
    tokens: int

    @property
    def mean(self) -> float:
        """Length-normalised log-likelihood (per token); 0.0 for an empty option."""
        return self.logprob / self.tokens if self.tokens else 0.0


@dataclass
class ScoreResult:
    scores: list[OptionScore]
    prompt_tokens: int
    reused_tokens: int
    prefill_ms: float
    score_ms: float


def _scratch(lm: LoadedModel) -> DocumentCache:
    return DocumentCache(make_prompt_cache(lm.model))


def borrow(lm: LoadedModel, doc: DocumentCache | None, prompt: list[int],
           contexts: ContextCache | None = None) -> DocumentCache:
    """A cache to prefill `prompt` into that reuses `doc` without destroying it.

    When `doc` holds a prefix of the prompt, extending it loses nothing, so `doc` itself is used (and the next
    request finds the prompt there). When the prompt diverges from what `doc` holds (a completion's prompt,
    say), the shared part is copied into a scratch cache and `doc` stays as it was, so a decision never makes
    the next keystroke's completion recompute its prompt.

    Without `doc`, a copy of the longest prefix of the prompt `contexts` keeps (else an empty cache).
    """
    if doc is None:
        return contexts.fetch(lm.model, prompt) if contexts is not None else _scratch(lm)
    shared = doc.reusable(prompt)
    if shared == len(doc.ids):
        return doc
    out = _scratch(lm)
    if shared == 0 or not all(type(c) is KVCache for c in doc.layers):
        return out
    for src, dst in zip(doc.layers, out.layers):
        keys, values = src.keys_and_values()
        dst.keys, dst.values, dst.offset = keys[..., :shared, :], values[..., :shared, :], shared
    out.ids = doc.ids[:shared]
    return out


def score_options(
    lm: LoadedModel,
    doc: DocumentCache | None,
    prompt_ids: list[int],
    options_ids: list[list[int]],
    cancel: CancelToken | None = None,
    chunk: int = 128,
    contexts: ContextCache | None = None,
) -> ScoreResult:
    """Sum of token log-probabilities of each option as the continuation of `prompt_ids`.

    With `doc`, what that document's cache shares with the prompt is reused (see `borrow`); without, what
    `contexts` keeps of it (and the prompt is kept there afterwards), else a scratch cache. The prompt's last
    token (or last few, the rest of what the cache lacks) and every option are ONE forward pass: a decision asked
    again runs that pass and nothing else. Options are never appended to any cache.
    """
    if not prompt_ids:
        raise ValueError("score_options needs a non-empty prompt")
    cancel = cancel or CancelToken()
    cache = borrow(lm, doc, prompt_ids, contexts)
    t0 = time.perf_counter()
    dm = decode_model(lm.model)
    reused, tail = run_alone(dm, prefill_steps(dm, cache, prompt_ids, chunk, cancel))
    t1 = time.perf_counter()
    scores: list[OptionScore] = []
    last: mx.array | None = None
    for lo in range(0, len(options_ids), MAX_BATCH):
        cancel.check()
        batch, last = _score_batch(dm, cache, tail, options_ids[lo : lo + MAX_BATCH], last)
        scores += batch
        tail = []  # the first batch's step left it in the cache
    if doc is None and contexts is not None:
        contexts.keep(cache)
    return ScoreResult(scores, len(prompt_ids), reused, (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000)


def _score_batch(dm: DecodeModel, doc: DocumentCache, tail: list[int], options: list[list[int]],
                 last: mx.array | None) -> tuple[list[OptionScore], mx.array]:
    """One forward pass: the prompt's `tail` and all options of the batch after it, whose first tokens the
    prompt's last logits score (the tail's, or `last` from an earlier batch); input j of an option predicts its
    token j + 1 (`DecodeModel.continuations`). One evaluation reads every option token's log-probability."""
    after, rows = dm.continuations(doc, tail, [o[:-1] for o in options])
    last = after if after is not None else last
    assert last is not None, "the first batch carries the prompt's tail"
    scored = [mx.concatenate([last[None], r[: len(o) - 1]]) if len(o) > 1 else last[None]
              for r, o in zip(rows, options) if o]
    picked = token_logprobs(mx.concatenate(scored), [t for o in options for t in o]) if scored else []
    out, at = [], 0
    for o in options:
        out.append(OptionScore(sum(picked[at : at + len(o)]), len(o)))
        at += len(o)
    return out, last


# -- constrained decoding ----------------------------------------------------------------------------------


@dataclass
class ConstrainedResult:
    ids: list[int]
    logprobs: list[float] = field(default_factory=list)  # of each chosen token, under the processed logits
    stopped: bool = False  # `stop` said so (False: the token budget ran out)
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prefill_ms: float = 0.0
    decode_ms: float = 0.0


def constrained_decode(
    lm: LoadedModel,
    doc: DocumentCache | None,
    prompt_ids: list[int],
    processor: LogitsProcessor,
    stop: Callable[[int], bool],
    max_tokens: int,
    cancel: CancelToken | None = None,
    chunk: int = 128,
    contexts: ContextCache | None = None,
) -> ConstrainedResult:
    """Greedy decoding where `processor` reshapes every step's logits (e.g. masks tokens a grammar forbids).

    `processor` follows mlx-lm's convention for one sequence: (tokens so far (n,), logits (1, vocab)). Stops
    when `stop(token)` is true for the chosen token (that token is kept; the caller decides whether it
    belongs to the output) or after `max_tokens`. Generated tokens never stay in a document's cache. Without
    `doc`, the prompt's KV state comes from and goes back to `contexts` (see `score_options`).
    """
    cancel = cancel or CancelToken()
    cache = borrow(lm, doc, prompt_ids, contexts)
    pre = prefill_chunked(lm.model, cache, prompt_ids, chunk, cancel)
    out = ConstrainedResult([], prompt_tokens=len(prompt_ids), reused_tokens=pre.reused, prefill_ms=pre.ms)
    if max_tokens <= 0:
        return out
    t0 = time.perf_counter()
    settings = DecodeSettings(
        k=1,
        max_tokens=max_tokens,
        stop=lambda _ids, token: Verdict.END if stop(token) else Verdict.GO,
        logits_processors=[lambda history, logits: processor(history[0], logits)],
    )
    [branch] = decode_branches(lm.model, cache, pre.logits, settings, cancel)
    out.ids, out.logprobs, out.stopped = branch.ids, branch.logprobs, branch.done
    out.decode_ms = (time.perf_counter() - t0) * 1000
    if doc is None and contexts is not None:
        contexts.keep(cache)
    return out
