"""Completion as users see it: syntax decides whether and how much, the engine computes, syntax cleans.

On top of the engine's per-buffer cache, four latency tricks every editor gets (no client support needed):
- typed-through: while the user types characters a shown (or still running) candidate predicted, answer from
  it at once, trimmed, with no model run;
- speculative next: after answering, compute in the background the answer needed if the top candidate's
  first line is accepted;
- cross-file context: chunks of recently used files go before the prompt in the model's repository format;
- warm-up: a buffer's cache is prefilled in the background when it is opened or focused.
Shared by the LSP handlers, `laya-lsp complete` and the HTTP front. Knows neither LSP nor MLX.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace

from .config import Settings
from .crossfile import ChunkRing
from .engine import CompletionRequest, CompletionResult, Engine
from .engine.scheduler import Job
from .engine.stats import RequestStats
from .syntax import CompletionPlan, SyntaxDocument, SyntaxSettings, plan_completion, postprocess_detailed

log = logging.getLogger(__name__)
CHARS_PER_TOKEN = 3.5  # for turning the cross-file token budget into a character budget before tokenizing


@dataclass
class Suggestion:
    """One cleaned candidate: `text` is inserted at the cursor."""

    text: str
    logprob: float
    rules: list[str] = field(default_factory=list)
    fixed: bool = False


@dataclass
class Answer:
    suggestions: list[Suggestion]
    plan: CompletionPlan
    result: CompletionResult | None
    rejected: dict[str, int] = field(default_factory=dict)
    source: str = "model"


@dataclass
class _Shown:
    """The last answer for a document, at the text it was computed for."""

    prefix: str
    suffix: str
    answer: Answer


@dataclass
class _InFlight:
    prefix: str
    suffix: str
    plan: CompletionPlan
    job: Job


@dataclass
class Ticket:
    """What `request` decided: an immediate answer, a job to wait for, or nothing to do."""

    plan: CompletionPlan
    job: Job | None = None
    immediate: Answer | None = None
    typed: str = ""  # characters typed through the job's candidates (trim them from its raw text)
    # When `job` belongs to an earlier request that this one types through, a fresh job is needed if
    # none of its candidates match what was typed.
    shared: bool = False


def syntax_settings(s: Settings) -> SyntaxSettings:
    return SyntaxSettings(
        complete_in_comments=s.complete_in_comments,
        complete_in_strings=s.complete_in_strings,
        max_lines=s.inline_max_lines,
        multiline=s.inline_max_lines > 1,
    )


def _typed_since(old_prefix: str, old_suffix: str, prefix: str, suffix: str) -> str | None:
    """What was typed at the cursor since (old_prefix, old_suffix), or None if the text changed otherwise."""
    if suffix != old_suffix or not prefix.startswith(old_prefix):
        return None
    return prefix[len(old_prefix) :]


class CompletionService:
    """Plans, queues and post-processes completions; keeps the per-document state the tricks need.

    `request` and `finish` are called from one thread (the LSP event loop); background work finishes on
    the engine's worker and only replaces whole entries of `_shown`.
    """

    def __init__(self, engine: Engine, settings: Callable[[], Settings]) -> None:
        self.engine = engine
        self.settings = settings
        self.ring = ChunkRing()
        self._shown: dict[str, _Shown] = {}  # the last answer sent, per document
        self._spec: dict[str, _Shown] = {}  # the speculative answer for "top line accepted", per document
        self._inflight: dict[str, _InFlight] = {}
        self._language: dict[str, str] = {}  # LSP languageId per document, for hypothetical copies

    # -- documents ---------------------------------------------------------------------------------------
    def opened(self, doc_id: str, doc: SyntaxDocument, language_id: str = "") -> None:
        """A document was opened: remember its language, take its chunks, warm its cache (cursor at the top)."""
        self._language[doc_id] = language_id
        self.ring.observe_file(doc_id, doc.text)
        self.warm(doc_id, doc, 0)

    def saved(self, doc_id: str, doc: SyntaxDocument) -> None:
        self.ring.observe_file(doc_id, doc.text)

    def pasted(self, doc_id: str, text: str) -> None:
        self.ring.observe_paste(doc_id, text)

    def closed(self, doc_id: str) -> None:
        self._shown.pop(doc_id, None)
        self._spec.pop(doc_id, None)
        self._inflight.pop(doc_id, None)
        self._language.pop(doc_id, None)
        self.ring.forget_snapshot(doc_id)

    # -- requests ----------------------------------------------------------------------------------------
    def plan(self, doc: SyntaxDocument, offset: int) -> CompletionPlan:
        plan = plan_completion(doc, offset, syntax_settings(self.settings()))
        if not plan.complete and not self.settings().trigger_rules:
            return replace(plan, complete=True, reason=f"forced ({plan.reason})")
        return plan

    def _context(self, doc_id: str, doc: SyntaxDocument) -> list[tuple[str, str]]:
        budget = self.settings().cross_file_tokens
        if budget <= 0 or self.engine.lm is None or not self.engine.lm.builder.repo_level:
            return []
        return self.ring.chunks_for(doc_id, doc.text, int(budget * CHARS_PER_TOKEN))

    def _engine_request(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, plan: CompletionPlan,
                        version: int | None, debounce: bool, **kw: object) -> CompletionRequest:
        s = self.settings()
        return CompletionRequest(
            doc_id=doc_id, text=doc.text, offset=offset, kind=kind,
            max_lines=plan.max_lines if plan.multiline else 1,
            max_tokens=min(s.max_tokens, plan.max_tokens),
            version=version, debounce=debounce, context=self._context(doc_id, doc), **kw,  # type: ignore[arg-type]
        )

    def request(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, version: int | None = None,
                debounce: bool = True) -> Ticket:
        """Decide how to answer: from what was shown or is running, by a new model run, or not at all."""
        s = self.settings()
        prefix, suffix = doc.text[:offset], doc.text[offset:]
        if s.typed_through:
            for entry, source in ((self._shown.get(doc_id), "typed-through"), (self._spec.get(doc_id), "speculative")):
                hit = self._reuse(entry, prefix, suffix, source)
                if hit is not None:
                    self._record(doc_id, kind, source, hit.plan.reason)
                    return Ticket(hit.plan, immediate=hit)
            running = self._inflight.get(doc_id)
            typed = _typed_since(running.prefix, running.suffix, prefix, suffix) if running else None
            if running is not None and typed is not None and not running.job.future.done() \
                    and not running.job.token.cancelled:
                # Let the running generation finish instead of cancelling it; its candidates get trimmed.
                return Ticket(running.plan, job=running.job, typed=typed, shared=True)
        plan = self.plan(doc, offset)
        if not plan.complete:
            self._record(doc_id, kind, "none", plan.reason, status="skipped")
            return Ticket(plan)
        job = self.engine.complete(self._engine_request(doc_id, doc, offset, kind, plan, version, debounce))
        self._inflight[doc_id] = _InFlight(prefix, suffix, plan, job)
        return Ticket(plan, job=job)

    @staticmethod
    def _reuse(entry: _Shown | None, prefix: str, suffix: str, source: str) -> Answer | None:
        """The part of a remembered answer still ahead of the cursor, if the user only typed along it."""
        if entry is None:
            return None
        typed = _typed_since(entry.prefix, entry.suffix, prefix, suffix)
        if typed is None:
            return None
        rest = [replace(x, text=x.text[len(typed):]) for x in entry.answer.suggestions
                if x.text.startswith(typed) and x.text[len(typed):].strip()]
        return Answer(rest, entry.answer.plan, None, source=source) if rest else None

    def submit(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, version: int | None = None,
               debounce: bool = True) -> tuple[CompletionPlan, Job | None]:
        """A plain model request without the tricks (used by `laya-lsp complete` and benchmarks)."""
        plan = self.plan(doc, offset)
        if not plan.complete:
            self._record(doc_id, kind, "none", plan.reason, status="skipped")
            return plan, None
        return plan, self.engine.complete(self._engine_request(doc_id, doc, offset, kind, plan, version, debounce))

    def finish(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult,
               doc_id: str | None = None, typed: str = "") -> Answer:
        """Clean raw candidates against the document; remember the answer and start speculating."""
        if typed:
            # A shared running job: keep what the user typed through, trimmed.
            kept = [replace(c, text=c.text[len(typed):]) for c in result.candidates
                    if c.text.startswith(typed) and c.text[len(typed):].strip()]
            result = CompletionResult(kept, result.stats, result.version)
        answer = self._clean(doc, offset, plan, result)
        if typed:
            answer.source = "typed-through"
            self._record(doc_id or "", result.stats.kind, "typed-through", plan.reason)
        if doc_id is not None and answer.suggestions:
            self._shown[doc_id] = _Shown(doc.text[:offset], doc.text[offset:], answer)
            if self.settings().speculative and not typed:
                self._speculate(doc_id, doc, offset, answer)
        return answer

    def _clean(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult) -> Answer:
        t0 = time.perf_counter()
        raw = [c.text for c in result.candidates]
        if not self.settings().postprocess:
            return self._raw(raw, plan, result)
        detailed = postprocess_detailed(doc, offset, raw, plan, syntax_settings(self.settings()))
        suggestions = [
            Suggestion(c.text, result.candidates[c.source_index].logprob, c.rules, c.fixed)
            for c in detailed.candidates
        ]
        rejected: dict[str, int] = {}
        for r in detailed.rejected:
            rejected[r.reason] = rejected.get(r.reason, 0) + 1
        result.stats.postprocess_ms = (time.perf_counter() - t0) * 1000
        result.stats.total_ms += result.stats.postprocess_ms
        result.stats.extra["rejected"] = rejected
        result.stats.extra["plan"] = plan.reason
        result.stats.extra["top_rules"] = suggestions[0].rules if suggestions else []
        return Answer(suggestions, plan, result, rejected)

    @staticmethod
    def _raw(raw: list[str], plan: CompletionPlan, result: CompletionResult) -> Answer:
        """Model text cut to the plan's line count only (leading blank lines are not counted)."""
        limit = plan.max_lines if plan.multiline else 1
        suggestions: list[Suggestion] = []
        for cand, text in zip(result.candidates, raw):
            lines = text.split("\n")
            first = next((i for i, line in enumerate(lines) if line.strip()), 0)
            cut = "\n".join(lines[: first + limit])
            if cut.strip() and cut not in {s.text for s in suggestions}:
                suggestions.append(Suggestion(cut, cand.logprob))
        return Answer(suggestions, plan, result)

    def _record(self, doc_id: str, kind: str, source: str, reason: str, status: str = "ok") -> RequestStats:
        st = self.engine.stats.new(doc_id, kind)
        st.status, st.source, st.extra["plan"] = status, source, reason
        self.engine.stats.record(st)
        return st

    # -- background work ---------------------------------------------------------------------------------
    def _speculate(self, doc_id: str, doc: SyntaxDocument, offset: int, answer: Answer) -> None:
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
        req = self._engine_request(doc_id, hyp, hyp_offset, "speculative", plan, None, debounce=False,
                                   background=True, source="speculative")
        job = self.engine.complete(req)
        prefix, suffix = text[:hyp_offset], text[hyp_offset:]

        def done(fut: Future) -> None:
            try:
                result = fut.result()
            except Exception:  # noqa: BLE001 - a cancelled speculation is normal
                return
            if not result.candidates:
                return
            spec = self._clean(hyp, hyp_offset, plan, result)
            spec.source = "speculative"
            if spec.suggestions:
                self._spec[doc_id] = _Shown(prefix, suffix, spec)

        job.future.add_done_callback(done)

    def warm(self, doc_id: str, doc: SyntaxDocument, offset: int) -> Job | None:
        """Prefill the document's cache for a cursor at `offset` in the background (no decoding)."""
        if not self.settings().warm_up or (self.engine.lm is None and self.engine.load_error):
            return None  # (a model still loading is fine: the job waits for it)
        plan = CompletionPlan(True, "warm-up")
        req = self._engine_request(doc_id, doc, offset, "warm-up", plan, None, debounce=False, background=True,
                                   source="warm-up")
        return self.engine.prefill(req)
