"""The candidate check parses a small window instead of the file: it must judge as a full parse would."""

from __future__ import annotations

import pytest
from golden.samples import SAMPLES

from laya_lsp.syntax import SyntaxDocument
from laya_lsp.syntax.validate import CandidateChecker
from laya_lsp.syntax.windows import choose_window


def _full_parse_errors(doc: SyntaxDocument, text: str) -> bool:
    assert doc.parser is not None
    return doc.parser.parse(text.encode()).root_node.has_error


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_samples_parse_clean(language: str) -> None:
    doc = SyntaxDocument(SAMPLES[language], language, "")
    assert doc.tree is not None and not doc.has_errors(), str(doc.tree.root_node)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_windows_parse_standalone(language: str) -> None:
    """Every window of a clean file parses clean on its own, header and footer included."""
    doc = SyntaxDocument(SAMPLES[language], language, "")
    assert doc.parser is not None
    for byte in range(0, len(doc.data), 7):
        window = choose_window(doc, byte)
        if window is None:
            continue
        text = window.text(doc.data, byte, b"")
        assert not doc.parser.parse(text).root_node.has_error, (byte, text.decode())


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_retyping_a_line_is_accepted_and_junk_rejected(language: str) -> None:
    """Cut each line's tail, then offer it back: the window check must accept it (the file was valid) and
    must reject a stray closer that breaks the file, exactly as a full parse does."""
    text = SAMPLES[language]
    lines = text.split("\n")
    offset = 0
    for line in lines:
        body = line.strip()
        if len(body) > 3:
            cut = offset + len(line) - len(body) // 2
            rest = text[cut:offset + len(line)]
            doc = SyntaxDocument(text[:cut] + text[offset + len(line):], language, "")
            checker = CandidateChecker(doc, cut)
            assert checker.check(rest).accepted, (line, rest)
            junk = rest + " )]} ("
            full_rejects = _full_parse_errors(doc, doc.text[:cut] + junk + doc.text[cut:])
            if full_rejects and not doc.has_errors():
                assert not checker.check(junk).accepted, (line, junk)
        offset += len(line) + 1
