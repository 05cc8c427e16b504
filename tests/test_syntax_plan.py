"""Plan decisions: complete at all here, and one line or a block?"""

from __future__ import annotations

import pytest
from golden import CURSOR

from laya_lsp.syntax import SyntaxDocument, SyntaxSettings, language_for, plan_completion

# (languageId, document with cursor, complete?, reason, multiline?)
PLAN_CASES = [
    ("python", "x = foo█bar\n", False, "mid_word", False),
    ("python", "x = foo(█, b)\n", False, "code_after_cursor", False),
    ("python", "print(█)\n", True, "single_line", False),
    ("python", "x = [1, █];\n", True, "single_line", False),
    ("python", "def f(x):█\n", True, "after_block_opener", True),
    ("python", "def f(x):\n    █\n", True, "after_block_opener", True),
    ("python", "def f(x):\n    █\n    return x\n", True, "single_line", False),
    ("python", "if x:\n    a()\nelse:█\n", True, "after_block_opener", True),
    ("python", "x = 1\n█\n", True, "single_line", False),
    ("python", "d = {█\n", True, "after_bracket", True),
    ("python", "@cache\n█\n", True, "after_decorator", True),
    # needs an opener; the definition comes whole, with its body
    ("python", "def f(xs):\n    t = 0\n█        t += 1\n", True, "block_before_code", True),
    ("python", "@cache\n█\ndef f():\n    pass\n", True, "single_line", False),  # one follows already
    ("python", "x = d[1:█\n", True, "single_line", False),  # a slice colon opens nothing
    ("python", "# note: █\n", True, "in_comment", False),
    ("python", "# ends with a colon:█\n", True, "in_comment", False),
    ("python", "s = 'abc█'\n", True, "in_string", False),
    ("python", "█", True, "empty_document", True),
    ("python", "x = 1 # trailing comment {█\n", True, "in_comment", False),
    ("javascript", "function f() {█}\n", True, "empty_block", True),
    ("javascript", "function f() {\n  █\n}\n", True, "empty_block", True),
    ("javascript", "function f() {\n  a();\n  █\n}\n", True, "single_line", False),
    ("javascript", "foo(█);\n", True, "single_line", False),
    ("javascript", "const s = `x ${█}`;\n", True, "single_line", False),
    ("javascript", "// todo█\n", True, "in_comment", False),
    ("javascript", "/* block █ */\n", True, "in_comment", False),
    ("javascript", "/* block █text */\n", False, "mid_word", False),
    ("javascript", "/* block █ . */\n", False, "code_after_cursor", False),
    ("javascript", "/* block █*/\n", True, "in_comment", False),
    ("javascript", "x = 1; /* done */█\n", True, "single_line", False),
    ("go", "func main() {\n\t█\n}\n", True, "empty_block", True),
    ("rust", "fn main() {\n    let v = vec![█];\n}\n", True, "single_line", False),
    ("java", "class A {\n    void f() {█}\n}\n", True, "empty_block", True),
    ("c", "int main(void) {\n    if (x) {█\n}\n", True, "empty_block", True),
    ("cpp", "namespace n {█}\n", True, "empty_block", True),
    ("typescript", "interface I {█}\n", True, "empty_block", True),
    ("plaintext", "some words█\n", True, "single_line", False),
    ("ruby", "def f\n  █\nend\n", True, "single_line", False),
    ("kotlin", "fun f() {█\n", True, "after_block_opener", True),
]


@pytest.mark.parametrize(("language", "document", "complete", "reason", "multiline"), PLAN_CASES,
                         ids=[f"{c[0]}:{c[1]!r}" for c in PLAN_CASES])
def test_plan(language: str, document: str, complete: bool, reason: str, multiline: bool) -> None:
    offset = document.index(CURSOR)
    doc = SyntaxDocument(document.replace(CURSOR, ""), language, "")
    plan = plan_completion(doc, offset, SyntaxSettings())
    assert (plan.complete, plan.reason, plan.multiline) == (complete, reason, multiline)
    if plan.complete:
        assert plan.stop_at_newline == (not plan.multiline)
        assert plan.max_lines == (SyntaxSettings().max_lines if plan.multiline else 1)


def test_settings_turn_off_comments_and_strings() -> None:
    settings = SyntaxSettings(complete_in_comments=False, complete_in_strings=False)
    doc = SyntaxDocument("# hello\ns = 'abc'\n", "python", "")
    assert plan_completion(doc, 7, settings).reason == "in_comment"
    assert not plan_completion(doc, 7, settings).complete
    in_string = plan_completion(doc, doc.text.index("abc") + 2, settings)
    assert (in_string.complete, in_string.reason) == (False, "in_string")


def test_settings_multiline_off_and_budgets() -> None:
    doc = SyntaxDocument("def f():\n    ", "python", "")
    plan = plan_completion(doc, len(doc.text), SyntaxSettings(multiline=False))
    assert plan.complete and not plan.multiline and plan.max_tokens == SyntaxSettings().single_line_max_tokens
    block = plan_completion(doc, len(doc.text), SyntaxSettings(max_lines=5, multi_line_max_tokens=99))
    assert block.multiline and block.max_lines == 5 and block.max_tokens == 99


def test_plan_indent_is_the_body_indent() -> None:
    doc = SyntaxDocument("class A:\n    def f(self):\n", "python", "")
    assert plan_completion(doc, len(doc.text)).indent == "        "
    go = SyntaxDocument("func f() {\n", "go", "")
    assert plan_completion(go, len(go.text)).indent == "\t"


@pytest.mark.parametrize(("language_id", "uri", "expected"), [
    ("python", "", "python"), ("", "file:///a/b.py", "python"), ("typescriptreact", "", "tsx"),
    ("", "file:///x/App.TSX", "tsx"), ("", "file:///x/a.mts", "typescript"), ("javascriptreact", "", "javascript"),
    ("go", "file:///m.go", "go"), ("", "file:///lib.rs", "rust"), ("c", "file:///a.h", "c"),
    ("", "file:///a.hpp", "cpp"), ("cpp", "file:///a.h", "cpp"), ("java", "", "java"),
    ("", "file:///a%20b/c.java", "java"), ("ruby", "file:///a.rb", None), ("", "untitled:Untitled-1", None),
    ("plaintext", "file:///notes.py", "python"),
])
def test_language_for(language_id: str, uri: str, expected: str | None) -> None:
    assert language_for(language_id, uri) == expected
