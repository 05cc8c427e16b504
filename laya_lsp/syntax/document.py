"""An open document: its text, its tree-sitter tree, and incremental updates from LSP change events.

LSP positions are (line, UTF-16 code unit) pairs (or UTF-8/UTF-32 when negotiated) and lines end at `\\n`,
`\\r\\n` or `\\r` (positions.py, the model every front uses); tree-sitter wants UTF-8 byte offsets and (row, byte
column) points with rows split at `\\n` only. This module converts between the two, so the rest of the package
works in `str` indices or bytes.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

import tree_sitter

from . import positions
from .languages import LanguageSpec, language_for, new_parser, spec_for

# One LSP content change: ((line, column), (line, column), new text), or a full text.
Change = tuple[tuple[int, int], tuple[int, int], str] | str


def encode(text: str) -> bytes:
    """UTF-8 bytes of `text`; lone surrogates pass through instead of raising mid-edit."""
    return text.encode("utf-8", "surrogatepass")


def ts_point(data: bytes, byte_offset: int) -> tuple[int, int]:
    """tree-sitter's (row, byte column) of a byte offset: rows are split at `\\n` only."""
    row = data.count(b"\n", 0, byte_offset)
    return row, byte_offset - (data.rfind(b"\n", 0, byte_offset) + 1)


def point_after(start: tuple[int, int], inserted: bytes) -> tuple[int, int]:
    """The point reached by inserting `inserted` at point `start`."""
    newlines = inserted.count(b"\n")
    if newlines == 0:
        return start[0], start[1] + len(inserted)
    return start[0] + newlines, len(inserted) - inserted.rfind(b"\n") - 1


