"""Table-driven golden tests of the syntax layer: plan + post-processing on documents with a cursor."""

from __future__ import annotations

import pytest
from golden import (
    Case,
    c_family_cases,
    impossible_cases,
    js_ts_cases,
    misc_cases,
    position_cases,
    python_cases,
)

from laya_lsp.syntax import SyntaxDocument, SyntaxSettings, plan_completion, postprocess_detailed

ALL_CASES: list[Case] = [
    *python_cases.CASES, *js_ts_cases.CASES, *c_family_cases.CASES, *misc_cases.CASES, *position_cases.CASES,
    *impossible_cases.CASES,
]


def test_table_is_large_and_varied() -> None:
    assert len(ALL_CASES) >= 60
    assert len({case.language for case in ALL_CASES}) >= 5
    assert len({case.name for case in ALL_CASES}) == len(ALL_CASES), "case names must be unique"


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: f"{c.language}: {c.name}")
def test_golden(case: Case) -> None:
    text, offset = case.split()
    doc = SyntaxDocument(text, case.language, case.uri)
    plan = plan_completion(doc, offset, SyntaxSettings())
    assert plan.complete, f"plan refused: {plan.reason}"
    if case.plan is not None:
        assert plan.reason == case.plan
    raw = case.raw if isinstance(case.raw, list) else [case.raw]
    result = postprocess_detailed(doc, offset, raw, plan)
    texts = [c.text for c in result.candidates]
    if case.expect is None:
        assert texts == [], f"expected rejection, got {texts!r}"
    elif isinstance(case.expect, list):
        assert texts == case.expect
    else:
        assert texts[:1] == [case.expect], f"rejected: {[(r.reason, r.rules) for r in result.rejected]}"
    applied = {rule for c in result.candidates for rule in c.rules} | {
        rule for r in result.rejected for rule in r.rules}
    for rule in case.rules:
        assert any(rule in name.split("+") for name in applied), f"{rule} not in {sorted(applied)}"
