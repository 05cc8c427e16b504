"""First line first (issue 28.3), through the server: while typing, where the plan allows a block, the answer
comes with the block's first line; the block is decoded in the background into the typed-through store, and
asking again at the same place, or after accepting the line, gets the block with no model run."""

from __future__ import annotations

import asyncio

from conftest import DEFAULT_SERVER_CMD
from lsphelpers import change, open_doc, position_at, server_session, stats
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The embedded model with post-processing on; speculation off, so the block's own record is the only background run.
# (ghost text whatever the model's confidence: these tests are about other things; the cut: test_confidence*)
BASE = {"debounceMs": 0, "typingCandidates": 1, "maxTokens": 48, "speculative": False, "warmUp": False,
        "minConfidence": 0,
        "crossFileTokens": 0}
DOC = ("import os\n\n\ndef list_files(root):\n    out = []\n    for name in os.listdir(root):\n"
       "        out.append(os.path.join(root, name))\n    return out\n\n\ndef count_lines(path):\n    ")


client = server_session(DEFAULT_SERVER_CMD, BASE)


async def _inline(client: LanguageClient, uri: str, text: str) -> list[str]:
    res = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text)),
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Automatic)))
    items = res.items if isinstance(res, lsp.InlineCompletionList) else (res or [])
    return [str(i.insert_text) for i in items]


def _lines(text: str) -> int:
    return len([line for line in text.split("\n") if line.strip()])


async def _block_done(client: LanguageClient) -> dict:
    for _ in range(600):
        recs = [r for r in (await stats(client, recent=20))["recent"] if r["kind"] == "block"]
        if recs and recs[-1]["status"] == "ok":
            return recs[-1]
        assert not recs or recs[-1]["status"] != "error", recs[-1]
        await asyncio.sleep(0.05)
    raise AssertionError("the block was never decoded")


async def test_the_first_line_comes_first_and_the_block_without_a_model_run(client: LanguageClient):
    uri = "file:///block.py"
    open_doc(client, uri, DOC)
    first = await _inline(client, uri, DOC)
    record = [r for r in (await stats(client, recent=5))["recent"] if r["kind"] == "inline"][-1]
    assert first and all(_lines(t) == 1 for t in first), first
    assert record["source"] == "model" and record["extra"].get("first_line_first"), record
    block = await _block_done(client)
    assert block["source"] == "block" and block["accepted_tokens"] > 0, "the block's first line came from a draft"
    before = (await stats(client, recent=0))["summary"]["decode_tokens"]
    again = await _inline(client, uri, DOC)  # the client asks again (an incomplete list, the next keystroke)
    after = await stats(client, recent=1)
    assert after["recent"][-1]["source"] == "typed-through"
    assert after["summary"]["decode_tokens"] == before, "the block is served with no model run"
    assert again[0].startswith(first[0]) and _lines(again[0]) > 1, (first, again)
    # Accepting the first line: the rest of the block, still with no model run.
    line = first[0]
    pos = position_at(DOC, len(DOC))
    change(client, uri, 2, pos, pos, line)
    rest = await _inline(client, uri, DOC + line)
    after = await stats(client, recent=1)
    assert after["recent"][-1]["source"] == "typed-through" and rest and rest[0] == again[0][len(line):]
    assert after["summary"]["decode_tokens"] == before
