"""LSP side of decisions: `laya/decide`, `laya/structured`, code actions (list + resolve).

Thin: params checked and turned into plain requests, one orchestrator call, LSP types back.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types as lsp

from ..decisions import actions, structured
from ..decisions.decide import DecideRequest, DecisionError
from ..orchestrator import NotReady, Superseded
from ..syntax import SyntaxDocument
from .completion import locate
from .documents import LayaDocument, open_document
from .language_server import LayaServer
from .params import DecideParams, StructuredParams, invalid, structure
from .progress import request_caller, token_of

log = logging.getLogger(__name__)

DECIDE_METHOD = "laya/decide"
STRUCTURED_METHOD = "laya/structured"


# -- laya/decide -----------------------------------------------------------------------------------------

def _decide_request(ls: LayaServer, raw: Any) -> DecideRequest:
    p = structure(raw, DecideParams, DECIDE_METHOD)
    opts: dict[str, Any] = {"threshold": p.threshold, "normalize": p.normalize, "temperature": p.temperature}
    try:
        if p.text_document is not None and p.position is not None:
            cur = locate(ls, p.text_document.uri, p.position)
            if cur is None:
                raise invalid("textDocument is not open or position is outside it")
            return ls.orchestrator.decisions.decide_request(p.choices, text=cur.doc.source, offset=cur.offset,
                                                            doc_id=cur.doc.uri, **opts)
        if not p.context:
            raise invalid("give `context` (text) or `textDocument` + `position`")
        return ls.orchestrator.decisions.decide_request(p.choices, context=p.context, **opts)
    except DecisionError as exc:
        raise invalid(str(exc)) from None


async def _decide(ls: LayaServer, params: Any) -> dict[str, Any]:
    req = _decide_request(ls, params)
    try:
        answer, _stats = await ls.orchestrator.decisions.decide(req, request_caller(ls, token_of(params)))
    except NotReady as exc:
        return {"choice": None, "confidence": 0.0, "scores": [], "source": "none", "error": str(exc)}
    except Superseded:
        return {"choice": None, "confidence": 0.0, "scores": [], "source": "none", "error": "cancelled"}
    return answer


# -- laya/structured -------------------------------------------------------------------------------------

def _structured_prompt(ls: LayaServer, p: StructuredParams) -> str:
    """The text the JSON follows: the document range's text and/or `prompt`, joined by a newline."""
    parts: list[str] = []
    if p.text_document is not None or p.range is not None:
        doc = open_document(ls.workspace, p.text_document.uri) if p.text_document is not None else None
        if doc is None or p.range is None:
            raise invalid("textDocument must be an open document and range a {start, end} range")
        parts.append(doc.source[doc.offset_at_position(p.range.start) : doc.offset_at_position(p.range.end)])
    if p.prompt:
        parts.append(p.prompt)
    if not parts:
        raise invalid("give `prompt` and/or `textDocument` + `range`")
    return "\n".join(parts)


async def _structured(ls: LayaServer, raw: Any) -> dict[str, Any]:
    p = structure(raw, StructuredParams, STRUCTURED_METHOD)
    prompt = _structured_prompt(ls, p)
    try:
        answer, _stats = await ls.orchestrator.decisions.structured(prompt, p.schema, p.max_tokens,
                                                                    request_caller(ls, token_of(raw)))
    except structured.SchemaError as exc:
        raise invalid(str(exc)) from None
    except NotReady as exc:
        return {"value": None, "source": "none", "error": str(exc)}
    except Superseded:
        return {"value": None, "source": "none", "error": "cancelled"}
    return answer


# -- code actions ----------------------------------------------------------------------------------------

def _workspace_edit(doc: LayaDocument, version: int, edit: actions.Edit) -> lsp.WorkspaceEdit:
    rng = lsp.Range(start=doc.client_position_at_offset(edit.start), end=doc.client_position_at_offset(edit.end))
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=doc.uri, version=version),
        edits=[lsp.TextEdit(range=rng, new_text=edit.text)],
    )])


APPLY_COMMAND = "laya.applyCodeAction"


def _client_resolves_edits(ls: LayaServer) -> bool:
    """Does the client call codeAction/resolve for the edit? If not, each action carries a command instead."""
    caps = ls.client_capabilities
    ca = caps.text_document.code_action if caps and caps.text_document else None
    props = ca.resolve_support.properties if ca and ca.resolve_support else []
    return "edit" in props


