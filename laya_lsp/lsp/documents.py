"""Open documents: pygls's workspace holds them, as LayaDocuments whose text is their SyntaxDocument.

One store and one copy of each text. pygls's own TextDocument keeps the text as a string of its own and splits
lines with `str.splitlines()`, which also breaks at \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029 (LSP 3.18 ends
lines only at \\n, \\r\\n and \\r), so an edit after a form feed landed on the wrong line. A LayaDocument is a pygls
TextDocument (so `ls.workspace` and pygls's handlers work unchanged) whose text lives in the syntax layer's
document: each change is applied once, in LSP's line model and the negotiated position encoding, and the tree
is re-parsed incrementally. Positions past the end of a line or of the document clamp, as the spec says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.workspace import PositionCodec, TextDocument, Workspace

from ..syntax import SyntaxDocument

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class LayaDocument(TextDocument):
    """A pygls TextDocument whose text is `syntax.text` (see the module docstring)."""

    def __init__(self, item: lsp.TextDocumentItem, position_codec: PositionCodec) -> None:
        self.syntax = SyntaxDocument(item.text, item.language_id, item.uri)
        super().__init__(item.uri, version=item.version, language_id=item.language_id,
                         sync_kind=lsp.TextDocumentSyncKind.Incremental, position_codec=position_codec)

    @property
    def source(self) -> str:
        return self.syntax.text

    @property
    def lines(self) -> Sequence[str]:
        """Lines with their terminators, breaking only at \\n, \\r\\n and \\r (pygls's other helpers use these)."""
        return tuple(_LINES.findall(self.source))

    @property
    def encoding(self) -> str:
        """The negotiated position encoding: utf-16 (the default), utf-8 or utf-32."""
        enc = self.position_codec.encoding
        return str(getattr(enc, "value", enc) or "utf-16")

    def apply_change(self, change: lsp.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, lsp.TextDocumentContentChangePartial):
            r = change.range
            self.syntax.apply_change((r.start.line, r.start.character), (r.end.line, r.end.character), change.text,
                                     self.encoding)
        else:
            self.syntax.set_text(change.text)

    def offset_at_position(self, client_position: lsp.Position) -> int:
        return self.syntax.offset_at(client_position.line, client_position.character, self.encoding)

    def client_position_at_offset(self, offset: int) -> lsp.Position:
        line, character = self.syntax.position_at(offset, self.encoding)
        return lsp.Position(line=line, character=character)

    def is_inside(self, position: lsp.Position) -> bool:
        """True for a position of the text itself (not past the end of its line or of the document)."""
        offset = self.offset_at_position(position)
        return self.syntax.position_at(offset, self.encoding) == (position.line, position.character)


def put_document(workspace: Workspace, item: lsp.TextDocumentItem) -> LayaDocument:
    """Store an opened document in the workspace as a LayaDocument (pygls keys documents by unquoted URI)."""
    doc = LayaDocument(item, workspace.position_codec)
    workspace.text_documents[unquote(item.uri)] = doc
    return doc


def open_document(workspace: Workspace, uri: str) -> LayaDocument | None:
    """The open document at `uri`, or None (never pygls's fallback of reading the file from disk)."""
    doc = workspace.text_documents.get(unquote(uri))
    return doc if isinstance(doc, LayaDocument) else None
