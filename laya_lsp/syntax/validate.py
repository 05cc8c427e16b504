"""Does inserting a candidate add syntax errors? Answered by reparsing only a window around the cursor.

Reparsing the whole document per candidate costs milliseconds in Python's grammar (its indentation scanner
limits tree reuse), so the check parses the small standalone window of windows.py. Where none exists the
document's tree is copied, edited and reparsed incrementally instead. Errors are compared before/after on the
same text, so unrelated errors elsewhere in the file neither block nor excuse a candidate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter

from .brackets import CLOSE_TO_OPEN, scan_brackets
from .context import leading_ws, width
from .document import SyntaxDocument, encode, point_after, ts_point
from .windows import Window, choose_window, top_level_window

_PY_MARKERS = (b":", b"print", b"exec", b"`", b"*")
ESCALATION_MAX_BYTES = 3000  # a rejection in a broken region is re-checked on a window up to this size
_OPENS_REST_BELOW = frozenset("([{,")  # a candidate ending so, with brackets open, may have its rest below

Span = tuple[int, int]


def _hides_error(node: tree_sitter.Node, children: list[tree_sitter.Node]) -> bool:
    """True when the node's error is in a hidden child: a MISSING `_newline` in Python is not among the
    visible children, so only the parent's has_error tells."""
    return not any(c.has_error or c.is_error or c.is_missing for c in children)


def error_spans(node: tree_sitter.Node, limit: int = 64) -> list[Span]:
    """Byte spans of ERROR and MISSING nodes (or of the parent of a hidden one), descending only into
    subtrees that contain errors."""
    spans: list[Span] = []
    stack = [node]
    while stack and len(spans) < limit:
        current = stack.pop()
        if current.is_error or current.is_missing:
            spans.append((current.start_byte, current.end_byte))
        elif current.has_error:
            children = current.children
            if _hides_error(current, children):
                spans.append((current.start_byte, current.end_byte))
            else:
                stack.extend(children)
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
    # A hidden error somewhere inside: assume it touches the range. Skipped for large nodes (the root): this
    # only decides whether to parse the window's old errors up front, and a miss just defers that parse.
    if node.child_count <= 32 and _hides_error(node, node.children):
        return True
    return any(errors_in_range(child, lo, hi) for child in _children_in(node, lo, hi))


@cache
def _python_query(language: tree_sitter.Language) -> tree_sitter.Query:
    return tree_sitter.Query(
        language, "(block) @block (print_statement) @py2 (exec_statement) @py2 (string_start) @quote "
        "(binary_operator [(list_splat) (dictionary_splat)] @py2) (comparison_operator (list_splat) @py2)")


def empty_blocks(language: tree_sitter.Language, node: tree_sitter.Node, lo: int, hi: int) -> int:
    """Python errors tree-sitter-python has no error node for, touching [lo, hi]: a block without statements
    (`if x:` then a dedent), Python 2's print/exec statements and backtick strings, a `*x` operand. (A query
    runs in C;
    walking the inserted subtree in Python cost more than the parse.)"""
    cursor = tree_sitter.QueryCursor(_python_query(language))
    cursor.set_byte_range(max(lo - 1, 0), hi + 1)
    found = cursor.captures(node)
    count = sum(1 for n in found.get("py2", []) if n.start_byte <= hi and n.end_byte >= lo)
    count += sum(1 for n in found.get("quote", []) if n.text == b"`" and n.start_byte <= hi and n.end_byte >= lo)
    return count + sum(
        1 for block in found.get("block", [])
        if block.start_byte <= hi and block.end_byte >= lo
        and not any(c.is_named and "comment" not in c.type for c in block.children)
    )


def _touches(spans: list[Span], lo: int, hi: int) -> bool:
    return any(start <= hi and end >= lo for start, end in spans)


@dataclass(frozen=True)
class Verdict:
    """Outcome of one candidate check."""

    accepted: bool
    errors_before: int  # -1 when not needed (the candidate left no error to compare)
    errors_after: int


