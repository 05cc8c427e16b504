"""What a completion request gets back: cleaned suggestions and its record.

`clean` runs the syntax layer's post-processing (cut at block ends, bracket balance, syntax check, rerank) or,
with post-processing off, cuts the model's text to the plan's line count only (by laya_lsp/lines.py, the rule
the engine stops by). Then each suggestion gets the calibrated probability that it is right as far as it goes
and, with post-processing on, is cut where that falls below `minConfidence` (confidence.py); `for_kind` is what
one kind of request shows of it (ghost text nothing unsure, the list the unsure ones last).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ..engine import Candidate, CompletionResult
from ..lines import cut_lines, first_outer_close
from ..syntax import CompletionPlan, SyntaxDocument, SyntaxSettings, answer_brackets, postprocess_detailed
from .confidence import Calibration, cut, token_confidence, trace
from .records import Kind, RequestStats


@dataclass
class Suggestion:
    """One cleaned candidate: `text` is inserted at the cursor."""

    text: str
    logprob: float
    rules: list[str] = field(default_factory=list)
    fixed: bool = False
    # The calibrated probability that `text` is right as far as it goes (every line of it a prefix of what the
    # person writes), from the model's token probabilities (confidence.py); 1.0 for a model never calibrated.
    confidence: float = 1.0  # (of what ghost text shows: `text[:cut_at]`)
    # Ghost text shows `text[:cut_at]`: where the model grew unsure (None: all of it). The completion list offers
    # the whole `text`, which passed the syntax checks (a list item is a choice made on purpose).
    cut_at: int | None = None
    token_ends: list[int] = field(default_factory=list)  # the model's tokens over `text`: where each ends
    token_logprobs: list[float] = field(default_factory=list)

    @property
    def cut(self) -> bool:
        """Ghost text shows less than the whole suggestion."""
        return self.cut_at is not None

    def ghost(self) -> Suggestion:
        """What ghost text shows of it."""
        return self if self.cut_at is None else replace(self, text=self.text[: self.cut_at], cut_at=None)

    def trimmed(self, n: int) -> Suggestion:
        """The suggestion with its first `n` characters typed through (its confidence stays: a lower bound; typed
        past the sure part, ghost text shows nothing of it)."""
        keep = [i for i, end in enumerate(self.token_ends) if end > n]
        cut_at = None if self.cut_at is None else max(0, self.cut_at - n)
        return replace(self, text=self.text[n:], token_ends=[self.token_ends[i] - n for i in keep],
                       token_logprobs=[self.token_logprobs[i] for i in keep], cut_at=cut_at,
                       confidence=0.0 if cut_at == 0 else self.confidence)


@dataclass
class Cleaned:
    """Candidates cleaned against the document (`clean`), before the request is booked: `booked` makes them the
    request's `Completion`."""

    suggestions: list[Suggestion]
    plan: CompletionPlan
    result: CompletionResult
    rejected: dict[str, int] = field(default_factory=dict)
    postprocess_ms: float = 0.0

    def cleaning(self) -> dict[str, object]:
        """What post-processing did, for the request's record."""
        top = self.suggestions[0] if self.suggestions else None
        return {"rejected": self.rejected, "top_rules": top.rules if top else [],
                "top_confidence": round(top.confidence, 4) if top else None}

    def booked(self, stats: RequestStats) -> Completion:
        """The request's answer, with the record it was booked as."""
        return Completion(self.suggestions, stats, self.plan, self.result, self.rejected,
                          postprocess_ms=self.postprocess_ms)


@dataclass
class Completion:
    """What one completion request gets: cleaned suggestions and the request's stats record (its source,
    status, error and timings, as `laya/stats` lists it), booked before the Completion is made."""

    suggestions: list[Suggestion]
    stats: RequestStats
    plan: CompletionPlan | None = None  # None when the request never got as far as planning
    result: CompletionResult | None = None  # the engine's raw candidates, when the model ran for this request
    rejected: dict[str, int] = field(default_factory=dict)
    failure: str | None = None  # an engine fault while answering (a bug): worth telling the user
    postprocess_ms: float = 0.0
    # The local answer is unsure: its top suggestion was cut short, or withheld, for low confidence (set by
    # `for_kind`; a bigger model may answer better).
    unsure: bool = False

    def for_kind(self, kind: Kind, threshold: float) -> Completion:
        """What a `kind` request shows (a copy: strategies keep the whole answer): ghost text ("inline") only
        suggestions at least `threshold` sure; the completion list every one, the unsure ones last."""
        shown, doubt = shown_for(self.suggestions, kind, threshold)
        return replace(self, suggestions=shown, unsure=doubt)


