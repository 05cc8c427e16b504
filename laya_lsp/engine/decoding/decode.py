"""The decode core: prefill and k-branch decoding as step coroutines over a model adapter, policies injected.

Shaped like mlx-lm's `generate_step`: decoding goes step by step, and the sampler (greedy by default), the logits
processors and the stop rule are arguments, not wired in; cancellation is checked between steps. Unlike
`generate_step`, a coroutine does not call the model itself: it yields the work it needs (`adapter.Extend`,
`adapter.BranchStep`, or None after a prefill chunk it ran alone) and is sent the logits back. So one driver can
compute the work of several documents in one batched step (the scheduler), and `run_alone` computes one
coroutine's work as it comes. Single decoding is k = 1 of the same code.

Speculation (a `Drafter` in the settings, greedy sampling, an adapter that verifies drafts): a branch's step
feeds its newest token followed by a draft of what may come next, at consecutive positions, in one forward pass;
the branch keeps the tokens the model itself picks while they agree with the draft (one more than the accepted
draft tokens) and trims the rest, as mlx-lm's `speculative_generate_step` does with a draft model. The output
is the greedy output without the draft; only the number of steps changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import mlx.core as mx

from ..caches.prompt_caches import DocumentCache
from .adapter import BranchStep, DecodeModel, Extend, Work, decode_model
from .logprobs import greedy_picks, log_softmax
from .stop import StopRule, Verdict, never_stop

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


@dataclass(frozen=True)
class Draft:
    """Tokens proposed to follow a branch, and the class of source they came from (for its acceptance)."""

    tokens: list[int]
    source: str


class Drafter(Protocol):
    """Proposes what may follow a branch and learns how often it was right."""

    def propose(self, ids: list[int], limit: int) -> Draft | None:
        """A draft of at most `limit` tokens to follow a branch that emitted `ids`, or None."""

    def judged(self, draft: Draft, accepted: int, tried: int) -> None:
        """The model agreed with the draft's first `accepted` of the `tried` tokens it checked."""


@dataclass
class DecodeProgress:
    """What a decode did so far, per request: forward steps after the first token, drafted and accepted tokens,
    and its branches (read after a cancel too: what they wrote is a draft for the next request)."""

    branches: list[Branch] = field(default_factory=list)
    steps: int = 0
    drafted: int = 0
    accepted: int = 0
    by_source: dict[str, list[int]] = field(default_factory=dict)  # source -> [drafted, accepted]

    def add(self, source: str, drafted: int, accepted: int) -> None:
        self.drafted += drafted
        self.accepted += accepted
        row = self.by_source.setdefault(source, [0, 0])
        row[0] += drafted
        row[1] += accepted


@dataclass
class DecodeSettings:
    k: int = 1  # branches, started from the k most likely first tokens
    max_tokens: int = 64  # per branch, the first included
    stop: StopRule = never_stop
    sampler: Sampler = greedy
    logits_processors: list[LogitsProcessor] = field(default_factory=list)
    draft: Drafter | None = None  # drafts verified in the step (greedy sampling only)
    progress: DecodeProgress = field(default_factory=DecodeProgress)


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
    lp = log_softmax(rows[0])
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
                 cancel: CancelToken, ahead: int = 0) -> Steps[list[Branch]]:
    """Go on decoding `branches` (from `first_tokens`) after the document's prompt, feeding them `tokens`.

    Every branch that has not ended takes a step together per round, with the sampler choosing each row's next
    token; with a drafter (greedy only), a branch's step also verifies a draft (see the module docstring).
    `ahead`: tokens of the first branch the first step's draft already left in the cache (`_verify_first`).
    Generated tokens never stay in the document's cache.
    """
    if s.max_tokens <= 1 or all(b.done for b in branches):
        return branches
    state = dm.open(doc, len(branches), s.max_tokens)
    drafter = _drafter(dm, s)
    newest: list[int] = tokens.tolist()  # type: ignore[assignment]  # each branch's token not yet in the cache
    if ahead:
        state.steps[0] = ahead
        newest[0] = branches[0].ids[-1]
    try:
        while True:
            live = [i for i, b in enumerate(branches) if not b.done and len(b.ids) < s.max_tokens]
            if not live:
                break
            cancel.check()
            drafts = _propose(drafter, branches, live, s.max_tokens)
            rows = [0] * len(branches)
            fed: list[int] = []
            for i in live:
                rows[i] = 1 + len(drafts[i].tokens)
                fed += [newest[i], *drafts[i].tokens]
            out = yield BranchStep(state, mx.array(fed, dtype=mx.int32), rows)
            s.progress.steps += 1
            picked, lps = _choose(out, s, [(branches[i].ids, drafts[i]) for i in live])
            r = 0
            for i in live:
                d = drafts[i]
                kept, accepted, tried = _accept(branches[i], d, picked[r : r + rows[i]], lps[r : r + rows[i]], s)
                state.trim(i, rows[i] - kept)
                newest[i] = branches[i].ids[-1] if branches[i].ids else newest[i]
                if d.tokens and drafter is not None:
                    drafter.judged(d, accepted, tried)
                    s.progress.add(d.source, len(d.tokens), accepted)
                r += rows[i]
    finally:
        dm.close(state)
    return branches


NO_DRAFT = Draft([], "")


