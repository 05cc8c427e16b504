"""A bracket inside a string or a comment the answer writes closes nothing (syntax/answer_brackets.py): the line
rule (an answer ends on the line where it closes a bracket opened before it) counts only brackets that are code,
by tree-sitter, in the engine's stop and in post-processing alike. Through the real server with a model that
always writes one known answer (scriptedmodel.py), and as a table of cuts."""

from __future__ import annotations

import sys

import pytest
from lsphelpers import complete_texts, open_doc, position_at, server_session, stats
from pytest_lsp import LanguageClient
from scriptedmodel import scripted_model_dir

from laya_lsp.lines import cut_lines
from laya_lsp.syntax import SyntaxDocument, answer_brackets

# One candidate, shown whatever its confidence, whole at once, without name steering or speculation.
BASE = {"debounceMs": 0, "candidates": 1, "typingCandidates": 1, "minConfidence": 0, "warmUp": False,
        "firstLineFirst": False, "speculative": False, "typedThrough": False, "crossFileTokens": 0}
DOC = "import os\n\nx = f(g("  # after `g(` at the end of a file: a block plan (after_bracket), up to 8 lines
IN_STRING = '\n    "a)",\n        b,\n))\n\n    zy'
IN_COMMENT = "\n    a, # f)\n        c\n))\n\n    zy"


def _server(script: str) -> object:
    return server_session([sys.executable, "-m", "laya_lsp", "--model", str(scripted_model_dir(script))], BASE)


in_string = _server(IN_STRING)
in_comment = _server(IN_COMMENT)


async def _answer(client: LanguageClient) -> tuple[list[str], dict]:
    uri = "file:///work/brackets.py"
    open_doc(client, uri, DOC)
    texts = await complete_texts(client, uri, position_at(DOC, len(DOC)))
    record = next(r for r in (await stats(client))["recent"] if r["kind"] == "completion")
    return texts, record


async def test_a_closer_in_a_string_does_not_end_the_answer(in_string: LanguageClient) -> None:
    texts, record = await _answer(in_string)
    assert texts == ['\n    "a)",\n        b,\n))']  # the engine went on past `"a)",` and the cut kept its lines
    assert record["extra"]["plan"] == "after_bracket"
    assert record["decode_tokens"] == 11  # the engine stopped at the break after `))`, its 10th token, no sooner


async def test_a_closer_in_a_comment_does_not_end_the_answer(in_comment: LanguageClient) -> None:
    texts, _ = await _answer(in_comment)
    assert texts == ["\n    a, # f)\n        c\n))"]


@pytest.mark.parametrize(("language", "before", "answer", "expected"), [
    ("python", "x = f(", '\n    "a)",\n    b,\n)\nz = 1\n', '\n    "a)",\n    b,\n)'),
    ("python", "x = f(", "\n    a,  # b)\n    c,\n)\nz = 1\n", "\n    a,  # b)\n    c,\n)"),
    ("python", "x = f(", '\n    "(",\n)\nz = 1\n', '\n    "(",\n)'),  # an opener in a string opens nothing
    ("python", "x = f(", "\n    '''a)\n    b''',\n)\nz\n", "\n    '''a)\n    b''',\n)"),  # a string over lines
    ("python", 'x = f("a(', 'b)",\n    c)\nz = 1\n', 'b)",\n    c)'),  # the answer starts inside a string
    ("javascript", "f(", '\n  "a)",\n  `b)`, // c)\n  /* ) */ d\n);\nz\n', '\n  "a)",\n  `b)`, // c)\n  /* ) */ d\n);'),
    ("rust", "f(", "\n    '(',\n    \"b)\",\n)\nz\n", "\n    '(',\n    \"b)\",\n)"),  # a char literal
    ("plaintext", "f(", '\n  "a)",\n  d\n)\nz\n', '\n  "a)",\n  d\n)'),  # no grammar: the lexer skips strings
    ("python", "x = f(", "a)\nz = 1\n", "a)"),
])
def test_cuts_count_only_the_brackets_that_are_code(language: str, before: str, answer: str, expected: str) -> None:
    ext = {"python": "py", "javascript": "js", "rust": "rs", "plaintext": "txt"}[language]
    doc = SyntaxDocument(before + "\n\nnext_line()\n", language, f"file:///x.{ext}")
    assert cut_lines(answer, 8, answer_brackets(doc, len(before)).outer_close) == expected

