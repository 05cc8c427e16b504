"""Does inserting a candidate add syntax errors? Answered by reparsing only a window around the cursor.

Reparsing the whole document per candidate costs milliseconds in Python's grammar (its indentation scanner
limits tree reuse), so the check parses the small standalone window of windows.py. Where none exists the
document's tree is copied, edited and reparsed incrementally instead. Errors are compared before/after on the
same text, so unrelated errors elsewhere in the file neither block nor excuse a candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from .document import SyntaxDocument, encode, point_after, ts_point
from .windows import Window, choose_window

Span = tuple[int, int]


def error_spans(node: tree_sitter.Node, limit: int = 64) -> list[Span]:
    """Byte spans of ERROR and MISSING nodes, descending only into subtrees that contain errors."""
    spans: list[Span] = []
    stack = [node]
    while stack and len(spans) < limit:
        current = stack.pop()
        if current.is_error or current.is_missing:
            spans.append((current.start_byte, current.end_byte))
        elif current.has_error:
            stack.extend(current.children)
    return spans


def empty_blocks(node: tree_sitter.Node, lo: int, hi: int) -> int:
    """Python `block` nodes without statements touching [lo, hi]: tree-sitter-python accepts a missing body
    (`if x:` then a dedent) without an error node, but Python does not."""
    count = 0
    stack = [node]
    while stack:
        current = stack.pop()
        if current.end_byte < lo or current.start_byte > hi:
            continue
        if current.type == "block" and not any(c.is_named and "comment" not in c.type for c in current.children):
            count += 1
        stack.extend(current.children)
    return count


def _touches(spans: list[Span], lo: int, hi: int) -> bool:
    return any(start <= hi and end >= lo for start, end in spans)


@dataclass(frozen=True)
class Verdict:
    """Outcome of one candidate check."""

    accepted: bool
    errors_before: int
    errors_after: int


class CandidateChecker:
    """Checks candidates inserted at one cursor position against the errors the document already has there."""

    def __init__(self, doc: SyntaxDocument, offset: int) -> None:
        assert doc.parser is not None and doc.tree is not None
        self.doc = doc
        self.parser = doc.parser
        self.byte = doc.byte_offset(offset)
        self.checks = 0
        self.python = doc.language == "python"
        memo_key = ("window", self.byte)
        cached = doc.memo.get(memo_key)
        if cached is None:
            window = choose_window(doc, self.byte)
            root = doc.tree.root_node if window is None else self.parser.parse(
                window.text(doc.data, self.byte, b"")).root_node
            at = self.byte if window is None else window.position(self.byte)
            before = error_spans(root)
            empty = empty_blocks(root, at, at) if self.python else 0
            cached = (window, before, empty)
            doc.memo[memo_key] = cached
        self.window: Window | None = cached[0]  # type: ignore[index]
        self.before: list[Span] = cached[1]  # type: ignore[index]
        self.empty_before: int = cached[2]  # type: ignore[index]

    def _errors_after(self, inserted: bytes) -> tuple[list[Span], int, int]:
        """Error spans after inserting, where the insertion starts in the parsed text, and new empty blocks."""
        if self.window is not None:
            root = self.parser.parse(self.window.text(self.doc.data, self.byte, inserted)).root_node
            at = self.window.position(self.byte)
            empty = empty_blocks(root, at, at + len(inserted)) if self._may_empty(inserted) else 0
            return error_spans(root), at, empty
        assert self.doc.tree is not None
        data = self.doc.data
        tree = self.doc.tree.copy()
        start_point = ts_point(data, self.byte)
        tree.edit(start_byte=self.byte, old_end_byte=self.byte, new_end_byte=self.byte + len(inserted),
                  start_point=start_point, old_end_point=start_point,
                  new_end_point=point_after(start_point, inserted))
        root = self.parser.parse(data[:self.byte] + inserted + data[self.byte:], tree).root_node
        empty = empty_blocks(root, self.byte, self.byte + len(inserted)) if self._may_empty(inserted) else 0
        return error_spans(root), self.byte, empty

    def _may_empty(self, inserted: bytes) -> bool:
        """Only a `:` can open a Python block; recount only if there is one or the cursor had an empty block."""
        return self.python and (b":" in inserted or self.empty_before > 0)

    def before_at(self) -> int:
        """Where the cursor sits in the coordinates of the `before` spans."""
        return self.byte if self.window is None else self.window.position(self.byte)

    def check(self, text: str) -> Verdict:
        """Accept `text` unless it adds errors: more error nodes than before, or errors in the inserted text
        where there were none at the cursor before."""
        self.checks += 1
        inserted = encode(text)
        after, at, empty_after = self._errors_after(inserted)
        added_here = _touches(after, at, at + len(inserted)) and not _touches(
            self.before, self.before_at(), self.before_at())
        errors_before = len(self.before) + self.empty_before
        errors_after = len(after) + empty_after
        accepted = errors_after <= errors_before and not added_here
        return Verdict(accepted, errors_before, errors_after)