def _list_actions(ls: LayaServer, params: lsp.CodeActionParams, ranked: actions.RankedFixes) -> list[lsp.CodeAction]:
    doc = open_document(ls.workspace, params.text_document.uri)
    if doc is None or doc.version is None:
        return []
    lo = doc.offset_at_position(params.range.start)  # (positions past the end clamp)
    hi = doc.offset_at_position(params.range.end)
    offers = actions.list_offers(doc.syntax, doc.version, doc.uri, min(lo, hi), max(lo, hi),
                                 ranked.get(doc.uri, doc.version), ls.settings.decision_threshold)
    only = params.context.only if params.context else None
    lazy = _client_resolves_edits(ls)
    out = []
    for o in offers:
        if only and not any(o.lsp_kind == k or o.lsp_kind.startswith(f"{k}.") for k in only):
            continue
        # A client that never resolves runs the command instead; the server then sends workspace/applyEdit.
        cmd = None if lazy else lsp.Command(title=o.title, command=APPLY_COMMAND, arguments=[o.data])
        out.append(lsp.CodeAction(title=o.title, kind=o.lsp_kind, data=o.data, command=cmd))
    return out


async def _resolve_action(ls: LayaServer, action: lsp.CodeAction, ranked: actions.RankedFixes) -> lsp.CodeAction:
    data = action.data if isinstance(action.data, dict) else None
    if data is None or not isinstance(data.get("uri"), str):
        return action
    doc = open_document(ls.workspace, data["uri"])
    if doc is None or doc.version is None or doc.version != data.get("version"):
        return action  # stale: computed for another version of the document, so no edit
    version: int = doc.version
    if data.get("laya") == actions.APPLY_FIX:
        try:
            edit = actions.Edit(int(data["start"]), int(data["end"]), str(data["text"]))
        except (KeyError, TypeError, ValueError):
            return action
        if 0 <= edit.start <= edit.end <= len(doc.source):
            action.edit = _workspace_edit(doc, version, edit)
        return action
    if data.get("laya") not in actions.LSP_KINDS:
        return action
    uri = doc.uri
    snapshot = SyntaxDocument(doc.source, doc.language_id or "", uri)  # the worker sees this version only
    res = await ls.orchestrator.decisions.resolve_action(snapshot, data, uri, request_caller(ls))
    if res is None:
        return action
    if data.get("laya") == actions.FIX_SYNTAX:
        ranked.put(uri, version, int(data["line"]), res.ranked)
    doc = open_document(ls.workspace, uri)
    if doc is None or doc.version != version or res.edit is None:
        return action  # the document changed while the model worked: the edit would be stale
    action.edit = _workspace_edit(doc, version, res.edit)
    if res.title:
        action.title = res.title
    return action


def register(server: LayaServer) -> None:
    """Register `laya/decide`, `laya/structured` and the code actions on `server`."""
    ranked = actions.RankedFixes()

    @server.feature(DECIDE_METHOD)
    async def decide(ls: LayaServer, params: Any = None) -> dict[str, Any]:
        """Closed-set choice with a calibrated confidence (docs/decisions.md)."""
        return await _decide(ls, params)

    @server.feature(STRUCTURED_METHOD)
    async def structured(ls: LayaServer, params: Any = None) -> dict[str, Any]:
        """JSON that validates against a JSON Schema, by constrained decoding (docs/decisions.md)."""
        return await _structured(ls, params)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=sorted(set(actions.LSP_KINDS.values())), resolve_provider=True),
    )
    def code_action(ls: LayaServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """Cheap and lazy: offers from the syntax tree, no model work (that happens in resolve)."""
        return _list_actions(ls, params, ranked)

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: LayaServer, action: lsp.CodeAction) -> lsp.CodeAction:
        return await _resolve_action(ls, action, ranked)

    @server.command(APPLY_COMMAND)
    async def apply_code_action(ls: LayaServer, *args: Any) -> bool:
        """For clients without codeAction/resolve: compute the action's edit and ask the client to apply it."""
        data = args[0] if args and isinstance(args[0], dict) else (args[0][0] if args and args[0] else None)
        if not isinstance(data, dict):
            return False
        done = await _resolve_action(ls, lsp.CodeAction(title=str(data.get("laya")), data=data), ranked)
        if done.edit is None:
            return False
        res = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(edit=done.edit, label=done.title))
        return bool(res.applied)
