"""Custom requests: `laya/stats`, `laya/documentText` and the `laya/focus` notification."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from ..memory import MemoryProbe
from .documents import open_document
from .language_server import LayaServer

STATS_METHOD = "laya/stats"
DOCUMENT_TEXT_METHOD = "laya/documentText"
FOCUS_METHOD = "laya/focus"


def _get(params: Any, key: str, default: Any) -> Any:
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(key, default)
    return getattr(params, key, default)


def register(server: LayaServer) -> None:
    probe = MemoryProbe()

    @server.feature(FOCUS_METHOD)
    def focus(ls: LayaServer, params: Any) -> None:
        """Notification {textDocument: {uri}, position}: the user is in this buffer at this position; its cache
        is prefilled in the background so the first keystroke pays only for new tokens."""
        uri = _get(_get(params, "textDocument", None), "uri", None)
        doc = open_document(ls.workspace, uri) if isinstance(uri, str) else None
        if doc is None:
            return
        pos = _get(params, "position", None)
        line, col = _get(pos, "line", 0), _get(pos, "character", 0)
        if not (isinstance(line, int) and isinstance(col, int)) or line < 0 or col < 0:
            return
        offset = doc.offset_at_position(lsp.Position(line=line, character=col))
        ls.orchestrator.completions.warm(doc.uri, doc.syntax, offset)

    @server.feature(STATS_METHOD)
    async def stats(ls: LayaServer, params: Any = None) -> dict[str, Any]:
        """Recent requests and aggregates; params: {"recent": N (default 50), "reset": bool, "memory": bool}.
        With "memory", also where the server's memory is (laya_lsp/memory.py; slow: for soaks and bug reports)."""
        n = _get(params, "recent", 50)
        n = n if isinstance(n, int) and n >= 0 else 50
        reset = _get(params, "reset", False) is True
        # Waits for the cache sizes: the report is ordered after the requests before it.
        out = await ls.orchestrator.report(n, reset, cache_wait_s=None)
        if _get(params, "memory", False) is True:
            out["memory"] = probe.report({"workspaceDocuments": len(ls.workspace.text_documents),
                                          **ls.orchestrator.sizes()})
        return out

    @server.feature(DOCUMENT_TEXT_METHOD)
    def document_text(ls: LayaServer, params: Any = None) -> dict[str, Any] | None:
        """The server's copy of an open document: params {"uri": str, "checkTree": bool} → {"uri", "text",
        "version", "treeInStep"}, or null when the document is not open. For tests and bug reports: it shows
        exactly what the model sees. `treeInStep` (only with checkTree, it reparses): the incrementally edited
        tree equals a fresh parse, else null."""
        uri = _get(params, "uri", None)
        doc = open_document(ls.workspace, uri) if isinstance(uri, str) else None
        if doc is None:
            return None
        sdoc = doc.syntax
        tree_ok = None
        if _get(params, "checkTree", False) is True and sdoc.parser is not None and sdoc.tree is not None:
            tree_ok = str(sdoc.tree.root_node) == str(sdoc.parser.parse(sdoc.data).root_node)
        return {"uri": uri, "text": doc.source, "version": doc.version, "treeInStep": tree_ok}