class SyntaxDocument:
    """Text plus tree of one open document, kept in sync by `apply_change` (incremental reparse)."""

    def __init__(self, text: str, language_id: str = "", uri: str = "") -> None:
        self.language_id, self.uri = language_id, uri
        self.language: str | None = language_for(language_id, uri)
        self.spec: LanguageSpec = spec_for(language_id, uri)
        self._parser: tree_sitter.Parser | None = new_parser(self.language) if self.language else None
        self.tree: tree_sitter.Tree | None = None
        self.version = 0
        # Per-version scratch space (cursor context, error counts) so plan and post-processing share work.
        self.memo: dict[object, object] = {}
        self._text = ""
        self._bytes = b""
        self._ascii = True
        self._starts: list[int] | None = None
        self._stale = False  # the tree has edits the parser has not seen yet
        self.set_text(text)

    def with_text(self, text: str) -> SyntaxDocument:
        """A new document of the same language and uri holding `text` (a snapshot, or the text as it would be)."""
        return SyntaxDocument(text, self.language_id, self.uri)

    # -- text and positions -------------------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The current document text."""
        return self._text

    @property
    def data(self) -> bytes:
        """The current document text as UTF-8 (what the tree was parsed from)."""
        return self._bytes

    @property
    def parser(self) -> tree_sitter.Parser | None:
        """The document's parser (None in fallback mode); used to reparse candidate insertions."""
        return self._parser

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = positions.line_starts(self._text)
        return self._starts

    def _update_line_starts(self, lo: int, hi: int, delta: int) -> None:
        """Patch the line table after `text[lo:hi]` was replaced (length change `delta`) instead of rescanning.

        Starts after `hi + 1` only shift (the line endings before them are untouched text); starts from the line
        before `lo` up to there are rescanned, which covers a `\r` + `\n` pair joined or split by the edit.
        """
        starts = self._starts
        if starts is None:
            return
        first = max(bisect_right(starts, lo) - 2, 0)
        region_start = starts[first]
        region_end = hi + 1 + delta
        tail = bisect_right(starts, hi + 1)
        # One character past the region so a `\r\n` straddling its end is seen whole (and left to the tail).
        middle = [m.end() for m in positions.EOL.finditer(self._text, region_start, region_end + 1)]
        self._starts = starts[:first + 1] + [s for s in middle if s <= region_end] + [s + delta for s in starts[tail:]]

    def offset_at(self, line: int, column: int, encoding: str = "utf-16") -> int:
        """`str` index of an LSP position (columns in `encoding`, UTF-16 by default); past the end of a line or
        of the text clamps. Lines end at `\n`, `\r\n` or `\r` only, as LSP says (not at `\f` or `\v`)."""
        return positions.offset_at(self._text, self._line_starts(), line, column, encoding)

    def position_at(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        """LSP (line, column) of a `str` index, columns in `encoding` (UTF-16 by default)."""
        return positions.position_at(self._text, self._line_starts(), offset, encoding)

    def byte_offset(self, offset: int) -> int:
        """UTF-8 byte offset of a `str` index."""
        return offset if self._ascii else len(encode(self._text[:offset]))

    def index_of_byte(self, byte_offset: int) -> int:
        """`str` index of a UTF-8 byte offset (a cut inside a character rounds down)."""
        if self._ascii:
            return byte_offset
        return len(self._bytes[:byte_offset].decode("utf-8", "ignore"))

    # -- changes --------------------------------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """Replace the whole text (full-sync change) and parse from scratch."""
        self._text = text
        self._bytes = encode(text)
        self._ascii = text.isascii()
        self._starts = None
        self.version += 1
        self.memo.clear()
        self.tree = self._parser.parse(self._bytes) if self._parser else None
        self._stale = False

    def apply_change(self, start: tuple[int, int], end: tuple[int, int], new_text: str,
                     encoding: str = "utf-16") -> None:
        """Apply one LSP incremental change (range in line/column, UTF-16 by default) and reparse
        incrementally."""
        self.apply_changes([(start, end, new_text)], encoding)

    def apply_changes(self, changes: Iterable[Change], encoding: str = "utf-16") -> None:
        """Apply the `contentChanges` of one didChange in order, reparsing once at the end.

        Each change is `(start, end, text)` with LSP positions (columns in the negotiated position
        `encoding`: `utf-16`, `utf-8` or `utf-32`), or a bare `str` for a full-text replacement.
        """
        for change in changes:
            if isinstance(change, str):
                self.set_text(change)
                continue
            start, end, new_text = change
            lo, hi = self.offset_at(*start, encoding), self.offset_at(*end, encoding)
            if hi < lo:
                lo, hi = hi, lo
            self._edit(lo, hi, new_text)
        self._reparse()

    def replace(self, lo: int, hi: int, new_text: str) -> None:
        """Replace `text[lo:hi]` (str indices) with `new_text`, editing the old tree so the parser reuses it."""
        self._edit(lo, hi, new_text)
        self._reparse()

    def _reparse(self) -> None:
        if self._parser is not None and self.tree is not None and self._stale:
            self.tree = self._parser.parse(self._bytes, self.tree)
        self._stale = False

    def _edit(self, lo: int, hi: int, new_text: str) -> None:
        """Change the text and describe the edit to the tree; the caller reparses."""
        old_bytes = self._bytes
        start_byte = self.byte_offset(lo)
        old_end_byte = self.byte_offset(hi)
        inserted = encode(new_text)
        self._text = self._text[:lo] + new_text + self._text[hi:]
        self._bytes = old_bytes[:start_byte] + inserted + old_bytes[old_end_byte:]
        self._ascii = self._ascii and new_text.isascii()
        self._update_line_starts(lo, hi, len(new_text) - (hi - lo))
        self.version += 1
        self.memo.clear()
        if self._parser is None or self.tree is None:
            return
        start_point = ts_point(old_bytes, start_byte)
        self.tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=start_byte + len(inserted),
            start_point=start_point,
            old_end_point=ts_point(old_bytes, old_end_byte),
            new_end_point=point_after(start_point, inserted),
        )
        self._stale = True

    # -- syntax ---------------------------------------------------------------------------------------------
    def has_errors(self) -> bool:
        """True when the tree holds ERROR or MISSING nodes (always False in fallback mode)."""
        return bool(self.tree is not None and self.tree.root_node.has_error)
