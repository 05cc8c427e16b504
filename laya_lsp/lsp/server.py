"""The LSP front's wiring: `create_server` builds a `LayaServer` (language_server.py) and registers every
handler: the lifecycle and text sync below, completions (completion.py), decisions and code actions
(decision_handlers.py) and the custom requests (custom.py).

Handlers are thin: LSP types in, one orchestrator call, LSP types back.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from .. import bootstrap
from ..config import Settings
from ..memory import release_free_heap_periodically
from . import completion, custom, decision_handlers
from .documents import open_document
from .language_server import LayaServer
from .protocol import MAX_BODY_BYTES


def create_server(settings: Settings, loading: bootstrap.Loading,
                  max_message_bytes: int = MAX_BODY_BYTES) -> LayaServer:
    """Build the server (for settings from bootstrap.resolve_settings, the model loading for them: bootstrap.begin)
    with every feature registered; messages over `max_message_bytes` are refused (protocol.FrameParser)."""
    server = LayaServer(settings, loading)
    server.protocol.max_message_bytes = max_message_bytes  # type: ignore[attr-defined]
    _register_lifecycle(server)
    completion.register(server)
    custom.register(server)
    decision_handlers.register(server)
    return server


def _register_lifecycle(server: LayaServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: LayaServer, params: lsp.InitializeParams) -> None:
        # The model has been loading since the process started, for the command line's settings; options that
        # name another model load that one instead (LayaServer.apply_settings).
        opts = params.initialization_options
        if opts:
            # Not fatal: the defaults serve, and the user is told once the client can show messages.
            error = ls.apply_settings(opts)
            if error:
                ls.pending_error = f"invalid initializationOptions ignored: {error}"

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: LayaServer, _params: lsp.InitializedParams) -> None:
        if ls.pending_error:
            ls.show_error(ls.pending_error)
        ls.client_ready = True
        ls.loop = asyncio.get_running_loop()
        asyncio.ensure_future(ls.report_load(ls.loading))
        asyncio.ensure_future(ls.report_pause(*ls.pause_load))
        # glibc keeps freed pages of short-lived buffers; trimming lets RSS follow what the server uses.
        ls.heap_task = asyncio.ensure_future(release_free_heap_periodically())

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: LayaServer, params: lsp.DidChangeConfigurationParams) -> None:
        raw = params.settings
        if isinstance(raw, dict) and "laya" in raw:
            raw = raw["laya"]
        if raw is None:
            return
        error = ls.apply_settings(raw)
        if error:
            ls.show_error(f"invalid settings ignored: {error}")

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LayaServer, params: lsp.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        doc = open_document(ls.workspace, td.uri)
        if doc is not None:
            ls.orchestrator.completions.opened(td.uri, doc.syntax)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LayaServer, params: lsp.DidChangeTextDocumentParams) -> None:
        # pygls has applied the changes to the document (documents.py); text inserted is a paste candidate.
        ls.orchestrator.completions.changed(params.text_document.uri)
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                ls.orchestrator.completions.pasted(params.text_document.uri, change.text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LayaServer, params: lsp.DidSaveTextDocumentParams) -> None:
        doc = open_document(ls.workspace, params.text_document.uri)
        if doc is not None:
            ls.orchestrator.completions.saved(params.text_document.uri, doc.syntax)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LayaServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.orchestrator.completions.closed(params.text_document.uri)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: LayaServer, _params: Any) -> None:
        ls.engine.shutdown()
