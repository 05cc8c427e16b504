"""Model work for callers outside engine/ (decisions, code actions): one job on the inference worker, one handle.

`Engine.submit_work(kind, doc_id, work)` runs `work(model)` on the single inference worker, where `model` is a
`ModelWork`: the loaded model's tokenizer and prompt layout, and the three model operations decisions need
(score a closed set of continuations, generate k branches at a cursor, decode under a logits processor). Each
reuses the document's cache without destroying it (decoding/score.py `borrow`), or, without a document, the KV
state of the longest prefix of its prompt asked before (caches/prompt_caches.py `ContextCache`), and adds its
cost to the request's stats record. The model object, the cache store and the scheduler never leave the
engine.

Decision jobs never share a scheduler key with completions: typing in a document supersedes its pending
completion but not a decision the user asked for. With `latest_wins`, a newer job of the same kind for the same
document supersedes the older one (code actions: the user has moved on); otherwise every job gets its own key.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import mlx.core as mx

from ..caches.context_window import ContextWindow, fim_prompt
from ..caches.prompt_caches import CacheStore, ContextCache, DocumentCache
from ..decoding.decode import Cancelled, CancelToken, DecodeSettings, decode_branches, prefill_chunked
from ..decoding.score import ConstrainedResult, ScoreResult, borrow, constrained_decode, score_options
from ..decoding.stop import LineStop
from ..loading.model import LoadedModel
from ..loading.tokenizer import whole_characters
from ..requests import Candidate, EngineSettings
from ..timings import ENDED, Meter, Status, Timings
from .scheduler import Job

T = TypeVar("T")
_job_numbers = itertools.count(1)


class ModelUnavailable(RuntimeError):
    """No model is loaded (the load failed, or none has finished yet)."""


class WorkFailed(RuntimeError):
    """Work raised on the worker: the exception (`error`, also the cause) and the job's timings up to then."""

    def __init__(self, error: Exception, timings: Timings) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error
        self.timings = timings


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


@dataclass(frozen=True)
class WorkResult(Generic[T]):
    """What a work job's future resolves to: the work's value (None when cancelled, superseded or dropped)
    and what the job cost (the caller books the request's record)."""

    value: T | None
    timings: Timings


