"""Custom requests: `laya/stats`, `laya/documentText` and the `laya/focus` notification, their params typed and
checked in params.py (a bad field is answered InvalidParams naming it; a bad `laya/focus` is logged and dropped)."""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from ..memory import MemoryProbe
from .documents import open_document
from .language_server import LayaServer
from .params import DocumentTextParams, FocusParams, StatsParams, structure

log = logging.getLogger(__name__)

STATS_METHOD = "laya/stats"
DOCUMENT_TEXT_METHOD = "laya/documentText"
FOCUS_METHOD = "laya/focus"


def register(server: LayaServer) -> None:
    probe = MemoryProbe()

    @server.feature(FOCUS_METHOD)
    def focus(ls: LayaServer, params: Any) -> None:
        """Notification {textDocument: {uri}, position}: the user is in this buffer at this position; its cache
        is prefilled in the background so the first keystroke pays only for new tokens."""
        try:
            p = structure(params, FocusParams, FOCUS_METHOD)
        except JsonRpcInvalidParams as exc:  # a notification has no answer: the log says why it was dropped
            log.warning("%s dropped: %s", FOCUS_METHOD, exc)
            return
        doc = open_document(ls.workspace, p.text_document.uri)
        if doc is None:
            return
        offset = doc.offset_at_position(p.position)
        ls.orchestrator.completions.warm(doc.uri, doc.syntax, offset)

    @server.feature(STATS_METHOD)
    async def stats(ls: LayaServer, params: Any = None) -> dict[str, Any]:
        """Recent requests and aggregates; params: {"recent": N (default 50), "reset": bool, "memory": bool}.
        With "memory", also where the server's memory is (laya_lsp/memory.py; slow: for soaks and bug reports)."""
        p = StatsParams() if params is None else structure(params, StatsParams, STATS_METHOD)
        # Waits for the cache sizes: the report is ordered after the requests before it.
        out = await ls.orchestrator.report(p.recent, p.reset, cache_wait_s=None)
        if p.memory:
            out["memory"] = probe.report({"workspaceDocuments": len(ls.workspace.text_documents),
                                          **ls.orchestrator.sizes()})
        return out

    @server.feature(DOCUMENT_TEXT_METHOD)
    def document_text(ls: LayaServer, params: Any = None) -> dict[str, Any] | None:
        """The server's copy of an open document: params {"uri": str, "checkTree": bool} → {"uri", "text",
        "version", "treeInStep"}, or null when the document is not open. For tests and bug reports: it shows
        exactly what the model sees. `treeInStep` (only with checkTree, it reparses): the incrementally edited
        tree equals a fresh parse, else null."""
        p = structure(params, DocumentTextParams, DOCUMENT_TEXT_METHOD)
        doc = open_document(ls.workspace, p.uri)
        if doc is None:
            return None
        sdoc = doc.syntax
        tree_ok = None
        if p.check_tree and sdoc.parser is not None and sdoc.tree is not None:
            tree_ok = str(sdoc.tree.root_node) == str(sdoc.parser.parse(sdoc.data).root_node)
        return {"uri": p.uri, "text": doc.source, "version": doc.version, "treeInStep": tree_ok}
