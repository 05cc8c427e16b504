"""The decode core: prefill and k-branch decoding as step coroutines over a model adapter, policies injected.

Shaped like mlx-lm's `generate_step`: decoding goes step by step, and the sampler (greedy by default), the logits
processors and the stop rule are arguments, not wired in; cancellation is checked between steps. Unlike
`generate_step`, a coroutine does not call the model itself: it yields the work it needs (`adapter.Extend`,
`adapter.BranchStep`, or None after a prefill chunk it ran alone) and is sent the logits back. So one driver can
compute the work of several documents in one batched step (the scheduler), and `run_alone` computes one
coroutine's work as it comes. Single decoding is k = 1 of the same code.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

import mlx.core as mx

from .adapter import BranchStep, DecodeModel, Extend, Work, decode_model
from .cache import DocumentCache

T = TypeVar("T")
# A step coroutine: yields the work it needs (None: it computed a prefill chunk alone), is sent its logits.
Steps = Generator[Work | None, Any, T]
# (log-probabilities (rows, vocab)) -> chosen token per row, shape (rows,)
Sampler = Callable[[mx.array], mx.array]
# mlx-lm's convention, one row per branch: (tokens so far (rows, n), logits (rows, vocab)) -> logits
LogitsProcessor = Callable[[mx.array, mx.array], mx.array]


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


def greedy(logprobs: mx.array) -> mx.array:
    """The most likely token of each row."""
    return mx.argmax(logprobs, axis=-1)


class Verdict(Enum):
    """What a stop rule says about a branch's next token."""

    GO = "go"  # keep it and go on
    END = "end"  # keep it, then end the branch
    CUT = "cut"  # end the branch without it


# (the branch's tokens so far, its next token) -> verdict
StopRule = Callable[[list[int], int], Verdict]


def never_stop(_ids: list[int], _token: int) -> Verdict:
    return Verdict.GO


@dataclass(frozen=True)
class LineStop:
    """Completions' stop rule: a special token ends a branch (and is dropped); so does the `max_lines`-th newline
    once the branch has shown a non-blank token (a leading newline does not count as a line)."""

    max_lines: int
    stop_ids: frozenset[int]
    newline_ids: frozenset[int]
    blank_ids: frozenset[int]

    def __call__(self, ids: list[int], token: int) -> Verdict:
        if token in self.stop_ids:
            return Verdict.CUT
        if token not in self.newline_ids:
            return Verdict.GO
        lines, content = 0, False  # newlines are rare: count them only when one comes
        for t in ids:
            lines += t in self.newline_ids and content
            content = content or t not in self.blank_ids
        return Verdict.END if content and lines + 1 >= self.max_lines else Verdict.GO


@dataclass
class Branch:
    ids: list[int]  # emitted tokens (a CUT token excluded)
    logprobs: list[float] = field(default_factory=list)  # of each emitted token
    done: bool = False  # the stop rule ended it (False: the token budget did)

    @property
    def logprob(self) -> float:
        return sum(self.logprobs)

    def feed(self, token: int, logprob: float, stop: StopRule) -> None:
        verdict = stop(self.ids, token)
        if verdict is not Verdict.CUT:
            self.ids.append(token)
            self.logprobs.append(logprob)
        self.done = verdict is not Verdict.GO


@dataclass
class DecodeSettings:
    k: int = 1  # branches, started from the k most likely first tokens
    max_tokens: int = 64  # per branch, the first included
    stop: StopRule = never_stop
    sampler: Sampler = greedy
    logits_processors: list[LogitsProcessor] = field(default_factory=list)
    overlap: bool = False  # queue step n+1 before reading step n (device.DeviceDefaults.overlap: GPUs)


@dataclass
class PrefillResult:
    logits: mx.array  # (vocab,) logits after the last prompt token
    reused: int
    computed: int
    ms: float


@dataclass
class Decoded:
    branches: list[Branch]
    reused: int  # prompt tokens the document's cache already held
    computed: int
    prefill_ms: float
    decode_ms: float


def prefill_steps(dm: DecodeModel, doc: DocumentCache, prompt: list[int], chunk: int, cancel: CancelToken,
                  room: int = 0) -> Generator[None, None, tuple[int, list[int]]]:
    """Bring the document's cache to cover `prompt` but its last few tokens. Returns how many prompt tokens the
    cache already held and those last tokens (the tail an `Extend` folds into the first step: its logits are
    what decoding starts from).

    Only what the cache does not already hold is computed, in chunks checked for cancellation, yielding after
    each; work done before a cancel stays in the cache (the next request will want it). `room`: tokens the
    request will add past the prompt (its branches), reserved now so the cache grows at most once.
    """
    doc.trim_to(min(doc.reusable(prompt), len(prompt) - 1))
    keep = len(doc.ids)  # (a cache that cannot trim was reset)
    dm.reserve(doc, len(prompt) + room)
    end = len(prompt) - min(dm.max_tail_rows, len(prompt) - keep)
    pos = keep
    while pos < end:
        cancel.check()
        piece = prompt[pos : min(pos + chunk, end)]
        dm.prefill_chunk(doc, piece)
        pos += len(piece)
        yield None
    return keep, prompt[end:]


