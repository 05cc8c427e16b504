"""Property: on a file that parses, every candidate post-processing returns leaves it parsing (full parse),
whatever the model produced; and nothing raises."""

from __future__ import annotations

import ast

from golden.samples import SAMPLES
from hypothesis import given, settings
from hypothesis import strategies as st

from laya_lsp.syntax import SyntaxDocument, plan_completion, postprocess_detailed

PIECES = ["x", "foo", "(", ")", "[", "]", "{", "}", " ", "\n", "    ", "\t", ":", ";", ",", "=", "+", "'", "\"",
          "return ", "if ", "else", "1", "#", "//", "/*", "*/", "def ", "fn ", "let ", "\\", "`", "中", "😀"]
candidates = st.lists(st.lists(st.sampled_from(PIECES), max_size=14).map("".join), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(language=st.sampled_from(sorted(SAMPLES)), where=st.floats(0, 1), raw=candidates)
def test_returned_candidates_keep_a_clean_file_parsing(language: str, where: float, raw: list[str]) -> None:
    text = SAMPLES[language]
    doc = SyntaxDocument(text, language, "")
    assert doc.parser is not None and not doc.has_errors()
    offset = int(where * len(text))
    plan = plan_completion(doc, offset)
    if not plan.complete:
        return
    result = postprocess_detailed(doc, offset, raw, plan)
    assert len(result.candidates) + len(result.rejected) == len(raw)
    for candidate in result.candidates:
        after = text[:offset] + candidate.text + text[offset:]
        tree = doc.parser.parse(after.encode("utf-8", "surrogatepass"))
        assert not tree.root_node.has_error, (offset, candidate.text, candidate.rules)
        if language == "python":  # stricter than tree-sitter-python: indentation, operators at line end
            ast.parse(after)
        assert candidate.text.strip()
    assert [c.rank for c in result.candidates] == list(range(len(result.candidates)))
    fixed = [c.fixed for c in result.candidates]
    assert fixed == sorted(fixed), "fixed candidates rank below valid ones"


@settings(max_examples=60, deadline=None)
@given(language=st.sampled_from([*sorted(SAMPLES), "plaintext"]),
       text=st.sampled_from(["", "\n", "\n\n", "  ", "\r\n", "x", "{", "}", "(", "'", "\"\"\"", "/*", "#"]),
       raw=candidates)
def test_degenerate_documents_do_not_raise(language: str, text: str, raw: list[str]) -> None:
    doc = SyntaxDocument(text, language, "")
    for offset in range(len(text) + 1):
        plan = plan_completion(doc, offset)
        result = postprocess_detailed(doc, offset, raw, plan)
        assert len(result.candidates) + len(result.rejected) == len(raw)


def test_python_leading_zero_literal_is_rejected() -> None:
    """tree-sitter-python parses `01`; Python does not (found by the property test above)."""
    text = "def f():\n    total = 0\n    return total\n"
    doc = SyntaxDocument(text, "python", "")
    offset = text.index("total = 0") + len("total = 0")
    plan = plan_completion(doc, offset)
    result = postprocess_detailed(doc, offset, ["1", ".5", " + 1"], plan)
    kept = [c.text for c in result.candidates]
    assert "1" not in kept and ".5" in kept and " + 1" in kept
