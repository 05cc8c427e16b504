"""Through the real server (the shipped model): what is unsure is not shown as ghost text, the list still offers
it; a suggestion is cut where the model grows unsure and typing through the cut text still answers at once;
nothing in another language than the buffer's is shown."""

from __future__ import annotations

from typing import Any

from conftest import DEFAULT_SERVER_CMD
from lsphelpers import change, open_doc, position_at, server_session, stats
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The keystroke model's own cut (what the pause tier does with what it withholds: test_pause_tier).
BASE = {"debounceMs": 0, "typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0,
        "pause": {"model": "off"}}
DOC = "import os\n\n\ndef main():\n    value = os.getcwd()\n    result = "


client = server_session(DEFAULT_SERVER_CMD, BASE)


def configure(client: LanguageClient, **settings: Any) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": settings}))


async def ghost(client: LanguageClient, uri: str, text: str, offset: int | None = None) -> list[str]:
    res = await client.text_document_inline_completion_async(
        lsp.InlineCompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=position_at(text, len(text) if offset is None else offset),
            context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked),
        )
    )
    items = list(res.items if isinstance(res, lsp.InlineCompletionList) else (res or []))
    return [i.insert_text if isinstance(i.insert_text, str) else i.insert_text.value for i in items]


async def listed(client: LanguageClient, uri: str, text: str) -> list[str]:
    res = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text))))
    items = list(res.items if isinstance(res, lsp.CompletionList) else (res or []))
    return [i.text_edit.new_text for i in items if i.text_edit is not None]


async def test_unsure_ghost_text_is_withheld_and_the_list_still_offers_it(client: LanguageClient):
    uri = "file:///unsure.py"
    open_doc(client, uri, DOC)
    configure(client, **BASE, minConfidence=0.999)
    assert await ghost(client, uri, DOC) == []
    # the request's record says how sure the withheld top suggestion was (what benchmarks/quality.py --uncut reads)
    record = (await stats(client, recent=1))["recent"][-1]
    assert 0.0 < record["extra"]["top_confidence"] < 0.999, record
    assert await listed(client, uri, DOC)  # the same candidates, ranked, in the list
    configure(client, **BASE, minConfidence=0.0)  # 0 shows everything
    assert await ghost(client, uri, DOC)


async def test_nothing_in_another_language_in_a_python_file(client: LanguageClient):
    # With the rule off, the model's answers here include `'use strict';` (empty file) and C's `#include`
    # lines (a file of one blank line).
    for name, text in (("empty.py", ""), ("blank.py", "\n")):
        uri = f"file:///{name}"
        open_doc(client, uri, text)
        for texts in (await ghost(client, uri, text), await listed(client, uri, text)):
            assert not any("use strict" in t or "#include" in t for t in texts), texts


LONG = "import sys\n\n\ndef main():\n    if len(sys.argv) < 2:\n        print("


async def test_ghost_text_is_cut_where_the_model_grows_unsure_and_typing_through_it_answers_at_once(
        client: LanguageClient):
    uri = "file:///cut.py"
    open_doc(client, uri, LONG)
    configure(client, **BASE, minConfidence=0.0)
    whole = (await ghost(client, uri, LONG))[0]
    shown = ""
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):  # somewhere the model grows unsure along the line
        configure(client, **BASE, minConfidence=threshold)
        shown = (await ghost(client, uri, LONG) or [""])[0]
        if len(shown) > 1 and shown != whole:
            break
    assert len(shown) > 1 and whole.startswith(shown) and len(shown) < len(whole), (shown, whole)
    # Typing its first character: the rest of the cut text at once, from what was shown (no model run).
    configure(client, **{**BASE, "minConfidence": threshold, "typedThrough": True})
    change(client, uri, 2, position_at(LONG, len(LONG)), position_at(LONG, len(LONG)), shown[0])
    assert (await ghost(client, uri, LONG + shown[0]))[:1] == [shown[1:]]
    record = (await stats(client, recent=1))["recent"][-1]
    assert record["source"] == "typed-through", record