def first_tokens(logits: mx.array, s: DecodeSettings) -> tuple[mx.array, list[Branch]]:
    """The branches' first tokens from the prompt's last logits (vocab,): the k most likely (k == 1: the
    sampler's choice), as an array to feed and as branches that emitted them (one evaluation)."""
    k = max(1, s.k)
    rows = logits[None]
    for process in s.logits_processors:
        rows = process(mx.zeros((1, 0), dtype=mx.int32), rows)
    lp = rows[0] - mx.logsumexp(rows[0])
    if k == 1:
        firsts = s.sampler(lp[None])
    else:
        top = mx.argpartition(-lp, kth=k - 1)[:k]
        firsts = top[mx.argsort(-lp[top])]
    chosen = lp[firsts]
    mx.eval(firsts, chosen)
    ids: list[int] = firsts.tolist()  # type: ignore[assignment]
    lps: list[float] = chosen.tolist()  # type: ignore[assignment]
    branches = [Branch([]) for _ in ids]
    for b, t, l in zip(branches, ids, lps):
        b.feed(t, l, s.stop)
    return firsts.astype(mx.int32), branches


def branch_steps(dm: DecodeModel, doc: DocumentCache, tokens: mx.array, branches: list[Branch], s: DecodeSettings,
                 cancel: CancelToken) -> Steps[list[Branch]]:
    """Go on decoding `branches` (from `first_tokens`) after the document's prompt, feeding them `tokens`.

    All branches take one step together per token, with the sampler choosing each row's next token; a branch
    the stop rule ended keeps being fed (its row keeps the step's shape) but no longer emits. Generated tokens
    never stay in the document's cache. With `s.overlap`, step n+1 is asked for (and queued on the device)
    before step n's tokens are read, as mlx-lm's generate_step does: the host builds a step while the device
    computes the one before; a step asked for after every branch ended is computed and dropped.
    """
    if s.max_tokens <= 1 or all(b.done for b in branches):
        return branches
    state = dm.open(doc, len(branches), s.max_tokens)
    history = tokens[:, None]
    steps = 1  # tokens per branch so far (the first came from the prompt's logits)
    try:
        pending: tuple[mx.array, mx.array] | None = None  # a step's chosen tokens, asked for but not read
        while True:
            if pending is None:
                if steps >= s.max_tokens or all(b.done for b in branches):
                    break
                cancel.check()
                pending = _pick((yield BranchStep(state, tokens)), history, s)
                steps += 1
            tokens, chosen = pending
            pending = None
            if s.logits_processors:
                history = mx.concatenate([history, tokens[:, None]], axis=1)
            if s.overlap and steps < s.max_tokens:
                mx.async_eval(tokens, chosen)
                cancel.check()
                pending = _pick((yield BranchStep(state, tokens)), history, s)
                mx.async_eval(*pending)
                steps += 1
            ids: list[int] = tokens.tolist()  # type: ignore[assignment]
            lps: list[float] = chosen.tolist()  # type: ignore[assignment]
            for b, t, l in zip(branches, ids, lps):
                if not b.done:
                    b.feed(t, l, s.stop)
            if all(b.done for b in branches):
                break
    finally:
        dm.close(state)
    return branches


def _pick(out: mx.array, history: mx.array, s: DecodeSettings) -> tuple[mx.array, mx.array]:
    """The sampler's token for each row of a step's logits and its log-probability (lazy)."""
    for process in s.logits_processors:
        out = process(history, out)
    lp = out - mx.logsumexp(out, axis=-1, keepdims=True)
    tokens = s.sampler(lp).astype(mx.int32)
    return tokens, mx.take_along_axis(lp, tokens[:, None], axis=-1)[:, 0]


def complete_steps(dm: DecodeModel, doc: DocumentCache, prompt: list[int], s: DecodeSettings, cancel: CancelToken,
                   chunk: int) -> Steps[Decoded]:
    """A whole completion: prefill what the cache lacks, fold the prompt's tail into the first step, decode."""
    t0 = time.perf_counter()
    reused, tail = yield from prefill_steps(dm, doc, prompt, chunk, cancel, room=max(1, s.k) * s.max_tokens)
    cancel.check()
    logits = yield Extend(doc, tail)
    tokens, branches = first_tokens(logits, s)
    t1 = time.perf_counter()
    branches = yield from branch_steps(dm, doc, tokens, branches, s, cancel)
    return Decoded(branches, reused, len(prompt) - reused, (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000)


def warm_steps(dm: DecodeModel, doc: DocumentCache, prompt: list[int], cancel: CancelToken,
               chunk: int) -> Steps[PrefillResult]:
    """Only bring the document's cache to cover `prompt` (a warm-up before the first keystroke)."""
    t0 = time.perf_counter()
    reused, tail = yield from prefill_steps(dm, doc, prompt, chunk, cancel)
    cancel.check()
    logits = yield Extend(doc, tail)
    mx.eval(logits)
    return PrefillResult(logits, reused, len(prompt) - reused, (time.perf_counter() - t0) * 1000)


def run_alone(dm: DecodeModel, steps: Steps[T]) -> T:
    """Drive a step coroutine on its own: each piece of work is computed as it is asked for."""
    try:
        work = next(steps)
        while True:
            work = steps.send(None if work is None else dm.forward([work])[0])
    except StopIteration as done:
        return done.value


def prefill_chunked(model: Any, doc: DocumentCache, prompt: list[int], chunk: int,
                    cancel: CancelToken) -> PrefillResult:
    """Bring `doc`'s cache to cover `prompt` and return the logits after it (see `prefill_steps`)."""
    return run_alone(decode_model(model), warm_steps(decode_model(model), doc, prompt, cancel, chunk))


def decode_branches(model: Any, doc: DocumentCache, first_logits: mx.array, s: DecodeSettings,
                    cancel: CancelToken) -> list[Branch]:
    """Decode branches after a prompt `doc` covers, from its last logits (see `first_tokens`, `branch_steps`)."""
    dm = decode_model(model)
    tokens, branches = first_tokens(first_logits, s)
    return run_alone(dm, branch_steps(dm, doc, tokens, branches, s, cancel))
