"""Does inserting a candidate add syntax errors? Answered by reparsing only a window around the cursor.

Reparsing the whole document per candidate costs milliseconds in Python's grammar (its indentation scanner
limits tree reuse), so the check parses the smallest top-level unit around the cursor on its own: a top-level
statement or definition, or for Python a nested block wrapped in synthetic `if 1:` headers that reproduce its
indentation. Where no small window exists (a huge class in a brace language) the document's tree is copied,
edited and reparsed incrementally instead. Errors are compared before/after on the same window, so unrelated
errors elsewhere in the file neither block nor excuse a candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from .document import SyntaxDocument, encode, point_after, ts_point

MAX_WINDOW_BYTES = 6000  # above this a window costs more to parse than the incremental path
_PY_BODY_OWNERS = ("function_definition", "class_definition", "decorated_definition")

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
class Window:
    """A byte range of the document that parses on its own once `header` is put in front of it."""

    start: int
    end: int
    header: bytes = b""


def _line_start(data: bytes, byte: int) -> int:
    return data.rfind(b"\n", 0, byte) + 1


def _pick_children(children: list[tree_sitter.Node], byte: int) -> tuple[int, int, tree_sitter.Node | None]:
    """Byte range of the child holding `byte` (or of its neighbours when it falls between two), and that child."""
    before = [c for c in children if c.start_byte <= byte]
    if not before:
        return (children[0].start_byte, children[0].end_byte, None) if children else (0, 0, None)
    holder = before[-1]
    if byte <= holder.end_byte:
        return holder.start_byte, holder.end_byte, holder
    later = children[len(before)] if len(before) < len(children) else None
    return holder.start_byte, (later.end_byte if later is not None else byte), holder


def _python_body(node: tree_sitter.Node) -> tree_sitter.Node | None:
    if node.type == "decorated_definition":
        definition = node.child_by_field_name("definition")
        node = definition if definition is not None else node
    if node.type not in _PY_BODY_OWNERS:
        return None
    return node.child_by_field_name("body")


def choose_window(doc: SyntaxDocument, byte: int) -> Window | None:
    """The smallest window around `byte` that parses standalone, or None to reparse the whole document."""
    assert doc.tree is not None
    data = doc.data
    cursor_line_end = data.find(b"\n", byte)
    cursor_line_end = len(data) if cursor_line_end < 0 else cursor_line_end
    node = doc.tree.root_node
    header = b""
    while True:
        lo, hi, holder = _pick_children(node.children, byte)
        start = _line_start(data, min(lo, byte))
        end = max(hi, cursor_line_end)
        if end - start <= MAX_WINDOW_BYTES:
            return Window(start, end, header)
        body = _python_body(holder) if (holder is not None and doc.language == "python") else None
        if body is None or body.start_byte > byte or not body.children:
            return None
        line_start = _line_start(data, holder.start_byte) if holder is not None else 0
        header += data[line_start:holder.start_byte if holder is not None else 0] + b"if 1:\n"
        node = body


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
                self._window_bytes(window, b"")).root_node
            at = self.byte if window is None else len(window.header) + self.byte - window.start
            before = error_spans(root)
            empty = empty_blocks(root, at, at) if self.python else 0
            cached = (window, before, empty)
            doc.memo[memo_key] = cached
        self.window: Window | None = cached[0]  # type: ignore[index]
        self.before: list[Span] = cached[1]  # type: ignore[index]
        self.empty_before: int = cached[2]  # type: ignore[index]

    def _window_bytes(self, window: Window, inserted: bytes) -> bytes:
        data = self.doc.data
        return window.header + data[window.start:self.byte] + inserted + data[self.byte:window.end]

    def _errors_after(self, inserted: bytes) -> tuple[list[Span], int, int]:
        """Error spans after inserting, where the insertion starts in the parsed text, and new empty blocks."""
        if self.window is not None:
            root = self.parser.parse(self._window_bytes(self.window, inserted)).root_node
            at = len(self.window.header) + self.byte - self.window.start
            empty = empty_blocks(root, at, at + len(inserted)) if self.python else 0
            return error_spans(root), at, empty
        assert self.doc.tree is not None
        data = self.doc.data
        tree = self.doc.tree.copy()
        start_point = ts_point(data, self.byte)
        tree.edit(start_byte=self.byte, old_end_byte=self.byte, new_end_byte=self.byte + len(inserted),
                  start_point=start_point, old_end_point=start_point,
                  new_end_point=point_after(start_point, inserted))
        root = self.parser.parse(data[:self.byte] + inserted + data[self.byte:], tree).root_node
        empty = empty_blocks(root, self.byte, self.byte + len(inserted)) if self.python else 0
        return error_spans(root), self.byte, empty

    def before_at(self) -> int:
        """Where the cursor sits in the coordinates of the `before` spans."""
        if self.window is None:
            return self.byte
        return len(self.window.header) + self.byte - self.window.start

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