def _propose(drafter: Drafter | None, branches: list[Branch], live: list[int], max_tokens: int) -> dict[int, Draft]:
    """Each live branch's draft: at most what its token budget leaves after this step's own token."""
    out: dict[int, Draft] = {}
    for i in live:
        room = max_tokens - len(branches[i].ids) - 1
        d = drafter.propose(branches[i].ids, room) if drafter is not None and room > 0 else None
        out[i] = Draft(d.tokens[:room], d.source) if d is not None and d.tokens else NO_DRAFT
    return out


def _choose(
    out: mx.array, s: DecodeSettings, histories: list[tuple[list[int], Draft]]
) -> tuple[list[int], list[float]]:
    """The sampler's token for every row and its log-probability, after the logits processors (one evaluation).

    Row j of a branch continues its tokens so far plus the first j tokens of its draft: processors see exactly
    the history they would without speculation."""
    if s.logits_processors:
        lengths = {len(ids) for ids, d in histories}
        if len(lengths) == 1 and all(not d.tokens for _, d in histories):
            out = _process(s.logits_processors, mx.array([ids for ids, _ in histories], dtype=mx.int32), out)
        else:
            rows, r = [], 0
            for ids, d in histories:
                seq = ids + d.tokens
                for j in range(1 + len(d.tokens)):
                    h = mx.array([seq[: len(ids) + j]], dtype=mx.int32)
                    rows.append(_process(s.logits_processors, h, out[r : r + 1]))
                    r += 1
            out = mx.concatenate(rows)
    if s.sampler is greedy and (picks := greedy_picks(out)) is not None:
        return picks
    lp = log_softmax(out)
    tokens = s.sampler(lp).astype(mx.int32)
    chosen = mx.take_along_axis(lp, tokens[:, None], axis=-1)[:, 0]
    mx.eval(tokens, chosen)
    return tokens.tolist(), chosen.tolist()  # type: ignore[return-value]


def _process(processors: list[LogitsProcessor], history: mx.array, logits: mx.array) -> mx.array:
    for process in processors:
        logits = process(history, logits)
    return logits


def _accept(b: Branch, draft: Draft, picked: list[int], lps: list[float], s: DecodeSettings) -> tuple[int, int, int]:
    """Feed the branch the model's tokens while they agree with the draft (the stop rule still ends it inside
    a draft). Returns the rows whose tokens stay in the cache (the newest token and the draft tokens before the
    last one fed), the draft tokens the model agreed with and the draft tokens checked."""
    n = len(draft.tokens)
    for j, (t, lp) in enumerate(zip(picked, lps)):
        b.feed(t, lp, s.stop)
        if j == n:
            return j + 1, n, n
        if t != draft.tokens[j]:
            return j + 1, j, j + 1
        if b.done or len(b.ids) >= s.max_tokens:
            return j + 1, j + 1, j + 1
    return len(picked), n, n


def complete_steps(dm: DecodeModel, doc: DocumentCache, prompt: list[int], s: DecodeSettings, cancel: CancelToken,
                   chunk: int) -> Steps[Decoded]:
    """A whole completion: prefill what the cache lacks, fold the prompt's tail into the first step, decode."""
    t0 = time.perf_counter()
    reused, tail = yield from prefill_steps(dm, doc, prompt, chunk, cancel, room=max(1, s.k) * s.max_tokens)
    cancel.check()
    drafter = _drafter(dm, s)
    draft = (drafter.propose([], s.max_tokens - 1) if drafter and s.max_tokens > 1 else None) or NO_DRAFT
    logits = yield Extend(doc, tail, draft.tokens[: s.max_tokens - 1], max(1, s.k))
    if not draft.tokens:
        tokens, branches = first_tokens(logits, s)
        ahead = 0
    else:
        tokens, branches = first_tokens(logits[0], s)
        ahead = _verify_first(logits[1:], branches[0], draft, s)
    s.progress.branches = branches
    t1 = time.perf_counter()
    branches = yield from branch_steps(dm, doc, tokens, branches, s, cancel, ahead)
    return Decoded(branches, reused, len(prompt) - reused, (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000)


def _verify_first(rows: mx.array, first: Branch, draft: Draft, s: DecodeSettings) -> int:
    """The first step's draft for the first branch: row j continues draft[:j + 1]. When the branch's first
    token is the draft's, the rows go on as a branch step with that token as the newest; returns how many of
    the branch's tokens the step left in the cache (0: none, the draft missed at once)."""
    assert s.draft is not None
    agree = first.ids[:1] == draft.tokens[:1] and not first.done
    rest = Draft(draft.tokens[1:], draft.source)
    kept, accepted, tried = 0, int(agree), 1
    if agree and len(first.ids) < s.max_tokens:
        picked, lps = _choose(rows, s, [(first.ids, rest)])
        kept, more, checked = _accept(first, rest, picked, lps, s)
        accepted, tried = accepted + more, tried + checked
    s.draft.judged(draft, accepted, tried)
    s.progress.add(draft.source, len(draft.tokens), accepted)
    return kept


def _drafter(dm: DecodeModel, s: DecodeSettings) -> Drafter | None:
    """The settings' drafter where drafts can be verified: greedy decoding on an adapter that takes them."""
    return s.draft if dm.drafts and s.sampler is greedy else None


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
