"""Golden table of the confidence cut (tests/golden/confidence_cases.py): each case's tokens go through the
server's own cleaning (`answers.clean`: post-processing, then the cut) and what ghost text shows is compared."""

from __future__ import annotations

import math

import pytest
from golden.confidence_cases import CASES, CutCase

from laya_lsp.engine import Candidate, CompletionResult, Timings
from laya_lsp.orchestrator.answers import clean, shown_for
from laya_lsp.orchestrator.confidence import Calibration
from laya_lsp.orchestrator.records import Kind
from laya_lsp.syntax import SyntaxDocument, SyntaxSettings, plan_completion

# p = sigmoid(20 + 20 * least log-probability so far): a token of probability 0.5 leaves p > 0.99, 0.3 < 0.01.
SHARP = Calibration(20.0, {"min": 20.0}, 0.5)


def shown(case: CutCase) -> str | None:
    text, offset = case.document.replace("█", ""), case.document.index("█")
    doc = SyntaxDocument(text, case.language, "")
    plan = plan_completion(doc, offset, SyntaxSettings())
    raw = "".join(t for t, _ in case.tokens)
    ends = [sum(len(t) for t, _ in case.tokens[: i + 1]) for i in range(len(case.tokens))]
    lps = [math.log(p) for _, p in case.tokens]
    result = CompletionResult([Candidate(raw, sum(lps), len(lps), lps, ends)], Timings())
    cleaned = clean(doc, offset, plan, result, SyntaxSettings(), SHARP.threshold, SHARP)
    shown, _unsure = shown_for(cleaned.suggestions, Kind.INLINE, SHARP.threshold)
    return shown[0].text if shown else None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_confidence_cut(case: CutCase) -> None:
    assert shown(case) == case.expect
