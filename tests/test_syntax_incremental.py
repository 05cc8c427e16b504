"""Incremental edits through `apply_change` keep the text and the tree identical to a fresh parse.

Positions are LSP positions (line, UTF-16 column) computed by an independent reference below, over text with
CJK, emoji (surrogate pairs in UTF-16), CRLF and lone CR line endings.
"""

from __future__ import annotations

import re

import tree_sitter
from hypothesis import given, settings
from hypothesis import strategies as st

from laya_lsp.syntax import SyntaxDocument
from laya_lsp.syntax.languages import new_parser

PIECES = ["a", "x", " ", "  ", "\n", "\r\n", "\r", "(", ")", "{", "}", ":", "=", "\"", "'", "#", "//",
          "中文", "😀", "é", "def f():", "if x:", "return 1", "let y = 2;", "𝒳", "\t"]
_EOL = re.compile(r"\r\n|\r|\n")


def ref_lines(text: str) -> list[tuple[int, str]]:
    """(start index, content without line ending) of each LSP line."""
    out, start = [], 0
    for match in _EOL.finditer(text):
        out.append((start, text[start:match.start()]))
        start = match.end()
    out.append((start, text[start:]))
    return out


def ref_position(text: str, index: int) -> tuple[int, int]:
    """LSP position of a str index, computed the slow obvious way."""
    for line_no, (start, content) in reversed(list(enumerate(ref_lines(text)))):
        if start <= index:
            column = min(index - start, len(content))
            return line_no, sum(2 if ord(c) > 0xFFFF else 1 for c in content[:column])
    raise AssertionError


def ref_offset(text: str, line: int, col: int) -> int:
    lines = ref_lines(text)
    if line >= len(lines):
        return len(text)
    start, content = lines[line]
    units = 0
    for i, char in enumerate(content):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > col:
            return start + i
    return start + len(content)


def node_list(tree: tree_sitter.Tree) -> list[tuple[str, int, int, tuple[int, int]]]:
    out = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        out.append((node.type, node.start_byte, node.end_byte, (node.start_point.row, node.start_point.column)))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return out


texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
edits = st.lists(
    st.tuples(st.floats(0, 1), st.floats(0, 1), texts, st.booleans()), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(initial=texts, changes=edits, language=st.sampled_from(["python", "javascript", "rust"]))
def test_incremental_edits_match_fresh_parse(initial: str, changes: list, language: str) -> None:
    doc = SyntaxDocument(initial, language, "")
    reference = initial
    for a, b, new_text, overshoot in changes:
        lo, hi = sorted((int(a * len(reference)), int(b * len(reference))))
        start, end = ref_position(reference, lo), ref_position(reference, hi)
        if overshoot:  # columns past the end of a line clamp to the line's end
            end = (end[0], end[1] + 5)
        lo, hi = ref_offset(reference, *start), ref_offset(reference, *end)
        doc.apply_change(start, end, new_text)
        reference = reference[:lo] + new_text + reference[hi:]
        assert doc.text == reference
        assert doc._line_starts() == [start for start, _ in ref_lines(reference)]  # patched, not rescanned
    fresh = new_parser(language).parse(reference.encode("utf-8", "surrogatepass"))
    assert doc.tree is not None
    assert str(doc.tree.root_node) == str(fresh.root_node)
    assert node_list(doc.tree) == node_list(fresh)


@settings(max_examples=40, deadline=None)
@given(initial=texts, changes=edits, language=st.sampled_from(["python", "typescript", "go"]))
def test_batched_changes_reparse_once_and_match(initial: str, changes: list, language: str) -> None:
    """The contentChanges of one didChange go in together: edits in order, one reparse at the end."""
    doc = SyntaxDocument(initial, language, "")
    reference = initial
    batch = []
    for a, b, new_text, _ in changes:
        lo, hi = sorted((int(a * len(reference)), int(b * len(reference))))
        start, end = ref_position(reference, lo), ref_position(reference, hi)
        batch.append((start, end, new_text))
        lo, hi = ref_offset(reference, *start), ref_offset(reference, *end)  # inside a CRLF rounds down
        reference = reference[:lo] + new_text + reference[hi:]
    doc.apply_changes(batch)
    assert doc.text == reference
    fresh = new_parser(language).parse(reference.encode("utf-8", "surrogatepass"))
    assert doc.tree is not None and node_list(doc.tree) == node_list(fresh)


def test_full_text_change_in_a_batch() -> None:
    doc = SyntaxDocument("x = 1\n", "python", "")
    doc.apply_changes(["y = 2\n", ((0, 0), (0, 1), "z")])
    assert doc.text == "z = 2\n" and str(doc.tree.root_node).startswith("(module")  # type: ignore[union-attr]


@settings(max_examples=40, deadline=None)
@given(text=texts, fraction=st.floats(0, 1))
def test_position_round_trip(text: str, fraction: float) -> None:
    doc = SyntaxDocument(text, "plaintext", "file:///x.txt")
    index = int(fraction * len(text))
    line, col = ref_position(text, index)
    assert doc.position_at(ref_offset(text, line, col)) == (line, col)
    assert doc.offset_at(line, col) == ref_offset(text, line, col)


def test_surrogate_pair_and_cjk_columns() -> None:
    doc = SyntaxDocument("a😀b中c\r\nx = 1\n", "python", "file:///t.py")
    assert doc.offset_at(0, 3) == 2  # 'a' + surrogate pair (2 units) → index of 'b'
    assert doc.offset_at(0, 4) == 3  # after 'b'
    assert doc.offset_at(0, 99) == 5  # clamps before the CRLF
    assert doc.offset_at(1, 0) == 7
    doc.apply_change((0, 3), (0, 4), "中文")
    assert doc.text == "a😀中文中c\r\nx = 1\n"
    assert doc.byte_offset(2) == len("a😀".encode())


@settings(max_examples=40, deadline=None)
@given(text=texts, fraction=st.floats(0, 1), encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]))
def test_position_encodings_round_trip(text: str, fraction: float, encoding: str) -> None:
    doc = SyntaxDocument(text, "python", "")
    index = ref_offset(text, *ref_position(text, int(fraction * len(text))))  # a valid position
    line, col = doc.position_at(index, encoding)
    assert doc.offset_at(line, col, encoding) == index
    start = next(s for s, _ in reversed(ref_lines(text)) if s <= index)
    codec = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[encoding]
    unit = {"utf-8": 1, "utf-16": 2, "utf-32": 4}[encoding]
    assert col == len(text[start:index].encode(codec, "surrogatepass")) // unit


def test_form_feed_is_not_a_line_break() -> None:
    doc = SyntaxDocument("a\fb\nc\x0bd\u2028e\n", "python", "")
    assert doc.offset_at(1, 0) == 4  # LSP lines end only at \n, \r\n, \r (str.splitlines would disagree)
    assert doc.position_at(5) == (1, 1)


def test_fallback_document_has_no_tree() -> None:
    doc = SyntaxDocument("some text\n", "plaintext", "file:///notes.txt")
    assert doc.tree is None and doc.language is None and not doc.has_errors()
    doc.apply_change((0, 5), (0, 9), "words")
    assert doc.text == "some words\n"
