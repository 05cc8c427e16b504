"""Requests made while typing ask the model for `typingCandidates`; explicit ones for `candidates` (issue 16.3:
the first candidate is not delayed by the other four while the user types). Through the real server."""

from __future__ import annotations

from conftest import DEFAULT_SERVER_CMD
from lsphelpers import open_doc, position_at, server_session, stats
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The embedded model with post-processing on; every request a model run.
# (ghost text whatever the model's confidence: these tests are about other things; the cut: test_confidence*)
BASE = {"debounceMs": 0, "candidates": 4, "typingCandidates": 1, "minConfidence": 0,
        "maxTokens": 6, "typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0}
DOC = "import os\n\n\ndef main():\n    value = os.getcwd()\n    result = "


client = server_session(DEFAULT_SERVER_CMD, BASE)


async def _last_model_run(client: LanguageClient, kind: str) -> dict:
    records = [r for r in (await stats(client, recent=20))["recent"] if r["kind"] == kind and r["source"] == "model"]
    assert records, f"no {kind} model run recorded"
    return records[-1]


async def _inline(client: LanguageClient, uri: str, trigger: lsp.InlineCompletionTriggerKind) -> list:
    res = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(DOC, len(DOC)),
        context=lsp.InlineCompletionContext(trigger_kind=trigger)))
    return list(res.items if isinstance(res, lsp.InlineCompletionList) else (res or []))


async def _list(client: LanguageClient, uri: str, context: lsp.CompletionContext | None) -> list:
    res = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(DOC, len(DOC)), context=context))
    return list(res.items if isinstance(res, lsp.CompletionList) else (res or []))


async def test_ghost_text_while_typing_asks_for_one_and_an_explicit_request_for_all(client: LanguageClient):
    uri = "file:///inline.py"
    open_doc(client, uri, DOC)
    automatic = await _inline(client, uri, lsp.InlineCompletionTriggerKind.Automatic)
    record = await _last_model_run(client, "inline")
    assert record["candidates"] == 1 and len(automatic) == 1, (record, automatic)
    invoked = await _inline(client, uri, lsp.InlineCompletionTriggerKind.Invoked)
    record = await _last_model_run(client, "inline")
    # (post-processing may reject some of the model's candidates, never add one)
    assert record["candidates"] > 1 and 1 < len(invoked) <= record["candidates"], (record, invoked)


async def test_a_list_asked_again_while_typing_asks_for_one(client: LanguageClient):
    uri = "file:///list.py"
    open_doc(client, uri, DOC)
    explicit = await _list(client, uri, None)  # no context: an explicit request as far as the server can tell
    assert (await _last_model_run(client, "completion"))["candidates"] > 1 and len(explicit) > 1
    for kind in (lsp.CompletionTriggerKind.TriggerForIncompleteCompletions, lsp.CompletionTriggerKind.TriggerCharacter):
        items = await _list(client, uri, lsp.CompletionContext(trigger_kind=kind, trigger_character=(
            "." if kind == lsp.CompletionTriggerKind.TriggerCharacter else None)))
        assert (await _last_model_run(client, "completion"))["candidates"] == 1 and len(items) == 1, kind
    invoked = await _list(client, uri, lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.Invoked))
    assert (await _last_model_run(client, "completion"))["candidates"] > 1 and len(invoked) > 1


async def test_typing_candidates_is_validated_and_the_server_keeps_serving(client: LanguageClient):
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"typingCandidates": 0}})
    )
    uri = "file:///still.py"
    open_doc(client, uri, DOC)
    # the bad value is refused (the previous one stays): typing still asks for one
    assert len(await _inline(client, uri, lsp.InlineCompletionTriggerKind.Automatic)) == 1
    assert (await _last_model_run(client, "inline"))["candidates"] == 1
