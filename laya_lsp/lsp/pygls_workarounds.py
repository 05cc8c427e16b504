"""Where pygls 2.1.1 falls short and offers no public hook, the smallest override that fixes it, each with its
reason: the class of the documents its workspace creates, a didChange for a document that is not open, the
shutdown flag it keeps private, and the notification futures it never forgets. `rpc_admission.LayaProtocol` builds on
this class.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import Any

from cattrs import Converter
from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .documents import open_document, put_document

log = logging.getLogger(__name__)

PYGLS_REQUEST_TABLE = "_request_futures"  # pygls 2.1's JsonRPCProtocol: msg id -> handler future


class PyglsWorkarounds(LanguageServerProtocol):
    """pygls' protocol with our documents, a readable shutdown flag, finished notification futures dropped."""

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.shutdown_received = False

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        """pygls' didOpen, storing a LayaDocument (documents.py): pygls has no hook for the class of the
        documents its workspace creates (openlawlibrary/pygls#131)."""
        put_document(self.workspace, params.text_document)
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        """pygls' didChange, but a change to a document that is not open is dropped with a warning (pygls raises
        KeyError from its workspace, a failed notification for every such message; found by the fuzz campaign)."""
        if open_document(self.workspace, params.text_document.uri) is None:
            log.warning("didChange for a document that is not open: %s", params.text_document.uri[:200])
            return
        yield from super().lsp_text_document__did_change(params)

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, remembered here for admission (pygls keeps its own flag private)."""
        yield from super().lsp_shutdown(*args)
        self.shutdown_received = True

    def forget_finished_notifications(self) -> None:
        """pygls 2.1.1 files each notification handler's future in its request table under a fresh uuid and never
        removes it (a Future per keystroke: the soak's slow RSS growth; docs/architecture.md, "pygls: notification
        futures"); pygls offers no public way around it, so finished ones are dropped here (requests pop their own
        when done). Read with getattr: a pygls that renames the table loses only this clean-up, never the server
        (tests/test_rel_soak.py fails loudly then)."""
        table = getattr(self, PYGLS_REQUEST_TABLE, None)
        if not isinstance(table, dict):
            return
        for key in [k for k, f in table.items() if f.done()]:
            del table[key]
