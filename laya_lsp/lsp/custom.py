"""Custom requests: `laya/stats` and `laya/documentText`."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from lsprotocol import types as lsp

from ..memory import MemoryProbe
from ..report import engine_report
from .server import STATS_METHOD, LayaServer

DOCUMENT_TEXT_METHOD = "laya/documentText"


def _get(params: Any, key: str, default: Any) -> Any:
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(key, default)
    return getattr(params, key, default)


FOCUS_METHOD = "laya/focus"


def register(server: LayaServer) -> None:
    probe = MemoryProbe()

    @server.feature(FOCUS_METHOD)
    def focus(ls: LayaServer, params: Any) -> None:
        """Notification {textDocument: {uri}, position}: the user is in this buffer at this position; its cache
        is prefilled in the background so the first keystroke pays only for new tokens."""
        td = _get(params, "textDocument", None)
        uri = _get(td, "uri", None)
        pos = _get(params, "position", None)
        sdoc = ls.syntax_docs.get(uri) if isinstance(uri, str) else None
        if sdoc is None:
            return
        line, col = _get(pos, "line", 0), _get(pos, "character", 0)
        if not (isinstance(line, int) and isinstance(col, int)) or line < 0 or col < 0:
            return
        doc = ls.workspace.get_text_document(uri)
        try:
            offset = doc.offset_at_position(lsp.Position(line=line, character=col))
        except (IndexError, ValueError):
            return
        ls.completions.warm(uri, sdoc, min(offset, len(sdoc.text)))

    @server.feature(STATS_METHOD)
    async def stats(ls: LayaServer, params: Any = None) -> dict[str, Any]:
        """Recent requests and aggregates; params: {"recent": N (default 50), "reset": bool, "memory": bool}.
        With "memory", also where the server's memory is (laya_lsp/memory.py; slow: for soaks and bug reports)."""
        n = _get(params, "recent", 50)
        n = n if isinstance(n, int) and n >= 0 else 50
        reset = _get(params, "reset", False) is True
        out = await engine_report(ls.engine, int(ls.settings.cache_budget_mb * 2**20), n, reset, cache_wait_s=None)
        if _get(params, "memory", False) is True:
            out["memory"] = probe.report({
                "syntaxDocuments": len(ls.syntax_docs), "workspaceDocuments": len(ls.workspace.text_documents),
                "statsKept": len(ls.engine.stats.recent()), "crossFileChunks": len(ls.completions.ring),
            })
        return out

    @server.feature(DOCUMENT_TEXT_METHOD)
    def document_text(ls: LayaServer, params: Any = None) -> dict[str, Any] | None:
        """The server's copy of an open document: params {"uri": str, "checkTree": bool} → {"uri", "text",
        "version", "syntaxInStep", "treeInStep"}, or null when the document is not open. For tests and bug reports:
        it shows exactly what the model sees. `syntaxInStep`: the syntax layer's text equals it; `treeInStep` (only
        with checkTree, it reparses): its incrementally edited tree equals a fresh parse, else null."""
        uri = _get(params, "uri", None)
        if not isinstance(uri, str) or unquote(uri) not in ls.workspace.text_documents:
            return None
        doc = ls.workspace.get_text_document(uri)
        sdoc = ls.syntax_docs.get(uri)
        tree_ok = None
        if _get(params, "checkTree", False) is True and sdoc is not None and sdoc.parser is not None \
                and sdoc.tree is not None:
            tree_ok = str(sdoc.tree.root_node) == str(sdoc.parser.parse(sdoc.data).root_node)
        return {"uri": uri, "text": doc.source, "version": doc.version,
                "syntaxInStep": None if sdoc is None else sdoc.text == doc.source, "treeInStep": tree_ok}
