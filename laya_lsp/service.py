"""Completion as users see it: syntax decides whether and how much, the engine computes, syntax cleans.

Shared by the LSP handlers, `laya-lsp complete` and the HTTP front, so all of them answer the same way.
Knows neither LSP nor MLX details: it speaks `SyntaxDocument`, `CompletionPlan` and engine requests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

from .config import Settings
from .engine import CompletionRequest, CompletionResult, Engine
from .engine.scheduler import Job
from .syntax import CompletionPlan, SyntaxDocument, SyntaxSettings, plan_completion, postprocess_detailed


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


def syntax_settings(s: Settings) -> SyntaxSettings:
    return SyntaxSettings(
        complete_in_comments=s.complete_in_comments,
        complete_in_strings=s.complete_in_strings,
        max_lines=s.inline_max_lines,
        multiline=s.inline_max_lines > 1,
    )


class CompletionService:
    """Plans, queues and post-processes completions for documents the caller keeps as SyntaxDocuments."""

    def __init__(self, engine: Engine, settings: Callable[[], Settings]) -> None:
        self.engine = engine
        self.settings = settings

    def plan(self, doc: SyntaxDocument, offset: int) -> CompletionPlan:
        plan = plan_completion(doc, offset, syntax_settings(self.settings()))
        if not plan.complete and not self.settings().trigger_rules:
            return replace(plan, complete=True, reason=f"forced ({plan.reason})")
        return plan

    def submit(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: str, version: int | None = None,
               debounce: bool = True) -> tuple[CompletionPlan, Job | None]:
        """Decide and, if worth it, queue the model run. A plan that says no costs no model time."""
        plan = self.plan(doc, offset)
        if not plan.complete:
            st = self.engine.stats.new(doc_id, kind)
            st.status, st.source, st.extra["plan"] = "skipped", "none", plan.reason
            self.engine.stats.record(st)
            return plan, None
        s = self.settings()
        req = CompletionRequest(
            doc_id=doc_id,
            text=doc.text,
            offset=offset,
            kind=kind,
            max_lines=plan.max_lines if plan.multiline else 1,
            max_tokens=min(s.max_tokens, plan.max_tokens),
            version=version,
            debounce=debounce,
        )
        return plan, self.engine.complete(req)

    def finish(self, doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult) -> Answer:
        """Clean the raw candidates against the document they were computed for."""
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
