"""Fixed shapes (issue 26.1): with `fixedShapes` on, warm-up traces every step shape a request can meet, and a
typing session through the real server traces none after it (on a GPU a trace is a stall: attention plans and
kernel compiles). Counted by the compiled step's own bookkeeping (`laya/stats` "steps"), never by timing; the
same replay with fixed shapes off does trace (the count is live)."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from conftest import SERVER_CMD
from lsphelpers import change, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

# Post-processing off: the tiny random model's text would not survive it, and the replay counts answers.
# Every request a model run (no answers from shown candidates or syntax rules), two documents, explicit and
# typing requests (k = candidates and k = typingCandidates), a file longer than a prompt chunk and than a block.
BASE = {"postprocess": False, "triggerRules": False, "debounceMs": 0, "candidates": 4, "typingCandidates": 2,
        "maxTokens": 6, "typedThrough": False, "speculative": True, "warmUp": True, "contextTokens": 384,
        "prefillChunk": 64}
HEAD = "".join(f"def helper_{i}(value, other):\n    return value * {i} + other - {i}\n\n" for i in range(40))
TYPED = "result = helper_3(1, 2)\nprint(result, helper_7(3, 4))\n"


async def _start(client: LanguageClient, fixed: str) -> None:
    await client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None,
        initialization_options={**BASE, "fixedShapes": fixed}))


async def _replay(client: LanguageClient) -> int:
    """Type TYPED at the end of two files, a character at a time, asking as an editor does; returns answers."""
    docs = {"file:///a.py": HEAD, "file:///b.py": HEAD[: len(HEAD) // 3]}
    for uri, text in docs.items():
        open_doc(client, uri, text)
    answered, version = 0, 1
    for i, ch in enumerate(TYPED):
        version += 1
        asks = []
        for uri, text in docs.items():
            change(client, uri, version, position_at(text, len(text)), position_at(text, len(text)), ch)
            docs[uri] = text = text + ch
            trigger = (
                lsp.InlineCompletionTriggerKind.Invoked if i % 9 == 0 else lsp.InlineCompletionTriggerKind.Automatic
            )
            asks.append(client.text_document_inline_completion_async(lsp.InlineCompletionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text)),
                context=lsp.InlineCompletionContext(trigger_kind=trigger))))
        for res in await asyncio.gather(*asks):
            answered += bool(res)
    # a paste: many new tokens at once (prompt chunks, the cache's window moves)
    uri, text = "file:///b.py", docs["file:///b.py"]
    change(client, uri, version + 1, position_at(text, len(text)), position_at(text, len(text)), HEAD[:1500])
    text += HEAD[:1500]
    res = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text)),
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
    return answered + bool(res)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


@pytest.mark.parametrize("fixed", ["on", "off"])
async def test_no_step_is_traced_after_warm_up_while_typing(client: LanguageClient, fixed: str):
    await _start(client, fixed)
    answered = await _replay(client)
    steps = (await stats(client, recent=200))["steps"]
    runs = [r for r in (await stats(client, recent=200))["recent"] if r["source"] == "model"]
    assert answered > len(TYPED) and len(runs) > len(TYPED), (answered, len(runs))
    assert steps["fixed"] == (fixed == "on")
    if fixed == "on":
        assert steps["warmUpTraces"] > 0 and steps["traces"] == steps["warmUpTraces"], steps
    else:  # caches grow by blocks and documents batch in new combinations: the counter sees the traces
        assert steps["traces"] > steps["warmUpTraces"], steps


async def test_a_kept_context_decides_as_cold_with_fixed_shapes(client: LanguageClient):
    """A kept context is stored at its prompt's size and brought back to the fixed capacity when reused."""
    await _start(client, "on")
    params = {"context": "def area(width, height):\n    return", "threshold": 0,
              "choices": [{"id": "mul", "description": " width * height"}, {"id": "add", "description": " width + 1"}]}
    cold = await client.protocol.send_request_async("laya/decide", params)
    warm = await client.protocol.send_request_async("laya/decide", params)
    first, again = (await stats(client, recent=2))["recent"]
    assert (first["reused_tokens"], again["reused_tokens"]) == (0, again["prompt_tokens"] - 1)
    assert [s.score for s in warm.scores] == pytest.approx([s.score for s in cold.scores], abs=1e-4)
