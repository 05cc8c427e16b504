"""`textDocument/completion` and `textDocument/inlineCompletion`: the same engine candidates, two LSP shapes."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from lsprotocol import types as lsp

from ..orchestrator import Completion, Kind, Source, Status
from .documents import LayaDocument, open_document
from .language_server import LayaServer
from .progress import request_caller

log = logging.getLogger(__name__)

TRIGGER_CHARACTERS = [".", "(", "[", "{", ",", "=", ":", " ", "\n"]


@dataclass
class Cursor:
    """Where a request points, in both the server's str offsets and the client's positions."""

    doc: LayaDocument
    offset: int
    word_start: int  # start of the identifier being typed (the completion item's edit replaces it)
    position: lsp.Position
    word_start_position: lsp.Position
    version: int | None = None  # the document version the request was made against (doc is the live copy)


def _is_word_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


def locate(ls: LayaServer, uri: str, position: lsp.Position) -> Cursor | None:
    """Resolve a request position; None for unknown documents or positions outside the document."""
    doc = open_document(ls.workspace, uri)
    if doc is None:
        log.warning("request for a document that is not open: %s", uri)
        return None
    if not doc.is_inside(position):
        return None
    offset = doc.offset_at_position(position)
    text = doc.source
    start = offset
    while start > 0 and _is_word_char(text[start - 1]):
        start -= 1
    word_pos = doc.client_position_at_offset(start) if start != offset else position
    return Cursor(doc, offset, start, position, word_pos, doc.version)


async def run_completion(ls: LayaServer, cur: Cursor, kind: Kind, typing: bool = False,
                         token: lsp.ProgressToken | None = None) -> Completion | None:
    """The orchestrator's answer at the cursor; None when the document changed meanwhile (the client asks
    again for the new text) or the model is not there. A fault in the model call is shown to the user once.
    `typing`: the client asked on its own while the user types, not on an explicit invocation. A request
    that comes while the model loads waits for it (`token`: the request's workDoneToken, see progress.py)."""
    answer = await ls.orchestrator.completions.complete(
        cur.doc.uri, cur.doc.syntax, cur.offset, kind, version=cur.version,
        current=lambda: cur.doc.version == cur.version, typing=typing, caller=request_caller(ls, token))
    if answer is None:
        return None
    if answer.failure:
        _show_failure_once(ls, answer.failure)
    elif answer.stats.status in (Status.ERROR, Status.LOADING):
        log.warning("completion not answered: %s", answer.stats.error)
    return answer


_FAILURE_REPEAT_S = 300.0
_failures_shown: dict[str, float] = {}


def _show_failure_once(ls: LayaServer, message: str) -> None:
    """window/showMessage for a failure, at most once per message every few minutes (not once per keystroke)."""
    now = time.monotonic()
    if now - _failures_shown.get(message, -_FAILURE_REPEAT_S) >= _FAILURE_REPEAT_S:
        _failures_shown[message] = now
        ls.show_error(message)


def _detail(ls: LayaServer, answer: Completion) -> str:
    info = ls.engine.model_info()
    name = info.name if info else "model"
    st = answer.stats
    if st.source is not Source.MODEL:
        return f"laya · {name} · {st.source}"
    t = st.timings
    return f"laya · {name} · {st.total_ms:.0f} ms ({t.reused_tokens}/{t.prompt_tokens} tokens cached)"


def to_completion_items(ls: LayaServer, cur: Cursor, answer: Completion) -> list[lsp.CompletionItem]:
    word = cur.doc.source[cur.word_start : cur.offset]
    rng = lsp.Range(start=cur.word_start_position, end=cur.position)
    detail = _detail(ls, answer)
    formats = _documentation_formats(ls)
    items = []
    for rank, cand in enumerate(answer.suggestions):
        new_text = word + cand.text
        first = new_text.split("\n", 1)[0]
        multi = "\n" in cand.text
        items.append(
            lsp.CompletionItem(
                label=first if first.strip() else new_text.strip(),
                kind=lsp.CompletionItemKind.Text,
                detail=detail,
                documentation=_documentation(new_text, formats) if multi else None,
                sort_text=f"{rank:04d}",
                filter_text=word + first[len(word) :] if first.startswith(word) else first,
                insert_text_format=lsp.InsertTextFormat.PlainText,
                text_edit=lsp.TextEdit(range=rng, new_text=new_text),
                preselect=rank == 0,
            )
        )
    return items


def _documentation_formats(ls: LayaServer) -> list[lsp.MarkupKind]:
    """The formats the client declared for completion items' documentation (none: it takes plain strings)."""
    caps = ls.client_capabilities
    docs = caps.text_document if caps else None
    item = docs.completion.completion_item if docs and docs.completion else None
    return list(item.documentation_format or []) if item else []


def _documentation(text: str, formats: list[lsp.MarkupKind]) -> str | lsp.MarkupContent:
    """A block candidate's whole text: fenced as code for a client that reads Markdown, marked plain text for one
    that declared only that, and a plain string (LSP's original form) for a client that declared nothing."""
    if lsp.MarkupKind.Markdown in formats:
        return lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=f"```\n{text}\n```")
    if lsp.MarkupKind.PlainText in formats:
        return lsp.MarkupContent(kind=lsp.MarkupKind.PlainText, value=text)
    return text


def to_inline_items(cur: Cursor, answer: Completion) -> list[lsp.InlineCompletionItem]:
    rng = lsp.Range(start=cur.position, end=cur.position)
    return [lsp.InlineCompletionItem(insert_text=c.text, range=rng) for c in answer.suggestions]


def register(server: LayaServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS, resolve_provider=False),
    )
    async def completion(ls: LayaServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        cur = locate(ls, params.text_document.uri, params.position)
        if cur is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        # A trigger character or a list asked again as the user types (ours are always incomplete) is typing;
        # Invoked (or no context) is an explicit request, as far as the protocol tells them apart.
        context = params.context
        typing = context is not None and context.trigger_kind in (
            lsp.CompletionTriggerKind.TriggerCharacter, lsp.CompletionTriggerKind.TriggerForIncompleteCompletions)
        answer = await run_completion(ls, cur, Kind.COMPLETION, typing, params.work_done_token)
        if answer is None or not answer.suggestions:
            # Incomplete: the client asks again on the next keystroke instead of caching "nothing".
            return lsp.CompletionList(is_incomplete=True, items=[])
        return lsp.CompletionList(is_incomplete=True, items=to_completion_items(ls, cur, answer))

    @server.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    async def inline_completion(ls: LayaServer, params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList:
        cur = locate(ls, params.text_document.uri, params.position)
        if cur is None:
            return lsp.InlineCompletionList(items=[])
        typing = params.context.trigger_kind == lsp.InlineCompletionTriggerKind.Automatic
        answer = await run_completion(ls, cur, Kind.INLINE, typing, params.work_done_token)
        if answer is None:
            return lsp.InlineCompletionList(items=[])
        return lsp.InlineCompletionList(items=to_inline_items(cur, answer))
