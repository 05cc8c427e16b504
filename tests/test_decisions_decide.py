"""`laya/decide` end to end over stdio: result shape, calibrated scores, threshold, document contexts that share
the document's cache, text contexts whose KV state is kept for the next call, bad params; and, with the trained default
model, that it picks the obvious choice."""

from __future__ import annotations

import math

import pytest
import pytest_lsp
from conftest import SERVER_CMD, as_dict
from lsphelpers import completion_params, open_doc, position_at, stats
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR

pytestmark = pytest.mark.asyncio(loop_scope="module")

CHOICES = [{"id": "add", "description": " a + b"}, {"id": "mul", "description": " a * b"},
           {"id": "junk", "description": " ]]] ((( return"}]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    yield
    await lsp_client.shutdown_session()


async def decide(client: LanguageClient, params: dict) -> dict:
    return as_dict(await client.protocol.send_request_async("laya/decide", params))


async def test_result_shape_and_scores_sum_to_one(client: LanguageClient):
    r = await decide(client, {"context": "def add(a, b):\n    return", "choices": CHOICES, "threshold": 0})
    assert set(r) >= {"choice", "confidence", "scores"}
    assert [s["id"] for s in r["scores"]] == ["add", "mul", "junk"]
    assert math.isclose(sum(s["score"] for s in r["scores"]), 1.0, abs_tol=1e-6)
    best = max(r["scores"], key=lambda s: s["score"])
    assert r["choice"] == best["id"] and r["confidence"] == pytest.approx(best["score"])
    assert r["source"] == "local"


async def test_below_threshold_the_choice_is_null(client: LanguageClient):
    r = await decide(client, {"context": "x = ", "choices": ["1", "2", "3", "4"], "threshold": 0.999})
    assert r["choice"] is None and 0 < r["confidence"] < 0.999
    low = await decide(client, {"context": "x = ", "choices": ["1", "2", "3", "4"], "threshold": 0.0})
    assert low["choice"] is not None and low["confidence"] == pytest.approx(r["confidence"])


async def test_temperature_flattens_the_distribution(client: LanguageClient):
    sharp = await decide(client, {"context": "y = ", "choices": CHOICES, "temperature": 0.5})
    flat = await decide(client, {"context": "y = ", "choices": CHOICES, "temperature": 4.0})
    assert max(s["score"] for s in flat["scores"]) < max(s["score"] for s in sharp["scores"])
    assert flat["calibration"]["temperature"] == 4.0


async def test_document_position_shares_the_document_cache_without_disturbing_it(client: LanguageClient):
    uri = "file:///decide.py"
    text = "import os\n\n\ndef add(a, b):\n    return \n\n\nprint(add(1, 2))\n"
    open_doc(client, uri, text)
    pos = position_at(text, text.index("return ") + len("return "))
    await client.text_document_completion_async(completion_params(uri, pos))
    params = {"textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
              "choices": CHOICES}
    first = await decide(client, params)
    second = await decide(client, params)
    assert [s["score"] for s in first["scores"]] == pytest.approx([s["score"] for s in second["scores"]], abs=1e-4)
    # Both reused what the completion left in the document cache (and, test_decisions_score shows, left it
    # intact for the next completion).
    recent = [r for r in (await stats(client, recent=8))["recent"] if r["doc"] == uri]
    decides = [r for r in recent if r["kind"] == "decide"]
    assert len(decides) == 2 and all(r["reused_tokens"] > 0 for r in decides)


WM = "A window manager. The user said: put the browser on the left half of the screen.\nThe action:"
WM_CHOICES = [{"id": "left", "description": " tile the window to the left half"},
              {"id": "right", "description": " tile the window to the right half"},
              {"id": "max", "description": " maximize the window"}]