class ModelWork:
    """What work running on the inference worker may do with the model and (optionally) one document's cache."""

    def __init__(self, lm: LoadedModel, document: Callable[[], DocumentCache] | None, token: CancelToken,
                 meter: Meter, prefill_chunk: int, suffix_share: float, contexts: ContextCache | None = None) -> None:
        self._lm = lm
        self._document = document
        self._contexts = contexts
        self._token = token
        self.meter = meter  # this job's timings so far; work may set what only it knows (e.g. tokens kept)
        self._chunk = prefill_chunk
        self._suffix_share = suffix_share

    # -- the model, read-only ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._lm.name

    @property
    def path(self) -> str:
        return self._lm.path

    @property
    def has_fim(self) -> bool:
        return self._lm.fim.has_fim

    @property
    def eos_id(self) -> int | None:
        return self._lm.tokenizer.eos_token_id

    @property
    def vocab_size(self) -> int:
        return int(self._lm.config.get("vocab_size") or len(self._lm.tokenizer))

    @property
    def tokenizer(self) -> Any:
        """The model's tokenizer (grammar libraries build their own view of it from its `to_json()`)."""
        return self._lm.tokenizer

    @property
    def token_texts(self) -> list[str]:
        """Each token's text, by id (the table built at load)."""
        return self._lm.token_texts

    def encode(self, text: str) -> list[int]:
        return self._lm.builder.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._lm.decode(ids)

    @property
    def frame_tokens(self) -> int:
        """Tokens `build` adds around prefix and suffix (see PromptBuilder.frame_tokens)."""
        return self._lm.builder.frame_tokens

    def build(self, prefix: list[int], suffix: list[int], layout: str | None = None) -> list[int]:
        """A prompt in the model's FIM layout (`layout="prefix"`: the prefix alone)."""
        return self._lm.builder.build(prefix, suffix, layout=layout).ids

    def fim_prompt(self, text: str, offset: int, budget: int) -> list[int]:
        """The prompt a completion at `offset` would get (`context_window.fim_prompt`: the document's sliding
        window, no cross-file context)."""
        window = self._document().window if self._document else ContextWindow()
        suf_budget = int(budget * self._suffix_share) if self.has_fim else 0
        return fim_prompt(self._lm.builder, window, text[:offset], text[offset:], budget, suf_budget) or [
            self.eos_id or 0]

    # -- model operations (each checks the cancel token and adds to the job's timings) ---------------------
    def score(self, prompt: list[int], options: list[list[int]], in_document: bool = True) -> ScoreResult:
        """Log-likelihood of each option after `prompt`, in one batch (see decoding/score.py)."""
        doc = self._document() if self._document and in_document else None
        res = score_options(self._lm, doc, prompt, options, self._token, self._chunk, self._contexts)
        self._count(len(prompt), res.reused_tokens, res.prefill_ms, 0, res.score_ms)
        return res

    def generate(self, prompt: list[int], k: int, max_tokens: int, max_lines: int) -> list[Candidate]:
        """k greedy branches after `prompt`, best first (raw text: no cleaning)."""
        lm = self._lm
        cache = borrow(lm, self._document() if self._document else None, prompt)
        pre = prefill_chunked(lm.model, cache, prompt, self._chunk, self._token)
        t0 = time.perf_counter()
        stop = LineStop(max_lines, frozenset(lm.stop_ids), lm.newline_ids, lm.blank_ids, lm.bracket_depths)
        branches = decode_branches(lm.model, cache, pre.logits, DecodeSettings(k, max_tokens, stop), self._token)
        out = [Candidate(whole_characters(lm.decode(br.ids)), br.logprob, len(br.ids)) for br in branches]
        self._count(len(prompt), pre.reused, pre.ms, max((c.tokens for c in out), default=0),
                    (time.perf_counter() - t0) * 1000)
        return sorted(out, key=lambda c: -c.logprob)

    def constrained(self, prompt: list[int], allowed: Callable[[list[int]], Any], stop: Callable[[int], bool],
                    max_tokens: int) -> ConstrainedResult:
        """Greedy decoding after `prompt` where only the tokens `allowed(tokens so far)` marks (a bool array over
        the vocabulary, e.g. a grammar's) may come next; `stop(token)` ends it (see decoding/score.py)."""

        def mask(tokens: mx.array, logits: mx.array) -> mx.array:
            so_far: list[int] = tokens.tolist()  # type: ignore[assignment]
            return mx.where(mx.array(allowed(so_far))[None], logits, -mx.inf)

        res = constrained_decode(self._lm, None, prompt, mask, stop, max_tokens, self._token, self._chunk,
                                 self._contexts)
        self._count(len(prompt), res.reused_tokens, res.prefill_ms, len(res.ids), res.decode_ms)
        return res

    def _count(self, prompt: int, reused: int, prefill_ms: float, decoded: int, decode_ms: float) -> None:
        self.meter.add(prompt_tokens=prompt, reused_tokens=reused, prefill_ms=prefill_ms, decode_tokens=decoded,
                       decode_ms=decode_ms)


class ModelHolder(Protocol):
    """What a work job reads of the engine when it starts (the `Engine` facade is one): the model, the caches,
    why no model is loaded, the settings."""

    lm: LoadedModel | None
    caches: CacheStore | None
    load_error: str | None
    settings: EngineSettings


def work_job(engine: ModelHolder, kind: str, doc_id: str | None, work: Callable[[ModelWork], Any],
             latest_wins: bool) -> Job:
    """The scheduler job that runs `work` (see `Engine.submit_work`)."""
    key = f"{doc_id}#{kind}" if doc_id and latest_wins else f"{doc_id or ''}#{kind}-{next(_job_numbers)}"
    st = Meter()

    def run(job: Job) -> WorkResult[Any]:
        st.set(queue_ms=((job.started or time.perf_counter()) - job.created) * 1000)
        lm, caches = engine.lm, engine.caches
        if lm is None or caches is None:
            raise ModelUnavailable(engine.load_error or "no model loaded")
        document = (lambda: caches.get(doc_id)) if doc_id else None
        model = ModelWork(lm, document, job.token, st, engine.settings.prefill_chunk, engine.settings.suffix_share,
                          caches.contexts)
        try:
            value = work(model)
            caches.enforce_budget(keep=doc_id)
        except Cancelled:
            raise  # answered by `dropped`
        except Exception as exc:
            cause = f"{type(exc).__name__}: {exc}"
            raise WorkFailed(exc, st.timings(Status.ERROR, cause, total_ms=_ms_since(job.created))) from exc
        return WorkResult(value, st.timings(total_ms=_ms_since(job.created)))

    def dropped(job: Job, reason: str) -> WorkResult[Any]:
        return WorkResult(None, st.timings(ENDED.get(reason, Status.CANCELLED), total_ms=_ms_since(job.created)))

    return Job(key=key, run=run, on_drop=dropped)
