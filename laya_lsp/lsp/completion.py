"""`textDocument/completion` and `textDocument/inlineCompletion`: the same engine candidates, two LSP shapes."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from ..engine import CompletionResult
from ..service import Answer
from ..syntax import SyntaxDocument
from .server import LayaServer

log = logging.getLogger(__name__)

TRIGGER_CHARACTERS = [".", "(", "[", "{", ",", "=", ":", " ", "\n"]


@dataclass
class Cursor:
    """Where a request points, in both the server's str offsets and the client's positions."""

    doc: TextDocument
    offset: int
    word_start: int  # start of the identifier being typed (the completion item's edit replaces it)
    position: lsp.Position
    word_start_position: lsp.Position
    version: int | None = None  # the document version the request was made against (doc is the live copy)


def _is_word_char(ch: str) -> bool:
    return ch == "_" or ch.isalnum()


def locate(ls: LayaServer, uri: str, position: lsp.Position) -> Cursor | None:
    """Resolve a request position; None for unknown documents or positions outside the document."""
    if unquote(uri) not in ls.workspace.text_documents:  # pygls keys documents by the unquoted URI
        log.warning("request for a document that is not open: %s", uri)
        return None
    doc = ls.workspace.get_text_document(uri)
    lines = doc.lines
    if position.line < 0 or position.character < 0 or position.line > len(lines):
        return None
    if position.line == len(lines) and position.character > 0:
        return None
    if position.line < len(lines):
        line = lines[position.line].rstrip("\r\n")
        if doc.position_codec.client_num_units(line) < position.character:
            return None
    # Just past a final newline: pygls would return the last line's length in client units, not a str index.
    offset = len(doc.source) if position.line == len(lines) else doc.offset_at_position(position)
    text = doc.source
    start = offset
    while start > 0 and _is_word_char(text[start - 1]):
        start -= 1
    word_pos = doc.client_position_at_offset(start) if start != offset else position
    return Cursor(doc, offset, start, position, word_pos, doc.version)


def _syntax_doc(ls: LayaServer, cur: Cursor) -> SyntaxDocument:
    """The document's syntax tree; rebuilt if it ever disagrees with pygls' text (it never should)."""
    sdoc = ls.syntax_docs.get(cur.doc.uri)
    if sdoc is None or sdoc.text != cur.doc.source:
        if sdoc is not None:
            log.error("syntax document out of step with the text of %s; rebuilt", cur.doc.uri)
        sdoc = SyntaxDocument(cur.doc.source, cur.doc.language_id or "", cur.doc.uri)
        ls.syntax_docs[cur.doc.uri] = sdoc
    return sdoc


async def run_completion(ls: LayaServer, cur: Cursor, kind: str) -> Answer | None:
    """Plan, answer from what is already known or queue a model run, then clean the candidates.

    Client cancellation reaches the running model; an answer for a document that changed meanwhile is
    dropped (the client asks again for the new text), so no response carries text for an older version.
    """
    await ls.wait_for_model()
    version = cur.version
    if cur.doc.version != version:
        return None  # edited while the model loaded: the offset is for a text that is gone; the client asks again
    sdoc = _syntax_doc(ls, cur)
    uri = cur.doc.uri
    ticket = ls.completions.request(uri, sdoc, cur.offset, kind, version)
    if ticket.immediate is not None:
        return ticket.immediate
    if ticket.job is None:
        return None
    try:
        # Shielded: cancelling a wrap_future() wrapper cancels the job's future itself, which would answer
        # RequestCancelled to another request sharing the job although its client never cancelled it.
        result: CompletionResult = await asyncio.shield(asyncio.wrap_future(ticket.job.future))
    except asyncio.CancelledError:
        if not ticket.shared:  # a shared job still serves the request that started it
            ls.engine.scheduler.cancel(ticket.job)
        raise
    except Exception as exc:  # a fault in the model call: answer empty, tell the user once
        log.exception("completion failed")
        _show_failure_once(ls, f"completion failed: {type(exc).__name__}: {exc}")
        return None
    if result.stats.status == "error" and result.stats.error:
        log.warning("completion failed: %s", result.stats.error)
    if cur.doc.version != version:
        return None
    answer = ls.completions.finish(sdoc, cur.offset, ticket.plan, result, uri, typed=ticket.typed)
    if ticket.shared and not answer.suggestions:
        # The user typed past what the running generation predicted: ask the model for this text.
        return await run_completion(ls, cur, kind)
    return answer


_FAILURE_REPEAT_S = 300.0
_failures_shown: dict[str, float] = {}


def _show_failure_once(ls: LayaServer, message: str) -> None:
    """window/showMessage for a failure, at most once per message every few minutes (not once per keystroke)."""
    now = time.monotonic()
    if now - _failures_shown.get(message, -_FAILURE_REPEAT_S) >= _FAILURE_REPEAT_S:
        _failures_shown[message] = now
        ls.show_error(message)


def _detail(ls: LayaServer, answer: Answer) -> str:
    name = ls.engine.lm.name if ls.engine.lm else "model"
    if answer.result is None or answer.source != "model":
        return f"laya · {name} · {answer.source}"
    st = answer.result.stats
    return f"laya · {name} · {st.total_ms:.0f} ms ({st.reused_tokens}/{st.prompt_tokens} tokens cached)"


def to_completion_items(ls: LayaServer, cur: Cursor, answer: Answer) -> list[lsp.CompletionItem]:
    word = cur.doc.source[cur.word_start : cur.offset]
    rng = lsp.Range(start=cur.word_start_position, end=cur.position)
    detail = _detail(ls, answer)
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
                documentation=(
                    lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=f"```\n{new_text}\n```") if multi else None
                ),
                sort_text=f"{rank:04d}",
                filter_text=word + first[len(word) :] if first.startswith(word) else first,
                insert_text_format=lsp.InsertTextFormat.PlainText,
                text_edit=lsp.TextEdit(range=rng, new_text=new_text),
                preselect=rank == 0,
            )
        )
    return items


def to_inline_items(cur: Cursor, answer: Answer) -> list[lsp.InlineCompletionItem]:
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
        answer = await run_completion(ls, cur, "completion")
        if answer is None or not answer.suggestions:
            # Incomplete: the client asks again on the next keystroke instead of caching "nothing".
            return lsp.CompletionList(is_incomplete=True, items=[])
        return lsp.CompletionList(is_incomplete=True, items=to_completion_items(ls, cur, answer))

    @server.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    async def inline_completion(ls: LayaServer, params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList:
        cur = locate(ls, params.text_document.uri, params.position)
        if cur is None:
            return lsp.InlineCompletionList(items=[])
        answer = await run_completion(ls, cur, "inline")
        if answer is None:
            return lsp.InlineCompletionList(items=[])
        return lsp.InlineCompletionList(items=to_inline_items(cur, answer))