async def test_a_context_asked_again_reuses_its_kv_state_and_answers_as_cold(client: LanguageClient):
    cold = await decide(client, {"context": WM, "choices": WM_CHOICES, "threshold": 0})
    warm = await decide(client, {"context": WM, "choices": WM_CHOICES, "threshold": 0})
    longer = await decide(client, {"context": WM + " tile", "choices": WM_CHOICES, "threshold": 0})
    st = await stats(client, recent=3)
    first, again, extended = st["recent"]
    assert first["reused_tokens"] == 0 < first["prompt_tokens"]
    # All but the last token: its logits start the scoring.
    assert again["reused_tokens"] == again["prompt_tokens"] - 1
    assert extended["reused_tokens"] == first["prompt_tokens"], "a longer context reuses the one asked before"
    assert warm["choice"] == cold["choice"]
    assert [s["score"] for s in warm["scores"]] == pytest.approx([s["score"] for s in cold["scores"]], abs=1e-4)
    assert longer["scores"] and st["contextCache"]["prompts"] >= 1
    assert 0 < st["contextCache"]["bytes"] <= st["cacheBytesTotal"] <= st["cacheBudgetBytes"]


@pytest.mark.parametrize("params", [
    {"context": "x", "choices": [{"id": "only"}]},
    {"context": "x", "choices": [{"id": "a"}, {"id": "a"}]},
    {"choices": [{"id": "a"}, {"id": "b"}]},
    {"context": "x", "choices": [{"id": "a"}, {"id": "b"}], "threshold": 2},
    {"context": "x", "choices": [{"id": "a"}, {"id": "b"}], "threshold": True},
    {"context": "x", "choices": [{"id": "a"}, {"id": "b"}], "normalize": "max"},
    {"context": "x", "choices": [{"id": "a"}, {"id": "b"}], "temperature": "1"},
    {"textDocument": {"uri": "file:///x.py"}, "position": {"line": "0", "character": 0},
     "choices": [{"id": "a"}, {"id": "b"}]},
    {"textDocument": {"uri": "file:///not-open.py"}, "position": {"line": 0, "character": 0},
     "choices": [{"id": "a"}, {"id": "b"}]},
])
async def test_bad_params_are_invalid_params(client: LanguageClient, params: dict):
    with pytest.raises(JsonRpcException) as err:
        await decide(client, params)
    assert err.value.code == -32602


async def test_a_bad_field_is_named(client: LanguageClient):
    """Params are typed (lsp/params.py): the answer says which field is wrong and why."""
    with pytest.raises(JsonRpcException) as err:
        await decide(client, {"context": "x", "choices": ["a", "b"], "threshold": 1.5})
    assert "threshold must be between 0 and 1, got 1.5" in str(err.value)
    with pytest.raises(JsonRpcException) as err:
        await decide(client, {"context": "x", "choices": ["a", "b"], "temperature": True})
    assert "expected float" in str(err.value) and "params.temperature" in str(err.value)


DEFAULT_READY = (DEFAULT_MODEL_DIR / "config.json").exists()
# Code contexts where one option is obviously right; each (prefix, right, wrong).
OBVIOUS = [
    ("def add(a, b):\n    return a", " + b", " ** ] b"),
    ('if __name__ == "__main__', '":\n    main()', '"(\n    main]'),
    ("for i in range(len(items)):\n    print(items[", "i])", "print)])"),
    ("import numpy as", " np", " 3 +"),
    ("class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y =", " y", " self)("),
]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD[:-2]), scope="module", loop_scope="module")
async def default_client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.skipif(not DEFAULT_READY, reason="the trained default model is not in laya_lsp/models/default yet")
async def test_default_model_picks_the_obvious_choice(default_client: LanguageClient):
    for prefix, right, wrong in OBVIOUS:
        r = await decide(default_client, {"context": prefix, "threshold": 0,
                                          "choices": [{"id": "right", "description": right},
                                                      {"id": "wrong", "description": wrong}]})
        scores = {s["id"]: s["score"] for s in r["scores"]}
        assert r["choice"] == "right", (prefix, r)
        assert scores["right"] > scores["wrong"]
    # At a document position (fill-in-the-middle with the code after the cursor).
    uri = "file:///obvious.py"
    text = "def add(a, b):\n    return a\n\n\nprint(add(1, 2))\n"
    open_doc(default_client, uri, text)
    pos = position_at(text, text.index("return a") + len("return a"))
    r = await decide(default_client, {"textDocument": {"uri": uri}, "threshold": 0,
                                      "position": {"line": pos.line, "character": pos.character},
                                      "choices": [{"id": "right", "description": " + b"},
                                                  {"id": "wrong", "description": " ** ] b"}]})
    assert r["choice"] == "right" and r["confidence"] > 0.5, r
