"""Both fronts take the same path: the same request through LSP and through HTTP gets the same candidates, the
same answer source and a stats record with the same fields (and the same prompt), because both call the
orchestrator. Real servers on both sides: `laya-lsp` over stdio and `laya-lsp http` on loopback."""

from __future__ import annotations

import httpx
import pytest
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from httphelpers import HttpServer
from lspclient import LspClient, position_at

# The embedded model with post-processing on (the syntax stage is part of the path both take), greedy, no background
# work that could take the worker between the two requests, no cross-file context (the fronts' other documents
# differ), no debounce. The LSP's ghost text is asked for as while typing (Automatic) and HTTP has no such notion,
# so both kinds of request ask for the same number of candidates here.
# (ghost text whatever the model's confidence: these tests are about other things; the cut: test_confidence*)
SETTINGS = {"speculative": False, "warmUp": False, "minConfidence": 0,
            "crossFileTokens": 0, "debounceMs": 0, "candidates": 3, "typingCandidates": 3, "maxTokens": 12}
URI = "file:///parity/tally.py"
TEXT = "def tally(counts):\n    total = 0\n    for name, n in counts.items():\n        total = "


@pytest.fixture(scope="module")
def http_server():
    s = HttpServer(settings=SETTINGS, model=DEFAULT_MODEL)
    yield s
    s.close()


async def _lsp_inline(c: LspClient, text: str) -> list[str]:
    pos = position_at(text, len(text))
    resp = await c.inline_completion(URI, pos["line"], pos["character"], timeout=60)
    return [item["insertText"] for item in resp["result"]["items"]]


def _http_inline(h: httpx.Client, text: str) -> dict:
    r = h.post("/v1/complete", json={"text": text, "language": "python", "kind": "inline", "session": "parity"})
    assert r.status_code == 200, r.text
    return r.json()


async def test_the_same_request_gets_the_same_answer_through_lsp_and_http(http_server: HttpServer):
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)
        lsp_first = await _lsp_inline(c, TEXT)
        lsp_record = (await c.call("laya/stats", {"recent": 1}))["recent"][-1]
        with http_server.client() as h:
            http_first = _http_inline(h, TEXT)
            assert lsp_first and lsp_first == [x["text"] for x in http_first["candidates"]]
            assert set(lsp_record) == set(http_first["stats"]), "the stats records differ in their fields"
            for key in ("kind", "status", "source", "prompt_tokens", "prompt_hash", "decode_tokens", "candidates"):
                assert lsp_record[key] == http_first["stats"][key], key
            assert lsp_record["source"] == http_first["source"] == "model"

            # Typing the first character of a candidate with more after it: both answer from it, without a model run.
            char = next(text for text in lsp_first if len(text) > 1)[0]
            typed = TEXT + char
            end = position_at(TEXT, len(TEXT))
            await c.did_change(URI, 2, [{"range": {"start": end, "end": end}, "text": char}])
            lsp_second = await _lsp_inline(c, typed)
            lsp_record = (await c.call("laya/stats", {"recent": 1}))["recent"][-1]
            http_second = _http_inline(h, typed)
        assert lsp_second and lsp_second == [x["text"] for x in http_second["candidates"]]
        assert lsp_record["source"] == http_second["stats"]["source"] == "typed-through"
        assert set(lsp_record) == set(http_second["stats"])
    finally:
        await c.close()
