"""Where a completion's lines end (laya_lsp/lines.py): the engine's stop rule and post-processing's cuts are one
rule, so the engine never stops before the text post-processing keeps, and both count the same lines."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laya_lsp.decisions.resolve import raw_block
from laya_lsp.engine import Candidate, CompletionResult, Timings
from laya_lsp.lines import bracket_depths, cut_lines, cut_single_line, ends_answer
from laya_lsp.orchestrator.answers import raw_lines
from laya_lsp.syntax import SyntaxDocument, SyntaxSettings, plan_completion, postprocess_detailed

# Pieces a tokenizer might make: breaks alone or inside text, blanks, code.
PIECES = st.sampled_from(["\n", "\n\n", " ", "    ", "\t", "x", "y = 1", ")\n", "\n    ", "  \n", "pass", "\r\n",
                          "(", ")", "])", "f(x)", "\n)", ")(", "}\n", "{"])


def _decode(tokens: list[str], max_lines: int) -> str:
    """What the engine decodes from `tokens` under the line rule (a token ending the answer is kept)."""
    out: list[str] = []
    for token in tokens:
        out.append(token)
        if ends_answer(out[:-1], token, max_lines, lambda t: "\n" in t, lambda t: not t.strip(), bracket_depths):
            break
    return "".join(out)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=14), st.integers(1, 4))
def test_the_engine_never_stops_before_the_text_cut(tokens: list[str], max_lines: int):
    full = "".join(tokens)
    assert cut_lines(_decode(tokens, max_lines), max_lines) == cut_lines(full, max_lines)


@pytest.mark.parametrize(("text", "max_lines", "expected"), [
    ("a\nb\nc", 2, "a\nb"),
    ("\n\n    a\n    b\n", 1, "\n\n    a"),  # breaks before the text are no lines of it
    ("  \n\ta\nb", 1, "  \n\ta"),
    ("a\n\nb", 2, "a\n"),  # a blank line inside the answer is one of its lines
    ("a", 3, "a"),
    ("\n \n", 1, "\n \n"),  # no visible text: nothing to cut (the caller drops blanks)
])
def test_cut_lines(text: str, max_lines: int, expected: str):
    assert cut_lines(text, max_lines) == expected


@pytest.mark.parametrize(("text", "max_lines", "expected"), [
    ("uuid.uuid4())\n        self.writer = writer\n", 8, "uuid.uuid4())"),  # after `str(`: the call is done
    ("\n    a,\n    b,\n)\nnext()\n", 8, "\n    a,\n    b,\n)"),  # arguments on their own lines, then `)`
    ("a).b(c)\nd", 8, "a).b(c)"),  # the line goes on after the closer: its end ends the answer
    ("x = [1,\n  2]\ny = 3\n", 8, "x = [1,\n  2]\ny = 3\n"),  # brackets it opened itself do not end it
    ("    return x\n}\n\nfunction g() {\n", 8, "    return x\n}"),  # the body it was asked to fill is closed
    ("a)\nb\nc", 1, "a)"),
])
def test_an_answer_ends_on_the_line_that_closes_a_bracket_opened_before_it(text: str, max_lines: int, expected: str):
    assert cut_lines(text, max_lines) == expected
    decoded = _decode(list(text), max_lines)  # the engine, a character per token, stops at that line's break
    assert cut_lines(decoded, max_lines) == expected and len(decoded) <= len(expected) + 1


@pytest.mark.parametrize(("token", "depths"), [
    ("x", (0, 0, 0)), (")", (-1, -1, 0)), (")\n", (-1, -1, -1)), ("\n)", (-1, -1, 0)), (")(", (0, -1, 0)),
    ("([", (2, 0, 0)),
])
def test_bracket_depths_of_a_piece(token: str, depths: tuple[int, int, int]):
    assert bracket_depths(token) == depths


@pytest.mark.parametrize(("text", "expected"), [
    ("foo()\nbar()", "foo()"),
    ("\nfoo()\nbar()", "\nfoo()"),  # a completion may start on the next line
    ("\n   \nfoo()", ""),  # a line of blanks first: nothing on one line
    ("   \nfoo()", "   "),
    ("foo()", "foo()"),
])
def test_cut_single_line(text: str, expected: str):
    assert cut_single_line(text) == expected


def test_after_a_block_opener_post_processing_keeps_the_lines_the_engine_decoded():
    """The answer after `def f(x):` starts with a line break; the engine does not count it as a line, so neither
    may post-processing (it kept one line fewer than the plan's, throwing away a line the engine paid for)."""
    text = "def f(x):\n"
    doc = SyntaxDocument(text, "python", "file:///f.py")
    offset = len("def f(x):")
    plan = replace(plan_completion(doc, offset, SyntaxSettings()), max_lines=2)
    assert plan.multiline
    tokens = ["\n    ", "y", " = x", "\n    ", "return", " y", "\n    ", "pass"]
    decoded = _decode(tokens, plan.max_lines)
    assert decoded == "\n    y = x\n    return y\n    "
    cleaned = [c.text for c in postprocess_detailed(doc, offset, [decoded], plan).candidates]
    assert cleaned == ["\n    y = x\n    return y"]
    raw = raw_lines(CompletionResult([Candidate(decoded, 0.0, len(tokens))], Timings()), plan, doc)
    assert [s.text for s in raw] == cleaned  # post-processing off cuts at the same place


def test_code_action_blocks_count_lines_as_completions_do():
    """A block after `def f():` starts with a line break; like a completion's, it does not count as a line (a
    `split("\n")[:n]` cut kept n - 1 lines of code, or none)."""
    gens = [Candidate("\n", -0.1, 1), Candidate("\n    y = x\n    return y\n    z = 1\n", -0.2, 9)]
    block = raw_block(gens, 2)
    assert block is not None and block.text == "\n    y = x\n    return y"
    assert raw_block([Candidate("\n\n", 0.0, 1)], 2) is None


def test_the_engine_stop_ends_a_branch_at_the_break_after_an_outer_closer() -> None:
    """The engine's LineStop reads each token's bracket depths (what the loaded model computes from its token
    texts): after `str(`, `uuid.uuid4())` + a line break ends a branch of a 8-line block plan."""
    from laya_lsp.engine.decoding.stop import LineStop, Verdict

    texts = ["uuid", ".uuid4", "()", ")", "\n        ", "self", "\n"]
    stop = LineStop(8, frozenset(), frozenset(i for i, t in enumerate(texts) if "\n" in t),
                    frozenset(i for i, t in enumerate(texts) if not t.strip()),
                    {i: bracket_depths(t) for i, t in enumerate(texts) if any(c in t for c in "()[]{}")})
    ids: list[int] = []
    verdicts = []
    for token in range(len(texts)):
        verdicts.append(stop(ids, token))
        ids.append(token)
    assert verdicts.index(Verdict.END) == 4  # the break after `)`, not the 8th line
    assert LineStop(8, frozenset(), stop.newline_ids, stop.blank_ids)(ids[:4], 4) is Verdict.GO  # brackets not counted