def shown_for(suggestions: list[Suggestion], kind: Kind, threshold: float) -> tuple[list[Suggestion], bool]:
    """What a `kind` request shows of `suggestions`, and whether that is unsure (see `Completion.for_kind`)."""
    sure = [s for s in suggestions if s.confidence >= threshold]
    unsure = sorted((s for s in suggestions if s.confidence < threshold), key=lambda s: -s.confidence)
    doubt = bool(unsure) and not sure or bool(sure) and sure[0].cut
    if kind is Kind.INLINE:
        ghosts = [s.ghost() for s in sure]
        return [g for i, g in enumerate(ghosts) if g.text not in {x.text for x in ghosts[:i]}], doubt
    return sure + unsure, doubt




def clean(
    doc: SyntaxDocument,
    offset: int,
    plan: CompletionPlan,
    result: CompletionResult,
    syntax: SyntaxSettings | None,
    min_confidence: float = 0.0,
    calibration: Calibration | None = None,
) -> Cleaned:
    """The cleaned suggestions (`syntax` None: post-processing is off, raw lines, never cut), each with its
    confidence and cut at `min_confidence`; the caller books the record."""
    t0 = time.perf_counter()
    if syntax is None:
        suggestions = raw_lines(result, plan, doc, calibration, offset)
    else:
        detailed = postprocess_detailed(doc, offset, [c.text for c in result.candidates], plan, syntax)
        suggestions = [
            sure(Suggestion(c.text, result.candidates[c.source_index].logprob, c.rules, c.fixed),
                 result.candidates[c.source_index], doc, min_confidence, calibration)
            for c in detailed.candidates
        ]
    if syntax is not None:  # the order every kind shows: sure ones in model order, then the rest, surest first
        sure_ = [x for x in suggestions if x.confidence >= min_confidence]
        rest = sorted((x for x in suggestions if x.confidence < min_confidence), key=lambda x: -x.confidence)
        suggestions = sure_ + rest
    rejected: dict[str, int] = {}
    for r in detailed.rejected if syntax is not None else []:
        rejected[r.reason] = rejected.get(r.reason, 0) + 1
    return Cleaned(suggestions, plan, result, rejected, postprocess_ms=(time.perf_counter() - t0) * 1000)


def sure(s: Suggestion, raw: Candidate, doc: SyntaxDocument, min_confidence: float,
         calibration: Calibration | None = None) -> Suggestion:
    """`s` (made from `raw`) with the model's tokens carried over, its confidence under the model's `calibration`,
    cut at `min_confidence` (0: never cut; no calibration: confidence 1.0, never cut)."""
    ends, lps = trace(s.text, raw)
    if calibration is None:  # a model never calibrated: carried tokens, never cut
        return replace(s, token_ends=ends, token_logprobs=lps)
    conf = token_confidence(lps, doc.language, calibration)
    shown = cut(s.text, ends, conf, min_confidence, doc)
    return replace(s, confidence=shown.confidence, cut_at=len(shown.text) if shown.short else None,
                   token_ends=ends, token_logprobs=lps)


def raw_lines(result: CompletionResult, plan: CompletionPlan, doc: SyntaxDocument,
              calibration: Calibration | None = None, offset: int | None = None) -> list[Suggestion]:
    """Model text cut to the plan's line count only (line breaks before the text do not count; with the cursor's
    `offset`, brackets in strings and comments close nothing), never cut for confidence (but with it)."""
    limit = plan.max_lines if plan.multiline else 1
    closes = first_outer_close if offset is None else answer_brackets(doc, offset).outer_close
    suggestions: list[Suggestion] = []
    for cand in result.candidates:
        text = cut_lines(cand.text, limit, closes)
        if text.strip() and text not in {s.text for s in suggestions}:
            suggestions.append(sure(Suggestion(text, cand.logprob), cand, doc, 0.0, calibration))
    return suggestions
