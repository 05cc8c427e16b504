"""The engine facade: a loaded model, per-document caches and the scheduler, with no editor protocol in sight."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

import mlx.core as mx

from ..device import Where, device_defaults, mlx_device_kind, use_compile, use_device
from .caches.prompt_caches import CacheBudget, CacheStore, DocumentCache
from .completing import CompletionSteps, ms_since
from .decoding.adapter import Extend, Work, decode_model
from .decoding.decode import Cancelled
from .decoding.draft import DraftBook
from .loading.model import LoadedModel, ModelLoadError, Progress, load_model, warm_pieces, warm_up
from .providers import CompileSwitch, PauseLoads, PendingLoad, Provider, stepped_with
from .requests import CompletionRequest, EngineSettings, JobFailed, ModelInfo
from .scheduling.scheduler import Job, Scheduler
from .scheduling.work import ModelWork, work_job
from .tiers import PauseState, Tier
from .timings import Meter, Status

log = logging.getLogger(__name__)


class Engine:
    """Owns the models (one per tier: tiers.py) and their caches; every model call happens on the scheduler's
    single worker thread. `lm`, `decoder`, `caches`, `drafts`, `compiled`, `warmed` and `load_error` are the
    keystroke tier's; `pause` is the pause tier's provider."""

    def __init__(self, settings: EngineSettings | None = None) -> None:
        self.settings = settings or EngineSettings()
        self.scheduler = Scheduler(max_queue=self.settings.max_queue, max_in_flight=self.settings.max_in_flight)
        self.budget = CacheBudget(int(self.settings.cache_budget_mb * 2**20))  # one budget over both tiers' caches
        # acceptance per draft source, last answers (the pause tier shares it when its vocabulary is the same)
        self.keystroke = Provider(Tier.KEYSTROKE, DraftBook(self.settings.draft_tokens))
        self.pause = Provider(Tier.PAUSE, DraftBook(self.settings.draft_tokens))
        self.tiers = {Tier.KEYSTROKE: self.keystroke, Tier.PAUSE: self.pause}
        self.pause_loads = PauseLoads(self)
        self.steps = CompletionSteps(self)
        self.device = ""  # where the loaded model runs (device.DeviceKind)

    # the keystroke tier's parts, as callers inside engine/ (work.py) and tests read them
    lm = property(lambda self: self.keystroke.lm)
    decoder = property(lambda self: self.keystroke.decoder)
    caches = property(lambda self: self.keystroke.caches)
    drafts = property(lambda self: self.keystroke.drafts)
    compiled = property(lambda self: self.keystroke.compiled)
    warmed = property(lambda self: self.keystroke.warmed)

    @property
    def load_error(self) -> str | None:
        return self.keystroke.load_error

    @load_error.setter
    def load_error(self, error: str | None) -> None:
        self.keystroke.load_error = error

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
            k = self.keystroke
            try:
                kind = use_device(device) if device is not None else mlx_device_kind()
            except ValueError as exc:  # no GPU
                k.load_error = f"device {device!r}: {exc}"
                raise ModelLoadError(k.load_error) from exc
            try:
                lm = load_model(spec, allow_download, progress)
            except ModelLoadError as exc:
                k.load_error = str(exc)
                raise
            k.warmed = None
            self._warm_model(lm, progress)
            k.lm, k.decoder = lm, decode_model(lm.model)
            self.scheduler.batch = self._batch
            k.caches = CacheStore(lm.model, int(self.settings.cache_budget_mb * 2**20), Tier.KEYSTROKE, self.budget)
            k.drafts = DraftBook(self.settings.draft_tokens)
            self.device, k.compiled = kind, not eager
            k.load_error = None
            self.pause_loads.again()  # on the new device, sharing the new drafts
            if progress is not None:
                progress("ready", 100)
            return lm

        return self.scheduler.call(do_load)

    def compile_from_now(self) -> None:
        """Run compiled code from the next job on (a load started `eager`; MLX's first compile is done)."""
        def compile_on() -> None:
            use_compile(True)
            self.keystroke.compiled = True

        self.scheduler.call(compile_on)

    def compile_pause_from_now(self) -> None:
        """Run the pause tier's steps compiled from its next job on (its first compile is marked done)."""
        def compile_on() -> None:
            self.pause.compiled = True

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
            self.budget.budget_bytes = int(settings.cache_budget_mb * 2**20)
            self.budget.enforce()
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
        self.keystroke.warmed = plan
        self.scheduler.drop_idle()
        if plan.fixed:
            warm_up(lm, plan, progress)
        else:
            pieces = warm_pieces(lm, plan)
            self.scheduler.when_idle(lambda: self.lm is lm and next(pieces, None) is not None)

        trie = lm.token_trie_pieces()
        self.scheduler.when_idle(lambda: self.lm is lm and next(trie, None) is not None)
        self.pause_loads.warm()  # (dropped with the rest)

    # -- the pause tier ------------------------------------------------------------------------------------
    def start_pause_load(self, spec: str | None, allow_download: bool = False, eager: bool = False) -> Future:
        """Ask for the pause tier's model (a directory or repo id; None: no pause tier, the one loaded is dropped).
        Its load waits until the worker is idle after a keystroke answer (or a pause-tier request needs it), so
        it never delays the keystroke model's load or answers; `eager`: its steps run without `mx.compile` until
        `compile_pause_from_now`. The future resolves to its ModelInfo (None: no pause tier) or the load's
        ModelLoadError."""
        pending = PendingLoad(spec or "", allow_download, eager)
        def ask() -> None:
            self.pause_loads.ask(pending if spec is not None else None)
            if spec is None:
                pending.done.set_result(None)

        def unasked(call: Future) -> None:  # the worker is gone: nothing will answer the load
            exc = call.exception()
            if exc is not None and not pending.done.done():
                pending.done.set_exception(exc)

        self.scheduler.call(ask).add_done_callback(unasked)
        return pending.done

    def pause_info(self) -> ModelInfo | None:
        """The pause tier's model once loaded (None: none asked for, not loaded yet, or its load failed)."""
        return self._info(self.pause)

    @property
    def pause_error(self) -> str | None:
        """Why the pause tier's model did not load (None: it did, or none was asked for)."""
        return self.pause.load_error

    def pause_state(self) -> PauseState:
        """Where the pause tier stands: none asked for, its load queued for an idle worker, loaded, or failed."""
        p = self.pause
        return (PauseState.FAILED if p.load_error else PauseState.LOADED if p.ready
                else PauseState.QUEUED if p.asked is not None else PauseState.NONE)

    def shutdown(self) -> None:
        """Stop the worker (cancelling running work) and wait for it, so MLX is idle at exit."""
        self.scheduler.stop()
        self.scheduler.join(timeout=10)

    # -- documents ---------------------------------------------------------------------------------------
    def close_document(self, doc_id: str) -> None:
        """Free the document's caches, both tiers' (on the worker, after any running job)."""

        def drop() -> None:
            for p in self.tiers.values():
                p.drafts.forget(doc_id)
                if p.caches:
                    p.caches.drop(doc_id)

        self.scheduler.call(drop)

    # -- the facade for callers outside engine/ (with load, apply_settings, shutdown, close_document and
    # complete above): nothing else of the engine is reached from outside ----------------------------------
    def model_info(self) -> ModelInfo | None:
        """The loaded (keystroke) model, or None while none is loaded (see `load_error` for why)."""
        return self._info(self.keystroke)

    def _info(self, p: Provider) -> ModelInfo | None:
        lm = p.lm
        if lm is None:
            return None
        return ModelInfo(lm.name, lm.path, lm.n_params, lm.dtype, lm.fim.name, lm.fim.preferred_layout,
                         lm.builder.repo_level, dict(lm.timings), self.device, p.compiled)

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
        return self.scheduler.call(lambda: self.steps.prompt(req)).result()

    def measure_caches(self) -> Future:
        """Cache sizes, read on the worker (after any running job): a future of {"documents": {doc_id: bytes},
        "contexts": {"prompts": n, "bytes": b}, "pause": {doc_id: bytes}} (the prompts kept without a document,
        cache.ContextCache; the pause tier's document caches)."""

        def sizes() -> dict[str, Any]:
            c, pc = self.caches, self.pause.caches
            return {"documents": c.bytes_by_doc() if c else {},
                    "contexts": {"prompts": len(c.contexts) if c else 0, "bytes": c.contexts.nbytes if c else 0},
                    "pause": pc.bytes_by_doc() if pc else {}}

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
        return sum(p.caches.evictions for p in self.tiers.values() if p.caches)

    # -- completions ---------------------------------------------------------------------------------------
    def complete(self, req: CompletionRequest) -> Job:
        """Queue a completion; the job's future resolves to a CompletionResult (empty when not run)."""
        return self._submit(req, lambda j, st: self.steps.completion(j, req, st))

    def prefill(self, req: CompletionRequest) -> Job:
        """Queue a warm-up: bring the document's cache to cover the request's prompt, decoding nothing.

        The future resolves to a CompletionResult without candidates."""
        return self._submit(req, lambda j, st: self.steps.warm(j, req, st))

    def _submit(self, req: CompletionRequest, steps: Callable[[Job, Meter], Any]) -> Job:
        st = Meter()
        pause = req.tier is Tier.PAUSE  # the pause tier yields to every keystroke job (a background job)
        job = Job(
            key=req.doc_id + ("\0pause" if pause else "\0background" if req.background else ""),
            background=req.background or pause,
            run=lambda j: self._recording_errors(j, st, self._as_tier(req.tier, steps(j, st))),
            debounce_s=(self.settings.debounce_ms / 1000.0) if req.debounce else 0.0,
            probe=lambda j: self.steps.probe(j, req),
            on_drop=lambda j, reason: self.steps.dropped(j, st, reason, req),
        )
        return self.scheduler.submit(job)

    def _as_tier(self, tier: Tier, steps: Generator[Work | None, Any, Any]) -> Generator[Work | None, Any, Any]:
        """The pause tier's steps run with its own compile state, the keystroke tier's as they are."""
        if tier is Tier.KEYSTROKE:
            return steps
        switch = CompileSwitch(self, not self.pause.compiled)
        return stepped_with(switch.__enter__, switch.leave, steps)

    def _recording_errors(self, job: Job, st: Meter, steps: Any) -> Generator[Work | None, Any, Any]:
        """Run a request's steps; one that fails raises JobFailed with its cause and timings (the orchestrator
        books it), so a long run can tell what failed."""
        try:
            return (yield from steps)
        except Cancelled:
            raise  # answered by _dropped
        except Exception as exc:
            cause = f"{type(exc).__name__}: {exc}"
            raise JobFailed(cause, st.timings(Status.ERROR, cause, total_ms=ms_since(job.created))) from exc

    def _batch(self, work: list[Work]) -> list[mx.array]:
        """The scheduler's round: every in-flight request's work, one step per tier (a step never mixes models),
        started at once (each request waits only for its own part when it reads it)."""
        by_tier: dict[Tier, list[int]] = {}
        for i, w in enumerate(work):
            doc: DocumentCache = w.doc if isinstance(w, Extend) else w.branches.doc
            by_tier.setdefault(doc.tier, []).append(i)
        out: list[Any] = [None] * len(work)
        for tier, items in by_tier.items():
            p = self.tiers[tier]
            assert p.decoder is not None
            with CompileSwitch(self, not p.compiled):
                for i, logits in zip(items, p.decoder.forward([work[i] for i in items]), strict=True):
                    out[i] = logits
        mx.async_eval(out)
        return out
