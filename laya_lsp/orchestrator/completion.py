"""Completion as users see it: syntax decides whether and how much, the engine computes, syntax cleans.

One request's life, the same for every front (LSP handlers, the HTTP routes, `laya-lsp complete`): wait for
the model, plan, answer from what is already known or queue a model run, wait for it, clean the candidates,
and give back the suggestions with the request's one stats record. On top of the engine's per-buffer cache,
four latency tricks every editor gets (no client support needed):
- typed-through: while the user types characters a shown (or still running) candidate predicted, answer from
  it at once, trimmed, with no model run;
- speculative next: after answering, compute in the background the answer needed if the top candidate's
  first line is accepted;
- first line first: while typing, where the plan allows a block, answer as soon as the first line is complete
  and decode the whole block in the background into the typed-through store (the block run's drafts make the
  line it already has nearly free, engine/draft.py), so asking again or accepting the line gets the block with
  no model run;
- context before the prompt, in the model's repository format: chunks of recently used files and an outline
  of the document above the prefix window (prompt_context.py);
- warm-up: a buffer's cache is prefilled in the background when it is opened or focused.
Knows neither LSP nor HTTP nor MLX. Everything here runs on the front's event loop thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from ..config import Settings
from ..engine import CompletionRequest, CompletionResult, Engine, Job, Source, Status
from ..syntax import CompletionPlan, SyntaxDocument, plan_completion
from .analysis import NameAnalysis, wider_run
from .answers import Completion, Suggestion, clean
from .prompt_context import PromptContext
from .records import Records
from .waiting import Caller, ClientGone, ModelGate, wait_job

log = logging.getLogger(__name__)


@dataclass
class _Shown:
    """The last answer for a document, at the text it was computed for."""

    prefix: str
    suffix: str
    answer: Completion


@dataclass
class _InFlight:
    prefix: str
    suffix: str
    plan: CompletionPlan
    job: Job
    candidates: int  # how many the running job was asked for
    block: bool = False  # it decodes the first line of a block; the rest follows in the background


@dataclass
class _Ticket:
    """What `_start` decided: an immediate answer, a job to wait for, or nothing to do."""

    plan: CompletionPlan
    job: Job | None = None
    immediate: Completion | None = None
    typed: str = ""  # characters typed through the job's candidates (trim them from its raw text)
    # The job belongs to an earlier request that this one types through: a fresh job is needed if none of
    # its candidates match what was typed.
    shared: bool = False
    block: bool = False  # the job decodes the first line only: decode the block after answering


def _typed_since(old_prefix: str, old_suffix: str, prefix: str, suffix: str) -> str | None:
    """What was typed at the cursor since (old_prefix, old_suffix), or None if the text changed otherwise."""
    if suffix != old_suffix or not prefix.startswith(old_prefix):
        return None
    return prefix[len(old_prefix) :]


def _always() -> bool:
    return True


class CompletionFlow:
    """Plans, queues and post-processes completions; keeps the per-document state the tricks need."""

    def __init__(self, engine: Engine, settings: Callable[[], Settings], gate: ModelGate, records: Records) -> None:
        self.engine = engine
        self.settings = settings
        self.gate = gate
        self.records = records
        self.context = PromptContext()
        self.names = NameAnalysis(self.context.ring.texts_besides)
        self._shown: dict[str, _Shown] = {}  # the last answer sent, per document
        self._spec: dict[str, _Shown] = {}  # the speculative answer for "top line accepted", per document
        self._inflight: dict[str, _InFlight] = {}
        self._language: dict[str, str] = {}  # language id per document, for hypothetical copies
        self._background: set[asyncio.Task] = set()  # speculation and deferred warm-ups (kept from the GC)

    # -- documents ---------------------------------------------------------------------------------------
    def opened(self, doc_id: str, doc: SyntaxDocument, language_id: str = "") -> None:
        """A document was opened: remember its language, take its chunks, warm its cache (cursor at the top)."""
        self._language[doc_id] = language_id
        self.context.ring.observe_file(doc_id, doc.text)
        if self.settings().steer_names and doc.language is not None:
            self.names.warm()
        self.warm(doc_id, doc, 0)

    def saved(self, doc_id: str, doc: SyntaxDocument) -> None:
        self.context.ring.observe_file(doc_id, doc.text)

    def pasted(self, doc_id: str, text: str) -> None:
        self.context.ring.observe_paste(doc_id, text)

    def tracked(self) -> int:
        """Documents whose per-document state (shown answer, speculation, language) is kept."""
        return len(self._language)

    def closed(self, doc_id: str) -> None:
        """Forget the document's state and free its cache."""
        self._shown.pop(doc_id, None)
        self._spec.pop(doc_id, None)
        self._inflight.pop(doc_id, None)
        self._language.pop(doc_id, None)
        self.context.forget(doc_id)
        self.engine.close_document(doc_id)

    # -- one request ---------------------------------------------------------------------------------------
    async def complete(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, *, version: int | None = None,
                       current: Callable[[], bool] = _always, debounce: bool = True, remember: bool = True,
                       caller: Caller | None = None, typing: bool = False) -> Completion | None:
        """Answer a completion at `offset` of `doc` (`kind`: "completion" or "inline").

        `typing`: the client asked while the user types (not an explicit invocation): a model run then asks
        for `typingCandidates` candidates instead of `candidates`, so the first one arrives sooner.

        `current()` says whether the document is still the text the request was made against; an answer for
        a text that changed meanwhile is dropped (None: the client asks again for the new text). `remember`
        keeps the answer for typed-through reuse and speculation (an open document, a session); `debounce`
        lets a run that needs many new tokens wait a moment for the next keystroke.
        """
        caller = caller or Caller()
        refused = await self.gate.refusal(doc_id, kind)
        if refused is not None:
            return Completion([], refused)
        answer: Completion | None = None
        wider: int | None = None  # a second run's candidates, when every candidate of the first was rejected
        for _attempt in range(3):
            if not current():
                return None
            ticket = self._start(doc_id, doc, offset, kind, version, debounce and wider is None, remember, typing,
                                 wider)
            if ticket.immediate is not None:
                return ticket.immediate
            if ticket.job is None:
                return Completion([], self.records.plain(doc_id, kind, Source.NONE, ticket.plan.reason,
                                                         Status.SKIPPED), ticket.plan)
            if not ticket.shared and caller.hold is not None:
                caller.hold(ticket.job.future)
            answer = await self._answer(doc_id, doc, offset, kind, ticket, current, remember, caller)
            if answer is None:
                return None
            if ticket.shared and not answer.suggestions:
                continue  # The user typed past what the running generation predicted: ask the model for this text.
            had = len(answer.result.candidates) if answer.result is not None else 0
            wider = wider_run(answer.suggestions, answer.rejected, had, wider, self.settings())
            if wider is None:
                return answer
        return answer

    async def _answer(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, ticket: _Ticket,
                      current: Callable[[], bool], remember: bool, caller: Caller) -> Completion | None:
        """Wait for the ticket's job and answer from it, booking the request's record once on every path."""
        assert ticket.job is not None
        own, booked = not ticket.shared, False  # the request that started a job accounts for its cost
        try:
            try:
                result: CompletionResult = await wait_job(self.engine, ticket.job, caller, cancel=own)
            except ClientGone:
                raise
            except Exception as exc:  # a fault in the model call: answered empty, the front tells the user
                log.error("completion failed: %s", exc, exc_info=not hasattr(exc, "timings"))
                st = self.records.failed(doc_id, kind, ticket.plan.reason, exc, own)
                booked = True
                return Completion([], st, ticket.plan, failure=f"completion failed: {st.error}")
            if not current():
                return None
            booked = True
            if result.timings.status is not Status.OK:
                st = self.records.answered(doc_id, kind, Source.NONE, result, ticket.plan.reason, own=own)
                return Completion([], st, ticket.plan, result)
            return self._finish(doc, offset, ticket.plan, result, doc_id, kind, ticket, remember, own)
        finally:
            if own and not booked:
                self.records.when_done(ticket.job, doc_id, kind, Source.MODEL, ticket.plan.reason)

    def _start(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, version: int | None,
               debounce: bool, remember: bool, typing: bool = False, wider: int | None = None) -> _Ticket:
        """Decide how to answer: from what was shown or is running, by a new model run, or not at all
        (`wider`: a run for this many candidates, every candidate of the last one having been rejected)."""
        s = self.settings()
        wanted = wider or (s.typing_candidates if typing else s.candidates)
        prefix, suffix = doc.text[:offset], doc.text[offset:]
        if s.typed_through:
            for entry, source in ((self._shown.get(doc_id), "typed-through"), (self._spec.get(doc_id), "speculative")):
                hit = self._reuse(entry, prefix, suffix)
                if hit is not None:
                    plan = entry.answer.plan if entry and entry.answer.plan else CompletionPlan(True, source)
                    st = self.records.plain(doc_id, kind, Source(source), plan.reason)
                    return _Ticket(plan, immediate=Completion(hit, st, plan))
            running = self._inflight.get(doc_id)
            typed = _typed_since(running.prefix, running.suffix, prefix, suffix) if running else None
            if running is not None and typed is not None and not running.job.future.done() \
                    and not running.job.token.cancelled and running.candidates >= wanted:
                # Let the running generation finish instead of cancelling it; its candidates get trimmed.
                return _Ticket(running.plan, job=running.job, typed=typed, shared=True, block=running.block)
        plan = self.plan(doc, offset)
        if not plan.complete:
            return _Ticket(plan)
        block = typing and remember and s.first_line_first and s.typed_through and plan.multiline and plan.max_lines > 1
        job = self.engine.complete(self.request_for(doc_id, doc, offset, kind, plan, version, debounce,
                                                    candidates=wanted, lines=1 if block else None))
        if remember:
            self._inflight[doc_id] = _InFlight(prefix, suffix, plan, job, wanted, block)
        return _Ticket(plan, job=job, block=block)

    def plan(self, doc: SyntaxDocument, offset: int) -> CompletionPlan:
        """Whether and how much to complete at `offset` (forced with `triggerRules` off)."""
        plan = plan_completion(doc, offset, self.settings().syntax())
        if not plan.complete and not self.settings().trigger_rules:
            return replace(plan, complete=True, reason=f"forced ({plan.reason})")
        return plan

    def _context(self, doc_id: str, doc: SyntaxDocument, offset: int) -> list[tuple[str, str]]:
        info = self.engine.model_info()
        if info is None or not info.repo_level:
            return []
        return self.context.chunks(doc_id, doc, offset, self.settings())

    def request_for(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, plan: CompletionPlan,
                    version: int | None, debounce: bool, background: bool = False,
                    source: str = "model", candidates: int | None = None, lines: int | None = None) -> CompletionRequest:
        """The engine request for a completion at `offset` under `plan` (with the context before the prompt);
        `candidates` None asks for the `candidates` setting, `lines` None for the plan's line count."""
        s = self.settings()
        return CompletionRequest(
            doc_id=doc_id, text=doc.text, offset=offset, kind=kind, candidates=candidates,
            max_lines=lines or (plan.max_lines if plan.multiline else 1),
            max_tokens=min(s.max_tokens, plan.max_tokens),
            version=version, debounce=debounce, context=self._context(doc_id, doc, offset), background=background,
            source=source, names=self.names.for_request(doc_id, doc, offset, s) if kind != "warm-up" else None,
        )

    @staticmethod
    def _reuse(entry: _Shown | None, prefix: str, suffix: str) -> list[Suggestion] | None:
        """The part of a remembered answer still ahead of the cursor, if the user only typed along it."""
        if entry is None:
            return None
        typed = _typed_since(entry.prefix, entry.suffix, prefix, suffix)
        if typed is None:
            return None
        rest = [replace(x, text=x.text[len(typed):]) for x in entry.answer.suggestions
                if x.text.startswith(typed) and x.text[len(typed):].strip()]
        return rest or None

    def _finish(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult, doc_id: str,
                kind: str, ticket: _Ticket, remember: bool, own: bool) -> Completion:
        """Clean raw candidates against the document and book the request; remember the answer and start
        speculating (or, after a block's first line, decoding the block)."""
        typed, block = ticket.typed, ticket.block
        if typed:
            # A shared running job: keep what the user typed through, trimmed.
            kept = [replace(c, text=c.text[len(typed):]) for c in result.candidates
                    if c.text.startswith(typed) and c.text[len(typed):].strip()]
            result = replace(result, candidates=kept)
        answer = self._cleaned(doc, offset, plan, result)
        source = Source.TYPED_THROUGH if typed else Source.MODEL
        first_line = block and not typed and remember and bool(answer.suggestions)
        cleaning = {**answer.cleaning(), **({"first_line_first": True} if first_line else {})}
        answer.stats = self.records.answered(doc_id, kind, source, result, plan.reason, own=own,
                                             postprocess_ms=answer.postprocess_ms, extra=cleaning)
        if remember and answer.suggestions:
            self._shown[doc_id] = _Shown(doc.text[:offset], doc.text[offset:], answer)
            if first_line:
                self._continue_block(doc_id, doc, offset, plan, len(result.candidates))
            elif self.settings().speculative and not typed:
                self._speculate(doc_id, doc, offset, answer)
        return answer

    def _cleaned(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult) -> Completion:
        s = self.settings()
        return clean(doc, offset, plan, result, s.syntax() if s.postprocess else None)

    # -- background work ---------------------------------------------------------------------------------
    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _speculate(self, doc_id: str, doc: SyntaxDocument, offset: int, answer: Completion) -> None:
        """Compute, at low priority, the answer for the text as it would be with the top line accepted."""
        top = answer.suggestions[0].text
        lead = len(top) - len(top.lstrip("\n"))
        accepted = top[: lead + (top[lead:] + "\n").index("\n")]
        text = doc.text[:offset] + accepted + doc.text[offset:]
        hyp = SyntaxDocument(text, self._language.get(doc_id, ""), doc_id)
        hyp_offset = offset + len(accepted)
        plan = self.plan(hyp, hyp_offset)
        if not plan.complete:
            return
        req = self.request_for(doc_id, hyp, hyp_offset, "speculative", plan, None, debounce=False,
                                   background=True, source="speculative")
        job = self.engine.complete(req)
        self._in_background(self._keep_speculation(doc_id, job, hyp, hyp_offset, plan))

    async def _background_answer(self, doc_id: str, source: Source, job: Job, doc: SyntaxDocument, offset: int,
                                 plan: CompletionPlan) -> Completion | None:
        """A background job's cleaned answer (None: it failed or found nothing), its record booked; a failure is
        only a missed shortcut."""
        kind = source.value  # background requests are of their source's kind: speculative, block
        try:
            result: CompletionResult = await wait_job(self.engine, job, Caller(), cancel=False)
        except Exception as exc:  # noqa: BLE001 - booked as the error it was
            self.records.failed(doc_id, kind, plan.reason, exc, own=True)
            return None
        answer = self._cleaned(doc, offset, plan, result) if result.candidates else None
        self.records.answered(doc_id, kind, source, result, plan.reason, own=True,
                              postprocess_ms=answer.postprocess_ms if answer else 0.0)
        return answer

    async def _keep_speculation(self, doc_id: str, job: Job, hyp: SyntaxDocument, offset: int,
                                plan: CompletionPlan) -> None:
        """Clean the speculative candidates here, on the event loop: the inference worker goes on to real work."""
        spec = await self._background_answer(doc_id, Source.SPECULATIVE, job, hyp, offset, plan)
        if spec is not None and spec.suggestions and doc_id in self._shown:  # (closed meanwhile: nothing to keep)
            self._spec[doc_id] = _Shown(hyp.text[:offset], hyp.text[offset:], spec)

    def _continue_block(self, doc_id: str, doc: SyntaxDocument, offset: int, plan: CompletionPlan,
                        candidates: int) -> None:
        """Decode, at low priority, the block whose first line was just answered."""
        snapshot = SyntaxDocument(doc.text, self._language.get(doc_id, ""), doc_id)
        req = self.request_for(doc_id, snapshot, offset, "block", plan, None, debounce=False, background=True,
                               source="block", candidates=max(1, candidates))
        job = self.engine.complete(req)
        self._in_background(self._keep_block(doc_id, job, snapshot, offset, plan))

    async def _keep_block(self, doc_id: str, job: Job, doc: SyntaxDocument, offset: int, plan: CompletionPlan) -> None:
        """The block replaces its first line in the typed-through store, if the user has not moved on; then the
        speculation for its top line accepted starts from it."""
        block = await self._background_answer(doc_id, Source.BLOCK, job, doc, offset, plan)
        shown = self._shown.get(doc_id)
        if block is None or shown is None or (shown.prefix, shown.suffix) != (doc.text[:offset], doc.text[offset:]):
            return
        if block.suggestions:
            self._shown[doc_id] = _Shown(shown.prefix, shown.suffix, block)
            if self.settings().speculative:
                self._speculate(doc_id, doc, offset, block)

    def warm(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        """Prefill the document's cache for a cursor at `offset` in the background (no decoding); while a
        model loads, once it has loaded."""
        if not self.settings().warm_up:
            return
        if self.gate.busy:
            self._in_background(self._warm_after_load(doc_id, doc, offset))
        elif self.engine.model_info() is not None:
            self._prefill(doc_id, doc, offset)

    async def _warm_after_load(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        if await self.gate.wait(bound=None) is None and doc_id in self._language:
            self._prefill(doc_id, doc, min(offset, len(doc.text)))

    def _prefill(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        plan = CompletionPlan(True, "warm-up")
        job = self.engine.prefill(self.request_for(doc_id, doc, offset, "warm-up", plan, None, debounce=False,
                                                   background=True, source="warm-up"))
        self.records.when_done(job, doc_id, "warm-up", Source.WARM_UP, plan.reason)
