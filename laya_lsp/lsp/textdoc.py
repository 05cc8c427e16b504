"""pygls' text document with LSP's line model, so the server's text stays exactly the client's.

pygls splits lines with `str.splitlines()`, which also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029;
LSP 3.18 ends lines only at \\n, \\r\\n and \\r. An edit after a form feed (common in C and older Python sources)
landed on the wrong line. pygls also mapped a position on the line after a final newline to the last line's
length in client units instead of a str index. Offsets here are computed from LSP lines, clamping positions past
the end of a line or document as the spec says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lsp_lines(text: str) -> list[str]:
    """Lines with their terminators, like `splitlines(True)` but breaking only at \\n, \\r\\n and \\r."""
    return _LINES.findall(text)


def _body(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith(("\n", "\r")) else line


class LspTextDocument(TextDocument):
    @property
    def lines(self) -> Sequence[str]:
        return tuple(lsp_lines(self.source))

    def offset_at_position(self, client_position: lsp.Position) -> int:
        return self._offset(self.lines, client_position)

    def _offset(self, lines: Sequence[str], pos: lsp.Position) -> int:
        """str index of a client position; past the end of a line → its end, past the last line → the end."""
        if pos.line >= len(lines):
            return len(self.source)
        units = col = 0
        count = self.position_codec.client_num_units
        for ch in _body(lines[pos.line]):
            if units >= pos.character:
                break
            units += count(ch)
            col += 1
        return sum(len(line) for line in lines[: pos.line]) + col

    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        lines = self.lines
        start, end = self._offset(lines, change.range.start), self._offset(lines, change.range.end)
        if end < start:  # a reversed range: apply it rather than corrupt the text
            start, end = end, start
        self._source = self.source[:start] + change.text + self.source[end:]


class LspWorkspace(Workspace):
    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return LspTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                               sync_kind=self._sync_kind, position_codec=self._position_codec)


def use_lsp_lines(workspace: Any) -> None:
    """Make a freshly created pygls Workspace create LspTextDocuments (it holds no documents yet)."""
    workspace.__class__ = LspWorkspace