class _WindowCheck:
    """Error comparison for candidates at one byte, parsing one window (None: the whole document)."""

    def __init__(self, doc: SyntaxDocument, byte: int, window: Window | None, provisional_ok: bool) -> None:
        assert doc.parser is not None and doc.tree is not None
        self.doc, self.byte, self.window = doc, byte, window
        self.parser = doc.parser
        assert doc.parser.language is not None
        self.language: tree_sitter.Language = doc.parser.language
        self.python = doc.language == "python"
        self.before: list[Span] = []
        self.empty_before = 0
        # The window's own errors are parsed lazily: a candidate leaving no error needs no comparison. Where
        # the document's tree shows no error in the window, none is assumed until a candidate is rejected.
        self.pending = False
        self.provisional = False
        self.after_colon = self.python and doc.data[:byte].rstrip().endswith(b":")
        if window is None:
            self.before = error_spans(doc.tree.root_node)
        elif provisional_ok and not errors_in_range(doc.tree.root_node, window.start, window.end):
            self.provisional = True
        else:
            self.pending = True
        if self.after_colon and not self.pending:
            self.empty_before = empty_blocks(self.language, doc.tree.root_node, byte, byte)

    def _parse_before(self) -> None:
        """Errors of the window as it is now (memoized per document version, cursor and window)."""
        assert self.window is not None
        key = ("before", self.byte, self.window)
        cached = self.doc.memo.get(key)
        if cached is None:
            root = self.parser.parse(self.window.text(self.doc.data, self.byte, b"")).root_node
            at = self.window.position(self.byte)
            cached = (error_spans(root), empty_blocks(self.language, root, at, at) if self.python else 0)
            self.doc.memo[key] = cached
        self.before, self.empty_before = cached  # type: ignore[misc]
        self.provisional = self.pending = False

    def _errors_after(self, inserted: bytes) -> tuple[list[Span], int, int]:
        """Error spans after inserting, where the insertion starts in the parsed text, and new empty blocks."""
        if self.window is not None:
            root = self.parser.parse(self.window.text(self.doc.data, self.byte, inserted)).root_node
            at = self.window.position(self.byte)
        else:
            assert self.doc.tree is not None
            data, at = self.doc.data, self.byte
            tree = self.doc.tree.copy()
            start_point = ts_point(data, at)
            tree.edit(start_byte=at, old_end_byte=at, new_end_byte=at + len(inserted), start_point=start_point,
                      old_end_point=start_point, new_end_point=point_after(start_point, inserted))
            root = self.parser.parse(data[:at] + inserted + data[at:], tree).root_node
        # Only a `:` opens a Python block (and only these words or a backtick make Python 2): recount only then.
        may_empty = self.python and (any(m in inserted for m in _PY_MARKERS) or self.empty_before > 0
                                     or (self.pending and self.after_colon))
        empty = empty_blocks(self.language, root, at, at + len(inserted)) if may_empty else 0
        return error_spans(root), at, empty

    def check(self, inserted: bytes) -> Verdict:
        after, at, empty_after = self._errors_after(inserted)
        if self.pending and not after and not empty_after:
            return Verdict(True, -1, 0)  # nothing left to compare against
        if self.pending:
            self._parse_before()
        verdict = self._judge(after, at, len(inserted), empty_after)
        if not verdict.accepted and self.provisional:
            self._parse_before()
            verdict = self._judge(after, at, len(inserted), empty_after)
        return verdict

    def _judge(self, after: list[Span], at: int, size: int, empty_after: int) -> Verdict:
        cursor = self.byte if self.window is None else self.window.position(self.byte)
        errors_before = len(self.before) + self.empty_before
        errors_after = len(after) + empty_after
        # Fewer errors is progress wherever they are; as many is fine unless the new text itself holds one.
        added_here = _touches(after, at, at + size) and not _touches(self.before, cursor, cursor)
        accepted = errors_after < errors_before or (errors_after == errors_before and not added_here)
        return Verdict(accepted, errors_before, errors_after)


