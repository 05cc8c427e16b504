"""What a completion request gets back: cleaned suggestions and its record.

`clean` runs the syntax layer's post-processing (cut at block ends, bracket balance, syntax check, rerank) or,
with post-processing off, cuts the model's text to the plan's line count only (by laya_lsp/lines.py, the rule
the engine stops by).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..engine import CompletionResult, RequestStats, Source, Status, Timings
from ..lines import cut_lines
from ..syntax import CompletionPlan, SyntaxDocument, SyntaxSettings, postprocess_detailed


@dataclass
class Suggestion:
    """One cleaned candidate: `text` is inserted at the cursor."""

    text: str
    logprob: float
    rules: list[str] = field(default_factory=list)
    fixed: bool = False


@dataclass
class Completion:
    """What one completion request gets: cleaned suggestions and the request's stats record (its source,
    status, error and timings, as `laya/stats` lists it)."""

    suggestions: list[Suggestion]
    stats: RequestStats
    plan: CompletionPlan | None = None  # None when the request never got as far as planning
    result: CompletionResult | None = None  # the engine's raw candidates, when the model ran for this request
    rejected: dict[str, int] = field(default_factory=dict)
    failure: str | None = None  # an engine fault while answering (a bug): worth telling the user
    postprocess_ms: float = 0.0

    def cleaning(self) -> dict[str, object]:
        """What post-processing did, for the request's record."""
        return {"rejected": self.rejected, "top_rules": self.suggestions[0].rules if self.suggestions else []}


# The record a Completion holds until the request that owns it is booked (`CompletionFlow._finish` replaces it).
UNBOOKED = RequestStats(0, "", "", Source.NONE, Timings(), Status.OK)



def clean(doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult,
          syntax: SyntaxSettings | None) -> Completion:
    """The cleaned suggestions (`syntax` None: post-processing is off, raw lines); the caller books the record."""
    t0 = time.perf_counter()
    if syntax is None:
        return Completion(raw_lines(result, plan), UNBOOKED, plan, result,
                          postprocess_ms=(time.perf_counter() - t0) * 1000)
    detailed = postprocess_detailed(doc, offset, [c.text for c in result.candidates], plan, syntax)
    suggestions = [
        Suggestion(c.text, result.candidates[c.source_index].logprob, c.rules, c.fixed)
        for c in detailed.candidates
    ]
    rejected: dict[str, int] = {}
    for r in detailed.rejected:
        rejected[r.reason] = rejected.get(r.reason, 0) + 1
    return Completion(suggestions, UNBOOKED, plan, result, rejected, postprocess_ms=(time.perf_counter() - t0) * 1000)


def raw_lines(result: CompletionResult, plan: CompletionPlan) -> list[Suggestion]:
    """Model text cut to the plan's line count only (line breaks before the text do not count)."""
    limit = plan.max_lines if plan.multiline else 1
    suggestions: list[Suggestion] = []
    for cand in result.candidates:
        cut = cut_lines(cand.text, limit)
        if cut.strip() and cut not in {s.text for s in suggestions}:
            suggestions.append(Suggestion(cut, cand.logprob))
    return suggestions
