"""Does inserting a candidate add syntax errors? Answered by reparsing only a window around the cursor.

Reparsing the whole document per candidate costs milliseconds in Python's grammar (its indentation scanner
limits tree reuse), so the check parses the small standalone window of windows.py. Where none exists the
document's tree is copied, edited and reparsed incrementally instead. Errors are compared before/after on the
same text, so unrelated errors elsewhere in the file neither block nor excuse a candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
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


def _children_in(node: tree_sitter.Node, lo: int, hi: int) -> Iterator[tree_sitter.Node]:
    """Children of `node` that touch [lo, hi], without materialising the others (a module has hundreds)."""
    # Binary search by index: py-tree-sitter 0.26 crashes in first_child_for_byte when no child qualifies.
    low, high = 0, node.child_count
    while low < high:
        middle = (low + high) // 2
        found = node.child(middle)
        if found is not None and found.end_byte < lo:
            low = middle + 1
        else:
            high = middle
    for index in range(low, node.child_count):  # by index: next_sibling skips zero-width nodes (empty blocks)
        child = node.child(index)
        if child is None or child.start_byte > hi:
            return
        yield child


def errors_in_range(node: tree_sitter.Node, lo: int, hi: int) -> bool:
    """True when an ERROR or MISSING node touches [lo, hi]."""
    if not node.has_error:
        return False
    if node.is_error or node.is_missing:
        return True
    return any(errors_in_range(child, lo, hi) for child in _children_in(node, lo, hi))


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
        stack.extend(_children_in(current, lo, hi))
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
        window = doc.memo.get(("window", self.byte), False)
        if window is False:
            window = choose_window(doc, self.byte)
            doc.memo[("window", self.byte)] = window
        self.window: Window | None = window  # type: ignore[assignment]
        # Where the document's own tree shows no error in the window, the window parses clean too: assume so
        # and parse it only if a candidate is rejected (saves one parse per request in the common case).
        self.before: list[Span] = []
        self.empty_before = 0
        self.provisional = False
        if self.window is None:
            self.before = error_spans(doc.tree.root_node)
        elif errors_in_range(doc.tree.root_node, self.window.start, self.window.end):
            self._parse_before()
        else:
            self.provisional = True
        if self.python and not self.before and doc.data[:self.byte].rstrip().endswith(b":"):
            self.empty_before = empty_blocks(doc.tree.root_node, self.byte, self.byte)

    def _parse_before(self) -> None:
        """Errors of the window as it is now (memoized per document version and cursor)."""
        assert self.window is not None
        cached = self.doc.memo.get(("before", self.byte))
        if cached is None:
            root = self.parser.parse(self.window.text(self.doc.data, self.byte, b"")).root_node
            at = self.window.position(self.byte)
            cached = (error_spans(root), empty_blocks(root, at, at) if self.python else 0)
            self.doc.memo[("before", self.byte)] = cached
        self.before, self.empty_before = cached  # type: ignore[misc]
        self.provisional = False

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
        verdict = self._judge(after, at, len(inserted), empty_after)
        if not verdict.accepted and self.provisional:
            self._parse_before()
            verdict = self._judge(after, at, len(inserted), empty_after)
        return verdict

    def _judge(self, after: list[Span], at: int, size: int, empty_after: int) -> Verdict:
        added_here = _touches(after, at, at + size) and not _touches(
            self.before, self.before_at(), self.before_at())
        errors_before = len(self.before) + self.empty_before
        errors_after = len(after) + empty_after
        accepted = errors_after <= errors_before and not added_here
        return Verdict(accepted, errors_before, errors_after)