class CandidateChecker:
    """Checks candidates inserted at one cursor position against the errors the document already has there.

    A small window decides; where the document is broken near the cursor (its tree may then have misled the
    window choice) a rejection is confirmed on the wider top-level window, if that is not too large.
    """

    def __init__(self, doc: SyntaxDocument, offset: int) -> None:
        assert doc.parser is not None and doc.tree is not None
        self.doc = doc
        self.byte = doc.byte_offset(offset)
        self.checks = 0
        window = doc.memo.get(("window", self.byte), False)
        if window is False:
            window = choose_window(doc, self.byte)
            doc.memo[("window", self.byte)] = window
        self.window: Window | None = window  # type: ignore[assignment]
        self._fine = _WindowCheck(doc, self.byte, self.window, provisional_ok=True)
        self._coarse: _WindowCheck | None | bool = False  # False: not built yet

    def _escalation(self, text: str) -> _WindowCheck | None:
        """A wider check for a candidate that ends by opening brackets or a block (`foo(`, `struct s {`,
        `for x in y:`): its rest may already be in the document below, outside the small window (re-typing
        the first line of a statement above its rest).

        Open brackets stretch the small window, else the top-level statements around the cursor, over the
        closers that follow (not past `ESCALATION_MAX_BYTES`); a Python header uses the top-level statements,
        or the whole document where those are larger. Other rejections stand: in a broken region the wider window's
        error counts are noisy enough to let junk through.
        """
        window = self.window
        scan = scan_brackets(text, self.doc.spec)
        code = text if scan.trailing_comment_at is None else text[:scan.trailing_comment_at]  # `try:  # why`
        last = code.rstrip()[-1:]
        if window is None or not last or not self._rest_below(text):
            return None
        if scan.unclosed:
            return self._extended(len(scan.unclosed)) if last in _OPENS_REST_BELOW else None
        if last not in self.doc.spec.block_openers:
            return None
        if self._coarse is False:
            wide = top_level_window(self.doc, self.byte)
            if wide.end - wide.start > ESCALATION_MAX_BYTES:
                # The statement the header belongs to (a `try` for an `except`) may start far above: the whole
                # document decides, edited and reparsed incrementally. Only headers get here: the cost is rare.
                self._coarse = _WindowCheck(self.doc, self.byte, None, provisional_ok=False)
            else:
                self._coarse = _WindowCheck(self.doc, self.byte, wide, provisional_ok=True) if wide != window else None
        return self._coarse  # type: ignore[return-value]

    def _rest_below(self, text: str) -> bool:
        """Can the rest of what `text` opens be below? The code it pushes down (a line inserted above code), or
        the next line of code, is indented deeper than the text's last line or starts with a closer."""
        if text.rstrip(" \t").endswith("\n"):
            return True  # inserted above the code after the cursor, which is the rest
        source = self.doc.text
        offset = self.doc.index_of_byte(self.byte)
        line_start = max(source.rfind("\n", 0, offset), source.rfind("\r", 0, offset)) + 1
        body = text.rstrip()
        last = body.rsplit("\n", 1)[-1] if "\n" in body else source[line_start:offset] + body
        line_end = source.find("\n", offset)
        following = source[line_end + 1:line_end + 1 + ESCALATION_MAX_BYTES] if line_end >= 0 else ""
        below = next((line for line in following.splitlines() if line.strip()), "")
        return width(leading_ws(below)) > width(leading_ws(last)) or below.lstrip()[:1] in CLOSE_TO_OPEN

    def _extended(self, unclosed: int) -> _WindowCheck | None:
        """The small window, else the top-level one, stretched over the closers after the cursor for the
        `unclosed` brackets the text leaves open, then for those the window itself has open at the cursor
        (the inserted opener takes the first closer below, so each enclosing one closes a closer later)."""
        key = ("extended", self.byte, unclosed)
        if key not in self.doc.memo:
            offset = self.doc.index_of_byte(self.byte)
            closers = scan_brackets(self.doc.text[offset:offset + ESCALATION_MAX_BYTES], self.doc.spec).outer_closers
            check = None
            # A window with a synthetic closer (`function _w() {` … `}`) cannot stretch: the text's opener would
            # take the block's own closer and the wrapper would hide it. The top-level statements, as a
            # fallback: the line may continue one (`} else {`).
            for base in (self.window, top_level_window(self.doc, self.byte)):
                if base is None or base.footer:
                    continue
                inside = self.doc.text[self.doc.index_of_byte(base.start):offset]
                needed = unclosed + len(scan_brackets(inside, self.doc.spec).unclosed)
                if len(closers) < needed:
                    continue
                end = self.doc.byte_offset(offset + closers[needed - 1][0] + 1)
                if self.doc.data[end:end + 1] == b";":
                    end += 1
                stretched = Window(base.start, max(base.end, end), base.header, base.footer)
                if stretched.end - stretched.start <= ESCALATION_MAX_BYTES:
                    check = _WindowCheck(self.doc, self.byte, stretched, provisional_ok=False)
                    break
            self.doc.memo[key] = check
        return self.doc.memo[key]  # type: ignore[return-value]

    def check(self, text: str) -> Verdict:
        """Accept `text` unless it adds errors: more error nodes than before, or as many with one inside the
        inserted text where there was none at the cursor before."""
        self.checks += 1
        inserted = encode(text)
        verdict = self._fine.check(inserted)
        if not verdict.accepted:
            wider = self._escalation(text)
            if wider is not None:
                self.checks += 1
                verdict = wider.check(inserted)
        return verdict
