"""Completion as users see it: syntax decides whether and how much, the engine computes, syntax cleans.

One request's life, the same for every front (LSP handlers, the HTTP routes, `laya-lsp complete`), read
straight through: wait for the model, ask the latency strategies whether they answer, plan, queue a model run,
wait for it, clean the candidates, book the request's one stats record, and tell the strategies what was
answered. The latency tricks every editor gets (typed-through, speculation, a shared running job, first line
first, warm-up) are strategies beside this flow (latency/), each owning its per-document state; the context
before the prompt (chunks of recently used files, an outline above the window) is prompt_context.py.
Knows neither LSP nor HTTP nor MLX. Everything here runs on the front's event loop thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from ..config import Settings
from ..engine import CompletionRequest, CompletionResult, Engine, Status, Tier
from ..syntax import CompletionPlan, SyntaxDocument, answer_brackets, plan_completion
from .answers import Cleaned, Completion, clean
from .confidence import Calibration, calibration_for
from .latency import (
    Ask,
    Background,
    FirstLineFirst,
    HandOff,
    LatencyStrategy,
    Opinion,
    PauseTier,
    SharedJob,
    Speculation,
    Ticket,
    TypedThrough,
    WarmUp,
    WiderLater,
    typed_along,
    unsure,
)
from .name_analysis import NameAnalysis, wider_run
from .prompt_context import PromptContext
from .records import Kind, Records, Source
from .waiting import Caller, ClientGone, ModelGate, wait_job

log = logging.getLogger(__name__)


def _always() -> bool:
    return True


class CompletionFlow:
    """Plans, queues and post-processes completions; its latency strategies keep the per-document state."""

    def __init__(self, engine: Engine, settings: Callable[[], Settings], gate: ModelGate, records: Records) -> None:
        self.engine = engine
        self.settings = settings
        self.gate = gate
        self.records = records
        self.context = PromptContext()
        self.names = NameAnalysis(self.context.ring.texts_besides)
        background = Background(engine, records, self.request_for, self._cleaned)
        typed = TypedThrough(settings, records)
        speculation = Speculation(settings, records, background, self.plan)
        self.wider_later = WiderLater(settings, background, typed, speculation)
        self.warm_up = WarmUp(settings, engine, gate, records, background)
        self._asking: set[Ask] = set()  # requests being answered; closing their document forgets them
        # Documents asked before: a document's first request is not debounced (no burst of keystrokes is under
        # way, and a keystroke that follows supersedes it, keeping what it prefilled); closing forgets them.
        self._asked: set[str] = set()
        # Asked in this order: a remembered answer beats sharing a running job, which beats a new run; a
        # serving engine's answer for this very text beats the local one shown there, and the pause tier's (asked
        # first, where the keystroke answer is unsure: the serving engine is asked only where it is unsure too).
        self.pause = PauseTier(settings, engine, records, self.request_for, typed, background.spawn)
        self.strategies: list[LatencyStrategy] = [
            HandOff(settings, records, background, typed, self._context, self._calibration),
            self.pause,
            typed,
            speculation,
            SharedJob(settings),
            FirstLineFirst(settings, background, typed, speculation),
            self.wider_later,
            self.warm_up,
        ]

    # -- documents ---------------------------------------------------------------------------------------
    def opened(self, doc_id: str, doc: SyntaxDocument) -> None:
        """A document was opened: take its chunks, warm its name analysis and its cache (cursor at the top)."""
        self.context.ring.observe_file(doc_id, doc.text)
        if self.settings().steer_names and doc.language is not None:
            self.names.warm()
        for strategy in self.strategies:
            strategy.opened(doc_id, doc)

    def saved(self, doc_id: str, doc: SyntaxDocument) -> None:
        self.context.ring.observe_file(doc_id, doc.text)

    def changed(self, doc_id: str) -> None:
        """The document's text changed (a keystroke): strategies drop what they asked for an older version."""
        for strategy in self.strategies:
            strategy.changed(doc_id)

    def pasted(self, doc_id: str, text: str) -> None:
        self.context.ring.observe_paste(doc_id, text)

    def warm(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        """Prefill the document's cache for a cursor at `offset` in the background (`laya/focus`)."""
        self.warm_up.warm(doc_id, doc, offset)

    def tracked(self) -> int:
        """Documents some latency strategy keeps state for."""
        return len(self._asked.union(*(strategy.held() for strategy in self.strategies)))

    def closed(self, doc_id: str) -> None:
        """Forget the document's state and free its cache."""
        self._asking = {ask for ask in self._asking if ask.doc_id != doc_id}
        self._asked.discard(doc_id)
        for strategy in self.strategies:
            strategy.closed(doc_id)
        self.context.forget(doc_id)
        self.engine.close_document(doc_id)

    # -- one request ---------------------------------------------------------------------------------------
    async def complete(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: Kind, *, version: int | None = None,
                       current: Callable[[], bool] = _always, debounce: bool = True, remember: bool = True,
                       caller: Caller | None = None, typing: bool = False) -> Completion | None:
        """Answer a completion at `offset` of `doc` (`kind`: Kind.COMPLETION or Kind.INLINE).

        `typing`: the client asked while the user types (not an explicit invocation): a model run then asks
        for `typingCandidates` candidates instead of `candidates`, so the first one arrives sooner.

        `current()` says whether the document is still the text the request was made against; an answer for
        a text that changed meanwhile is dropped (None: the client asks again for the new text). `remember`
        keeps the answer for typed-through reuse and speculation (an open document, a session); `debounce`
        lets a run that needs many new tokens wait a moment for the next keystroke (never a document's first).
        """
        caller = caller or Caller()
        refused = await self.gate.refusal(doc_id, kind, caller)
        if refused is not None:
            return Completion([], refused)
        s = self.settings()
        ask = Ask(doc_id, doc, offset, kind, remember, typing, s.typing_candidates if typing else s.candidates,
                  version, current)
        self._asking.add(ask)
        debounce = debounce and doc_id in self._asked
        if remember:
            self._asked.add(doc_id)
        try:
            answer = await self._attempts(ask, version, current, debounce, caller)
        finally:
            self._asking.discard(ask)
        # What this kind shows of it (the strategies keep the whole answer); raw lines are never withheld.
        return answer.for_kind(kind, s.min_confidence if s.postprocess else 0.0) if answer is not None else None

    async def _attempts(self, ask: Ask, version: int | None, current: Callable[[], bool], debounce: bool,
                        caller: Caller) -> Completion | None:
        """Answer `ask`: from a strategy, or by a model run (again when the user typed past a shared run, wider
        when every candidate was rejected); strategies hear of an answer unless its document closed meanwhile."""
        answer: Completion | None = None
        wider: int | None = None  # a second run's candidates, when every candidate of the first was rejected
        for _attempt in range(3):
            if not current():
                return None
            attempt = ask if wider is None else replace(ask, wanted=wider)
            ticket = self._start(attempt, version, debounce and wider is None)
            if ticket.immediate is not None:
                return ticket.immediate
            if ticket.job is None:
                return Completion([], self.records.plain(ask.doc_id, ask.kind, Source.NONE, ticket.plan.reason,
                                                         Status.SKIPPED), ticket.plan)
            if not ticket.shared and caller.hold is not None:
                caller.hold(ticket.job.future)
            answer = await self._answer(attempt, ticket, current, caller)
            if answer is None:
                return None
            if answer.stats.source is Source.PAUSE:
                ticket.block = False  # the pause tier's answer is whole: no keystroke block follows it
            if answer.suggestions and ask.remember and ask in self._asking:
                for strategy in self.strategies:
                    strategy.answered(attempt, answer, ticket)
            if ticket.shared and not answer.suggestions:
                continue  # The user typed past what the running generation predicted: ask the model for this text.
            had = len(answer.result.candidates) if answer.result is not None else 0
            wider = wider_run(answer.suggestions, answer.rejected, had, wider, self.settings())
            if wider is None or self.wider_later.takes(attempt, answer, wider):
                break  # (a keystroke's wider run goes on after its answer)
        if answer is not None and ask.remember and ask in self._asking:
            for strategy in self.strategies:
                strategy.settled(ask, answer)
        return answer

    def _start(self, ask: Ask, version: int | None, debounce: bool) -> Ticket:
        """Decide how to answer: by a strategy (from what was shown or is running), by a new model run, or not
        at all."""
        for strategy in self.strategies:
            ticket = strategy.early(ask)
            if ticket is not None:
                return ticket
        plan = self.plan(ask.doc, ask.offset)
        if not plan.complete:
            return Ticket(plan)
        lines = next((n for n in (strategy.lines(ask, plan) for strategy in self.strategies) if n is not None), None)
        job = self.engine.complete(self.request_for(ask.doc_id, ask.doc, ask.offset, ask.kind, plan, version,
                                                    debounce, candidates=ask.wanted, lines=lines))
        ticket = Ticket(plan, job=job, block=lines is not None)
        for strategy in self.strategies:
            strategy.started(ask, ticket)
        return ticket

    async def _answer(self, ask: Ask, ticket: Ticket, current: Callable[[], bool], caller: Caller) -> Completion | None:
        """Wait for the ticket's job and answer from it, booking the request's record once on every path."""
        assert ticket.job is not None
        own, booked = not ticket.shared, False  # the request that started a job accounts for its cost
        reason = ticket.plan.reason
        try:
            try:
                result: CompletionResult = await wait_job(self.engine, ticket.job, caller, cancel=own)
            except ClientGone:
                raise
            except Exception as exc:  # a fault in the model call: answered empty, the front tells the user
                log.error("completion failed: %s", exc, exc_info=not hasattr(exc, "timings"))
                st = self.records.failed(ask.doc_id, ask.kind, reason, exc, own)
                booked = True
                return Completion([], st, ticket.plan, failure=f"completion failed: {st.error}")
            if not current():
                return None
            if result.timings.status is not Status.OK:
                booked = True
                st = self.records.answered(ask.doc_id, ask.kind, Source.NONE, result, reason, own=own)
                return Completion([], st, ticket.plan, result)
            cleaned = self._cleaned_run(ask, ticket, result)
            opinion = await self._second_opinion(ask, cleaned)
            if not current():
                return None
            booked = True
            return self._finish(ask, ticket, result, own, cleaned, opinion)
        finally:
            if own and not booked:
                self.records.when_done(ticket.job, ask.doc_id, ask.kind, Source.MODEL, reason)

    def _cleaned_run(self, ask: Ask, ticket: Ticket, result: CompletionResult) -> Cleaned:
        """The run's raw candidates cleaned against the document (what the user typed through a shared running
        job trimmed off first)."""
        if ticket.typed:
            result = replace(result, candidates=typed_along(result.candidates, ticket.typed))
        return self._cleaned(ask.doc, ask.offset, ticket.plan, result)

    async def _second_opinion(self, ask: Ask, cleaned: Cleaned) -> Opinion | None:
        """Another answer where the run's is unsure, from the first strategy that has one (the pause tier)."""
        for strategy in self.strategies:
            opinion = await strategy.second_opinion(ask, cleaned)
            if opinion is not None:
                return opinion
        return None

    def _finish(self, ask: Ask, ticket: Ticket, result: CompletionResult, own: bool, cleaned: Cleaned,
                opinion: Opinion | None) -> Completion:
        """Book the request once: the run's cleaned answer, or the one a strategy gave instead (`opinion`), with
        which tier answered."""
        s = self.settings()
        source = Source.TYPED_THROUGH if ticket.typed else Source.MODEL
        first_line = ticket.block and not ticket.typed and ask.remember and bool(cleaned.suggestions)
        cleaning = {**cleaned.cleaning(), **({"first_line_first": True} if first_line else {}),
                    "unsure": unsure(cleaned.suggestions, ask.kind, s),  # a pause run or hand-off is started for it
                    "tier": Tier.KEYSTROKE.value, **(opinion.note if opinion is not None else {})}
        if opinion is not None and opinion.answer is not None:
            shown = opinion.answer
            cleaning.update(tier=Tier.PAUSE.value, keystroke_top_confidence=cleaning.pop("top_confidence"),
                            unsure=unsure(shown.suggestions, ask.kind, s), top_rules=shown.cleaning()["top_rules"])
            return replace(shown, result=result).booked(self.records.answered(
                ask.doc_id, ask.kind, opinion.source, result, ticket.plan.reason, own=own,
                postprocess_ms=cleaned.postprocess_ms, extra=cleaning))
        return cleaned.booked(self.records.answered(ask.doc_id, ask.kind, source, result, ticket.plan.reason,
                                                    own=own, postprocess_ms=cleaned.postprocess_ms, extra=cleaning))

    # -- building blocks (the strategies use them too) -----------------------------------------------------
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

    def request_for(
        self,
        doc_id: str,
        doc: SyntaxDocument,
        offset: int,
        kind: Kind,
        plan: CompletionPlan,
        version: int | None,
        debounce: bool,
        background: bool = False,
        source: str = "model",
        candidates: int | None = None,
        lines: int | None = None,
    ) -> CompletionRequest:
        """The engine request for a completion at `offset` under `plan` (with the context before the prompt);
        `candidates` None asks for the `candidates` setting, `lines` None for the plan's line count."""
        s = self.settings()
        max_lines = lines or (plan.max_lines if plan.multiline else 1)
        return CompletionRequest(
            doc_id=doc_id, text=doc.text, offset=offset, kind=kind, candidates=candidates, max_lines=max_lines,
            max_tokens=min(s.max_tokens, plan.max_tokens),
            version=version, debounce=debounce, context=self._context(doc_id, doc, offset), background=background,
            source=source, names=self.names.for_request(doc_id, doc, offset, s) if kind is not Kind.WARM_UP else None,
            outer_close=answer_brackets(doc, offset).outer_close if max_lines > 1 and kind is not Kind.WARM_UP
            else None,
        )

    def _calibration(self) -> Calibration | None:
        """The loaded model's confidence calibration (None: not loaded, or never calibrated)."""
        info = self.engine.model_info()
        return calibration_for(info.name, info.path or None) if info is not None else None

    def _cleaned(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult) -> Cleaned:
        s = self.settings()
        return clean(doc, offset, plan, result, s.syntax() if s.postprocess else None, s.min_confidence,
                     self._calibration())
