"""Which brackets of an answer are code: the line rule's `outer_close` (laya_lsp/lines.py), by tree-sitter.

An answer ends on the line where it closes a bracket opened before it; a `)` inside a string or a comment it
writes (`"a)"`, `# f(x)`) closes nothing, and a `(` there opens nothing. tree-sitter parses the document up to
the cursor with the answer after it (an incremental reparse of a copy of the document's tree), and a bracket
counts only where it is one of the grammar's bracket tokens. Languages without a grammar use the bracket lexer
(brackets.py), which skips strings and comments by the language's quotes and comment markers.

An `AnswerBrackets` is made on the request's thread from a snapshot of the document (its text and a copy of its
tree) and parses with its own parser, so the engine's worker may call it while the document changes.
"""

from __future__ import annotations

import threading

import tree_sitter

from ..lines import CLOSERS, OPENERS, first_outer_close
from .brackets import scan_brackets
from .context import cursor_context
from .document import SyntaxDocument, encode, point_after, ts_point
from .languages import new_parser

_BRACKETS = frozenset(OPENERS + CLOSERS)
_BRACKET_BYTES = {ord(c): (1 if c in OPENERS else -1) for c in _BRACKETS}
_QUOTES = "\"'`"


class AnswerBrackets:
    """Where answers inserted at one cursor close a bracket opened before them, strings and comments aside."""

    def __init__(self, doc: SyntaxDocument, offset: int) -> None:
        ctx = cursor_context(doc, offset)
        self.spec = doc.spec
        self.in_string = ctx.in_string
        # Only text that may start a string or a comment (or starts in one) can hide a bracket from a character
        # count: other answers are counted as characters, with the same result and no parse.
        self.plain_code = ctx.in_string is None and not ctx.in_comment and not ctx.in_interpolation
        self._markers = tuple(m for m in (*_QUOTES, doc.spec.line_comment,
                                          doc.spec.block_comment[0] if doc.spec.block_comment else None) if m)
        self._language = doc.language if doc.tree is not None else None
        self._tree = doc.tree.copy() if doc.tree is not None else None
        self._data = doc.data
        self._byte = doc.byte_offset(offset)
        self._parser: tree_sitter.Parser | None = None
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()  # the worker and the request's thread may ask at once: one parser each time

    def outer_close(self, text: str) -> int:
        """Index in `text` of its first closer of a bracket opened before it (-1: none), counting only brackets
        that are code where `text` is inserted."""
        if _BRACKETS.isdisjoint(text):
            return -1
        if self.plain_code and not any(m in text for m in self._markers):
            return first_outer_close(text)
        found = self._seen.get(text)
        if found is None:
            with self._lock:
                found = self._parsed_close(text) if self._tree is not None else self._lexed_close(text)
            self._seen[text] = found
        return found

    def _lexed_close(self, text: str) -> int:
        closer = scan_brackets(text, self.spec, self.in_string).first_outer_closer
        return -1 if closer is None else closer

    def _parsed_close(self, text: str) -> int:
        inserted = encode(text)
        root = self._reparsed(inserted).root_node
        depth = 0
        for i, byte in enumerate(inserted):
            step = _BRACKET_BYTES.get(byte)
            if step is None:
                continue
            at = self._byte + i
            node = root.descendant_for_byte_range(at, at + 1)
            if node is None or node.type != chr(byte) or node.start_byte != at:
                continue  # inside a string, a comment, or another token
            depth += step
            if depth < 0:
                return len(inserted[:i].decode("utf-8", "surrogatepass"))
        return -1

    def _reparsed(self, inserted: bytes) -> tree_sitter.Tree:
        """The document up to the cursor with `inserted` after it, parsed reusing the document's tree."""
        assert self._tree is not None and self._language is not None
        if self._parser is None:
            self._parser = new_parser(self._language)
        data, at = self._data, self._byte
        tree = self._tree.copy()
        start = ts_point(data, at)
        tree.edit(start_byte=at, old_end_byte=len(data), new_end_byte=at + len(inserted), start_point=start,
                  old_end_point=ts_point(data, len(data)), new_end_point=point_after(start, inserted))
        return self._parser.parse(data[:at] + inserted, tree)


def answer_brackets(doc: SyntaxDocument, offset: int) -> AnswerBrackets:
    """The document version's `AnswerBrackets` at `offset` (one per version and cursor, so the engine's stop and
    post-processing share what was parsed)."""
    key = ("answer_brackets", offset)
    found = doc.memo.get(key)
    if not isinstance(found, AnswerBrackets):
        found = AnswerBrackets(doc, offset)
        doc.memo[key] = found
    return found
