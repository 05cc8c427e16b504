"""The engine facade: a loaded model, per-document caches and the scheduler, with no editor protocol in sight."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .cache import CacheStore
from .context import suffix_ids
from .decode import Cancelled, DecodeSettings, decode_branches, prefill_chunked
from .model import LoadedModel, ModelLoadError, Progress, load_model, warm_up
from .scheduler import Job, Scheduler
from .stats import RequestStats, StatsBook

log = logging.getLogger(__name__)


@dataclass
class EngineSettings:
    """Engine knobs; the server maps its `laya` configuration onto these."""

    candidates: int = 5
    max_tokens: int = 48
    context_tokens: int = 1024
    suffix_share: float = 0.25
    prefill_chunk: int = 128
    cache_budget_mb: float = 512.0
    debounce_ms: float = 30.0
    debounce_skip_tokens: int = 8
    max_queue: int = 4


@dataclass
class CompletionRequest:
    doc_id: str
    text: str
    offset: int  # index into `text` (Python str) of the cursor
    kind: str = "completion"
    candidates: int | None = None
    max_tokens: int | None = None
    max_lines: int = 1
    version: int | None = None
    debounce: bool = True
    # Background requests (speculation, warm-up) yield to every real one; max_tokens == 0 only prefills.
    background: bool = False
    source: str = "model"
    # Chunks of other files as (path, text), placed before the document so they stay cached.
    context: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Candidate:
    text: str
    logprob: float
    tokens: int


@dataclass
class CompletionResult:
    candidates: list[Candidate]
    stats: RequestStats
    version: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def trailing_blanks(prefix: str) -> str:
    """Spaces/tabs typed after code on the cursor's line ("return ", "x = ").

    Byte-level BPE tokenizers attach a space to the word after it, so a prompt ending in a lone space asks the
    model for a word without its space, which it almost never saw. The prompt leaves them out instead and the
    first token must start with them (token healing). Indentation alone on a line is left as it is."""
    stripped = prefix.rstrip(" \t")
    if len(stripped) == len(prefix):
        return ""
    line = stripped[stripped.rfind("\n") + 1 :]
    return prefix[len(stripped) :] if line.strip() else ""


class Engine:
    """Owns the model and caches; every model call happens on the scheduler's single worker thread."""

    def __init__(self, settings: EngineSettings | None = None) -> None:
        self.settings = settings or EngineSettings()
        self.scheduler = Scheduler(max_queue=self.settings.max_queue)
        self.stats = StatsBook()
        self.lm: LoadedModel | None = None
        self.caches: CacheStore | None = None
        self.load_error: str | None = None

    # -- model lifecycle ---------------------------------------------------------------------------------
    def load(self, spec: str | None, allow_download: bool = False, progress: Progress | None = None) -> LoadedModel:
        """Load (or reload) a model on the worker and warm it up. Raises ModelLoadError; the old model stays."""
        return self.start_load(spec, allow_download, progress).result()

    def start_load(self, spec: str | None, allow_download: bool = False,
                   progress: Progress | None = None) -> Future[LoadedModel]:
        """Queue a load on the worker now, without waiting: every job submitted after this call runs after the
        load (control calls go first), so it sees the new model or the load error, never no model at all."""

        def do_load() -> LoadedModel:
            try:
                lm = load_model(spec, allow_download, progress)
            except ModelLoadError as exc:
                self.load_error = str(exc)
                raise
            warm_up(lm, self.settings.prefill_chunk, self.settings.candidates, progress)
            self.lm = lm
            self.caches = CacheStore(lm.model, int(self.settings.cache_budget_mb * 2**20))
            self.load_error = None
            return lm

        return self.scheduler.call(do_load)

    def apply_settings(self, settings: EngineSettings) -> None:
        self.settings = settings
        self.scheduler.max_queue = max(1, settings.max_queue)

        def update() -> None:
            if self.caches is not None:
                self.caches.budget_bytes = int(settings.cache_budget_mb * 2**20)
                self.caches.enforce_budget()

        self.scheduler.call(update)

    def shutdown(self) -> None:
        """Stop the worker (cancelling running work) and wait for it, so MLX is idle at exit."""
        self.scheduler.stop()
        self.scheduler.join(timeout=10)

    # -- documents ---------------------------------------------------------------------------------------
    def close_document(self, doc_id: str) -> None:
        """Free the document's cache (on the worker, after any running job)."""
        self.scheduler.call(lambda: self.caches.drop(doc_id) if self.caches else None)

    def cache_bytes(self) -> dict[str, int]:
        fut = self.scheduler.call(lambda: self.caches.bytes_by_doc() if self.caches else {})
        return fut.result(timeout=30)

    def on_worker(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the inference worker (for other engine users, e.g. decisions) and wait for it."""
        return self.scheduler.call(fn).result()

    # -- completions -------------------------------------------------------------------------------------
    def complete(self, req: CompletionRequest) -> Job:
        """Queue a completion; the job's future resolves to a CompletionResult (empty when not run)."""
        st = self.stats.new(req.doc_id, req.kind)
        st.source = req.source
        job = Job(
            key=req.doc_id + ("\0background" if req.background else ""),
            background=req.background,
            run=lambda j: self._run(j, req, st),
            debounce_s=(self.settings.debounce_ms / 1000.0) if req.debounce else 0.0,
            probe=lambda j: self._probe(j, req),
            on_drop=lambda j, reason: self._dropped(j, st, reason, req),
        )
        return self.scheduler.submit(job)

    def _prompt(self, req: CompletionRequest) -> list[int]:
        assert self.lm is not None and self.caches is not None
        s, b = self.settings, self.lm.builder
        doc = self.caches.get(req.doc_id)
        offset = max(0, min(req.offset, len(req.text)))
        prefix, suffix = req.text[:offset], req.text[offset:]
        heal = trailing_blanks(prefix)
        prefix = prefix[: len(prefix) - len(heal)]
        suf_budget = int(s.context_tokens * s.suffix_share) if self.lm.fim.has_fim else 0
        suf = suffix_ids(b, suffix, suf_budget)
        ctx = b.repo_context(req.context, req.doc_id, s.context_tokens // 2) if req.context else []
        pre, _start = doc.window.prefix_ids(b, prefix, s.context_tokens - len(suf) - len(ctx) - 4)
        return b.build(pre, suf, ctx).ids

    def _probe(self, job: Job, req: CompletionRequest) -> bool:
        if self.lm is None or self.caches is None:
            return True
        job.prepared = self._prompt(req)
        doc = self.caches.get(req.doc_id)
        return len(job.prepared) - doc.reusable(job.prepared) <= self.settings.debounce_skip_tokens

    def _dropped(self, job: Job, st: RequestStats, reason: str, req: CompletionRequest) -> CompletionResult:
        st.status = reason if reason in ("cancelled", "superseded", "dropped") else "cancelled"
        if job.started is None:
            st.queue_ms = (time.perf_counter() - job.created) * 1000
        st.total_ms = (time.perf_counter() - job.created) * 1000
        self.stats.record(st)
        return CompletionResult([], st, req.version)

    def _run(self, job: Job, req: CompletionRequest, st: RequestStats) -> CompletionResult:
        t_start = job.started or time.perf_counter()
        st.queue_ms = (t_start - job.created - job.debounced_s) * 1000
        st.debounce_ms = job.debounced_s * 1000
        if self.lm is None or self.caches is None:
            st.status, st.source = "error", "none"
            st.error = self.load_error or "no model loaded"
            self.stats.record(st)
            return CompletionResult([], st, req.version)
        lm, s = self.lm, self.settings
        try:
            prompt = job.prepared if job.prepared is not None else self._prompt(req)
            doc = self.caches.get(req.doc_id)
            st.prompt_tokens = len(prompt)
            st.prompt_hash = format(hash(tuple(prompt)) & 0xFFFFFFFFFFFF, "x")
            st.reused_tokens = min(doc.reusable(prompt), len(prompt) - 1)
            pre = prefill_chunked(lm.model, doc, prompt, s.prefill_chunk, job.token)
            st.reused_tokens, st.prefill_ms = pre.reused, pre.ms
            if req.max_tokens == 0:  # warm-up: the cache now covers the prompt; nothing to decode
                self.caches.enforce_budget(keep=req.doc_id)
                st.total_ms = (time.perf_counter() - job.created) * 1000
                self.stats.record(st)
                return CompletionResult([], st, req.version)
            t_dec = time.perf_counter()
            dec = DecodeSettings(
                k=req.candidates or s.candidates,
                max_tokens=req.max_tokens if req.max_tokens is not None else s.max_tokens,
                max_lines=max(1, req.max_lines),
                stop_ids=lm.stop_ids,
            )
            heal = trailing_blanks(req.text[: max(0, min(req.offset, len(req.text)))])
            first = lm.heal_first_logits(pre.logits, heal) if heal else pre.logits

            def decoded() -> None:  # counted as it goes, so a cancelled record shows how far decoding got
                st.decode_tokens += 1

            branches = decode_branches(lm.model, doc, first, dec, lm.newline_ids, job.token, lm.blank_ids,
                                       on_token=decoded)
            st.decode_ms = (time.perf_counter() - t_dec) * 1000
            st.decode_tokens = max((len(b.ids) for b in branches), default=0)
            self.caches.enforce_budget(keep=req.doc_id)
        except Cancelled:
            raise  # recorded by _dropped, with the partial prefill already counted in `st`
        except Exception as exc:
            # The caller gets the exception; the stats keep its cause, so a long run can tell what failed.
            st.status, st.source, st.error = "error", "none", f"{type(exc).__name__}: {exc}"
            st.total_ms = (time.perf_counter() - job.created) * 1000
            self.stats.record(st)
            raise
        cands = self._candidates(branches, heal)
        st.candidates = len(cands)
        st.total_ms = (time.perf_counter() - job.created) * 1000
        self.stats.record(st)
        return CompletionResult(cands, st, req.version)

    def _candidates(self, branches: list, heal: str = "") -> list[Candidate]:
        """Decoded raw texts, best first, without blanks or repeats (line cutting is the syntax layer's job).

        With `heal`, the prompt left out the blanks typed before the cursor and the first token was made to
        start with them; they are already in the document, so they come off the text again."""
        assert self.lm is not None
        out: list[Candidate] = []
        seen: set[str] = set()
        for b in sorted(branches, key=lambda b: -b.logprob):
            text = self.lm.decode(b.ids)
            if heal:
                n = 0
                while n < len(heal) and n < len(text) and text[n] == heal[n]:
                    n += 1
                text = text[n:]
            if not text.strip() or text in seen:
                continue
            seen.add(text)
            out.append(Candidate(text, b.logprob, len(b.ids)))
        return out
