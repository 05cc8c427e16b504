"""The engine facade: a loaded model, per-document caches and the scheduler, with no editor protocol in sight."""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

import mlx.core as mx

from ..device import Where, device_defaults, mlx_device_kind, use_compile, use_device
from .caches.context_window import fim_prompt
from .caches.prompt_caches import CacheStore
from .decoding.adapter import DecodeModel, Work, decode_model
from .decoding.decode import (
    Branch,
    Cancelled,
    DecodeSettings,
    LogitsProcessor,
    complete_steps,
    warm_steps,
)
from .decoding.draft import DraftBook
from .decoding.healing import trailing_blanks
from .decoding.names import deferred_steering
from .decoding.stop import LineStop, Verdict
from .loading.model import LoadedModel, ModelLoadError, Progress, WarmPlan, load_model, warm_pieces, warm_up
from .loading.tokenizer import token_ends, whole_characters
from .requests import Candidate, CompletionRequest, CompletionResult, EngineSettings, JobFailed, ModelInfo
from .scheduling.scheduler import Job, Scheduler
from .scheduling.work import ModelWork, work_job
from .timings import ENDED, Meter, Status

log = logging.getLogger(__name__)


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


class Engine:
    """Owns the model and caches; every model call happens on the scheduler's single worker thread."""

    def __init__(self, settings: EngineSettings | None = None) -> None:
        self.settings = settings or EngineSettings()
        self.scheduler = Scheduler(max_queue=self.settings.max_queue, max_in_flight=self.settings.max_in_flight)
        self.lm: LoadedModel | None = None
        self.decoder: DecodeModel | None = None
        self.caches: CacheStore | None = None
        self.load_error: str | None = None
        self.device = ""  # where the loaded model runs (device.DeviceKind)
        self.compiled = True  # whether its steps run `mx.compile`d (not while MLX's first compile runs elsewhere)
        self.warmed: WarmPlan | None = None  # what the loaded model was warmed up for (or is, when idle)
        self.drafts = DraftBook(self.settings.draft_tokens)  # acceptance per draft source, last answers

    # -- model lifecycle ---------------------------------------------------------------------------------
    def load(self, spec: str | None, allow_download: bool = False, progress: Progress | None = None) -> ModelInfo:
        """Load (or reload) a model on the worker and warm it up, waiting for both (`finish_warm_up`). Raises
        ModelLoadError; the old model stays."""
        self.start_load(spec, allow_download, progress).result()
        self.finish_warm_up()
        info = self.model_info()
        assert info is not None
        return info

    def start_load(self, spec: str | None, allow_download: bool = False,
                   progress: Progress | None = None, device: Where | None = None,
                   eager: bool = False) -> Future[LoadedModel]:
        """Queue a load on the worker now, without waiting: every job submitted after this call runs after the
        load (control calls go first), so it sees the new model or the load error, never no model at all. On
        the CPU, warm-up is left for when the worker is idle after the first answer (`_warm_model`). `device`
        puts the model (and all the work after it) on the CPU or the GPU; None keeps MLX's default. `eager`:
        without `mx.compile` until `compile_from_now` (first_compile.py: while MLX's first compile runs elsewhere)."""

        def do_load() -> LoadedModel:
            use_compile(not eager)
            try:
                kind = use_device(device) if device is not None else mlx_device_kind()
            except ValueError as exc:  # no GPU
                self.load_error = f"device {device!r}: {exc}"
                raise ModelLoadError(self.load_error) from exc
            try:
                lm = load_model(spec, allow_download, progress)
            except ModelLoadError as exc:
                self.load_error = str(exc)
                raise
            self.warmed = None
            self._warm_model(lm, progress)
            self.lm, self.decoder = lm, decode_model(lm.model)
            self.scheduler.batch = self._batch
            self.caches = CacheStore(lm.model, int(self.settings.cache_budget_mb * 2**20))
            self.drafts = DraftBook(self.settings.draft_tokens)
            self.device, self.compiled = kind, not eager
            self.load_error = None
            if progress is not None:
                progress("ready", 100)
            return lm

        return self.scheduler.call(do_load)

    def compile_from_now(self) -> None:
        """Run compiled code from the next job on (a load started `eager`; MLX's first compile is done)."""
        def compile_on() -> None:
            use_compile(True)
            self.compiled = True

        self.scheduler.call(compile_on)

    def finish_warm_up(self) -> None:
        """Run the warm-up (and token trie) left for idle moments now, and wait for it: for tools that time
        requests from the first one on (a server leaves it for when it is idle, `_warm_model`)."""
        self.scheduler.call(self.scheduler.run_idle_work).result()

    def apply_settings(self, settings: EngineSettings) -> None:
        self.settings = settings
        self.scheduler.max_queue = max(1, settings.max_queue)
        self.scheduler.max_in_flight = max(1, settings.max_in_flight)
        self.drafts.policy.max_draft = settings.draft_tokens

        def update() -> None:
            if self.caches is not None:
                self.caches.budget_bytes = int(settings.cache_budget_mb * 2**20)
                self.caches.enforce_budget()
            if self.lm is not None:
                self._warm_model(self.lm)  # settings that change what warm-up covers (k, prompt chunk, fixed shapes)

        self.scheduler.call(update)

    def _warm_model(self, lm: LoadedModel, progress: Progress | None = None) -> None:
        """Warm `lm` up for the settings in force, unless that is done (on the worker). Fixed shapes (the GPU
        default): now, before any request, since a new shape stalls the device. Otherwise a trace costs a few ms
        and the first request barely gains from it (~10 ms of ~350 on a 2-core CPU), while warm-up and the token
        trie are ~0.2 s of Python that would compete with the front's start-up: they run piece by piece when the
        worker is idle, after the first answer (Scheduler.when_idle)."""
        plan = self.settings.warm_plan(device_defaults(mlx_device_kind()).fixed_shapes)
        if plan == self.warmed:
            return
        self.warmed = plan
        self.scheduler.drop_idle()
        if plan.fixed:
            warm_up(lm, plan, progress)
        else:
            pieces = warm_pieces(lm, plan)
            self.scheduler.when_idle(lambda: self.lm is lm and next(pieces, None) is not None)

        trie = lm.token_trie_pieces()
        self.scheduler.when_idle(lambda: self.lm is lm and next(trie, None) is not None)

    def shutdown(self) -> None:
        """Stop the worker (cancelling running work) and wait for it, so MLX is idle at exit."""
        self.scheduler.stop()
        self.scheduler.join(timeout=10)

    # -- documents ---------------------------------------------------------------------------------------
    def close_document(self, doc_id: str) -> None:
        """Free the document's cache (on the worker, after any running job)."""

        def drop() -> None:
            self.drafts.forget(doc_id)
            if self.caches:
                self.caches.drop(doc_id)

        self.scheduler.call(drop)

    # -- the facade for callers outside engine/ (with load, apply_settings, shutdown, close_document and
    # complete above): nothing else of the engine is reached from outside ----------------------------------
    def model_info(self) -> ModelInfo | None:
        """The loaded model, or None while none is loaded (see `load_error` for why)."""
        lm = self.lm
        if lm is None:
            return None
        return ModelInfo(lm.name, lm.path, lm.n_params, lm.dtype, lm.fim.name, lm.fim.preferred_layout,
                         lm.builder.repo_level, dict(lm.timings), self.device, self.compiled)

    def cancel(self, job: Job) -> None:
        """Cancel a job: a queued one is answered at once, a running one stops at its next check."""
        self.scheduler.cancel(job)

    def submit_work(self, kind: str, doc_id: str | None, work: Callable[[ModelWork], Any],
                    latest_wins: bool = False) -> Job:
        """Run `work(model)` on the inference worker (decisions, code actions); the job's future resolves to a
        `WorkResult`, or raises `ModelUnavailable` without a model. With `doc_id`, `model` reuses that
        document's cache; `latest_wins` lets a newer job of the same kind and document supersede this one."""
        return self.scheduler.submit(work_job(self, kind, doc_id, work, latest_wins))

    def prompt_for(self, req: CompletionRequest) -> list[int]:
        """The token ids `req` would be sent to the model as now, without running it (the document's window
        moves as the request's would): benchmarks replay exactly these prompts through other systems."""
        return self.scheduler.call(lambda: self._prompt(req)).result()

    def measure_caches(self) -> Future:
        """Cache sizes, read on the worker (after any running job): a future of {"documents": {doc_id: bytes},
        "contexts": {"prompts": n, "bytes": b}} (the prompts kept without a document, cache.ContextCache)."""

        def sizes() -> dict[str, Any]:
            c = self.caches
            return {"documents": c.bytes_by_doc() if c else {},
                    "contexts": {"prompts": len(c.contexts) if c else 0, "bytes": c.contexts.nbytes if c else 0}}

        return self.scheduler.call(sizes)

    def queue_state(self) -> dict[str, Any]:
        """The scheduler's queue as `laya/stats` reports it; `runningTokens`: the prompt tokens the running job's
        document cache covers now (a long prefill's progress, read off the worker: a list's length)."""
        s = self.scheduler
        running = s.running_key()
        cache = self.caches.peek(re.split("[#\0]", running, maxsplit=1)[0]) if running and self.caches else None
        return {"queued": s.queued(), "running": running, "runningTokens": len(cache.ids) if cache else 0,
                "dropped": s.dropped, "superseded": s.superseded}

    def step_traces(self) -> dict[str, Any]:
        """The compiled step's new shapes so far (step.CompiledStep.report); none without the step."""
        step = getattr(self.decoder, "step", None)
        return step.report() if step is not None else {"traces": 0, "warmUpTraces": 0, "fixed": False, "last": []}

    @property
    def evictions(self) -> int:
        """Documents whose cache was evicted to stay within the byte budget, so far."""
        return self.caches.evictions if self.caches else 0

    # -- completions ---------------------------------------------------------------------------------------
    def complete(self, req: CompletionRequest) -> Job:
        """Queue a completion; the job's future resolves to a CompletionResult (empty when not run)."""
        return self._submit(req, lambda j, st: self._completion(j, req, st))

    def prefill(self, req: CompletionRequest) -> Job:
        """Queue a warm-up: bring the document's cache to cover the request's prompt, decoding nothing.

        The future resolves to a CompletionResult without candidates."""
        return self._submit(req, lambda j, st: self._warm(j, req, st))

    def _submit(self, req: CompletionRequest, steps: Callable[[Job, Meter], Any]) -> Job:
        st = Meter()
        job = Job(
            key=req.doc_id + ("\0background" if req.background else ""),
            background=req.background,
            run=lambda j: self._recording_errors(j, st, steps(j, st)),
            debounce_s=(self.settings.debounce_ms / 1000.0) if req.debounce else 0.0,
            probe=lambda j: self._probe(j, req),
            on_drop=lambda j, reason: self._dropped(j, st, reason, req),
        )
        return self.scheduler.submit(job)

    def _recording_errors(self, job: Job, st: Meter, steps: Any) -> Generator[Work | None, Any, Any]:
        """Run a request's steps; one that fails raises JobFailed with its cause and timings (the orchestrator
        books it), so a long run can tell what failed."""
        try:
            return (yield from steps)
        except Cancelled:
            raise  # answered by _dropped
        except Exception as exc:
            cause = f"{type(exc).__name__}: {exc}"
            raise JobFailed(cause, st.timings(Status.ERROR, cause, total_ms=_ms_since(job.created))) from exc

    def _batch(self, work: list[Work]) -> list[mx.array]:
        """The scheduler's round: every in-flight request's work in one step, started at once (each request
        waits only for its own part when it reads it)."""
        assert self.decoder is not None
        out = self.decoder.forward(work)
        mx.async_eval(out)
        return out

    def _prompt(self, req: CompletionRequest) -> list[int]:
        assert self.lm is not None and self.caches is not None
        if req.prompt_ids is not None:
            return req.prompt_ids
        s, b = self.settings, self.lm.builder
        doc = self.caches.get(req.doc_id)
        offset = max(0, min(req.offset, len(req.text)))
        prefix, suffix = req.text[:offset], req.text[offset:]
        heal = trailing_blanks(prefix)
        prefix = prefix[: len(prefix) - len(heal)]
        suf_budget = int(s.context_tokens * s.suffix_share) if self.lm.fim.has_fim else 0
        ctx = b.repo_context(req.context, req.doc_id, s.context_tokens // 2) if req.context else []
        return fim_prompt(b, doc.window, prefix, suffix, s.context_tokens, suf_budget, ctx)

    def _probe(self, job: Job, req: CompletionRequest) -> bool:
        if self.lm is None or self.caches is None:
            return True
        job.prepared = self._prompt(req)
        doc = self.caches.get(req.doc_id)
        return len(job.prepared) - doc.reusable(job.prepared) <= self.settings.debounce_skip_tokens

    def _dropped(self, job: Job, st: Meter, reason: str, req: CompletionRequest) -> CompletionResult:
        if job.started is None:
            st.set(queue_ms=_ms_since(job.created))
        timings = st.timings(ENDED.get(reason, Status.CANCELLED), total_ms=_ms_since(job.created),
                             shared_steps=job.shared_steps)
        return CompletionResult([], timings, req.version)

    def _started(self, job: Job, req: CompletionRequest, st: Meter) -> list[int] | None:
        """Common start of a request on the worker: its timings so far and its prompt (None: no model)."""
        t_start = job.started or time.perf_counter()
        st.set(queue_ms=(t_start - job.created - job.debounced_s) * 1000, debounce_ms=job.debounced_s * 1000)
        if self.lm is None or self.caches is None:
            return None
        prompt = job.prepared if job.prepared is not None else self._prompt(req)
        st.set(prompt_tokens=len(prompt), prompt_hash=format(hash(tuple(prompt)) & 0xFFFFFFFFFFFF, "x"),
               reused_tokens=min(self.caches.get(req.doc_id).reusable(prompt), len(prompt) - 1))
        return prompt

    def _no_model(self, st: Meter, req: CompletionRequest) -> CompletionResult:
        return CompletionResult([], st.timings(Status.ERROR, self.load_error or "no model loaded"), req.version)

    def _finished(self, job: Job, req: CompletionRequest, st: Meter, cands: list[Candidate],
                  extra: dict[str, Any] | None = None) -> CompletionResult:
        assert self.caches is not None
        self.caches.enforce_budget(keep=req.doc_id)
        timings = st.timings(shared_steps=job.shared_steps, total_ms=_ms_since(job.created))
        return CompletionResult(cands, timings, req.version, extra or {})

    def _warm(self, job: Job, req: CompletionRequest, st: Meter) -> Generator[Work | None, Any, CompletionResult]:
        prompt = self._started(job, req, st)
        if prompt is None:
            return self._no_model(st, req)
        assert self.caches is not None and self.decoder is not None
        doc = self.caches.get(req.doc_id)
        pre = yield from warm_steps(self.decoder, doc, prompt, job.token, self.settings.prefill_chunk)
        st.set(reused_tokens=pre.reused, prefill_ms=pre.ms)
        return self._finished(job, req, st, [])

    def _completion(self, job: Job, req: CompletionRequest,
                    st: Meter) -> Generator[Work | None, Any, CompletionResult]:
        prompt = self._started(job, req, st)
        if prompt is None:
            return self._no_model(st, req)
        assert self.lm is not None and self.caches is not None and self.decoder is not None
        lm, s = self.lm, self.settings
        heal = trailing_blanks(req.text[: max(0, min(req.offset, len(req.text)))])
        line_stop = LineStop(max(1, req.max_lines), frozenset(lm.stop_ids), lm.newline_ids, lm.blank_ids,
                             lm.bracket_depths, req.outer_close, lm.token_texts)

        def stop(ids: list[int], token: int) -> Verdict:  # counts as it goes: a cancelled record shows how far
            if len(ids) + 1 > st.now.decode_tokens:
                st.set(decode_tokens=len(ids) + 1)
            return line_stop(ids, token)

        steering: dict[str, Any] = {}  # whether names came in time to steer (for the request's record)
        dec = DecodeSettings(
            k=req.candidates or s.candidates,
            max_tokens=req.max_tokens if req.max_tokens is not None else s.max_tokens,
            stop=stop,
            logits_processors=([self._healing(heal)] if heal else []) + self._steering(req, steering),
            draft=self.drafts.drafter(req.doc_id, prompt, self.caches.prompts_except(req.doc_id),
                                      req.candidates or s.candidates),
        )
        doc = self.caches.get(req.doc_id)
        try:
            out = yield from complete_steps(self.decoder, doc, prompt, dec, job.token, s.prefill_chunk)
        finally:  # a superseded run's partial answer is still a draft for the next keystroke
            self.drafts.answered(req.doc_id, prompt, [b.ids for b in dec.progress.branches])
        c = dec.progress
        st.set(reused_tokens=out.reused, prefill_ms=out.prefill_ms, decode_ms=out.decode_ms,
               decode_tokens=max((len(b.ids) for b in out.branches), default=0), decode_steps=c.steps,
               draft_tokens=c.drafted, accepted_tokens=c.accepted)
        extra = {"drafts": {k: list(v) for k, v in c.by_source.items()}} if c.by_source else {}
        extra.update(steering)
        return self._finished(job, req, st, self._candidates(out.branches, req.text, heal), extra)

    def _healing(self, heal: str) -> LogitsProcessor:
        """The first token must start with the blanks the prompt left out (see `trailing_blanks`)."""
        assert self.lm is not None
        lm = self.lm

        def process(history: mx.array, logits: mx.array) -> mx.array:
            return lm.heal_first_logits(logits, heal) if history.shape[1] == 0 else logits

        return process

    def _steering(self, req: CompletionRequest, record: dict[str, Any]) -> list[LogitsProcessor]:
        """`req`'s name steering (engine/decoding/names.py `deferred_steering`), none without names."""
        assert self.lm is not None
        if req.names is None:
            return []
        lm = self.lm
        return [deferred_steering(req.names, lambda: lm.token_trie, lm.token_texts, record)]

    def _candidates(self, branches: list[Branch], document: str, heal: str = "") -> list[Candidate]:
        """Decoded raw texts, best first, without blanks or repeats (line cutting is the syntax layer's job),
        cut before bytes that form no character (`whole_characters`).

        With `heal`, the prompt left out the blanks typed before the cursor and the first token was made to
        start with them; they are already in the document, so they come off the text again."""
        assert self.lm is not None
        out: list[Candidate] = []
        seen: set[str] = set()
        for b in sorted(branches, key=lambda b: -b.logprob):
            if b.logprob == -math.inf:  # started on a token name steering ruled out (fewer names than branches)
                continue
            text = whole_characters(self.lm.decode(b.ids), document)
            n = 0
            while n < len(heal) and n < len(text) and text[n] == heal[n]:
                n += 1
            if not text[n:].strip() or text[n:] in seen:
                continue
            seen.add(text[n:])
            ends = token_ends(b.ids, text, self.lm.token_texts, self.lm.decode)
            out.append(Candidate(text, b.logprob, len(b.ids), list(b.logprobs[: len(ends)]), ends).trimmed(n))
        return out
