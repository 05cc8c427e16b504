"""`laya/structured` never nests past MAX_DEPTH: the embedded model left free after `[[` opens a bracket per token,
and without the limit its 1,200-token answer was nested beyond what Python's JSON parser reads (an internal error
over stdio, a 500 over HTTP)."""

from __future__ import annotations

import json

import pytest
import pytest_lsp
from conftest import DEFAULT_SERVER_CMD, as_dict
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from laya_lsp.decisions.structured import MAX_DEPTH, Nesting


def deepest(text: str) -> int:
    return Nesting().after(text)[1]


def test_nesting_counts_brackets_outside_strings_only():
    assert deepest('[{"a": [1]}]') == 3
    assert deepest('["[[[", "\\"[{"]') == 1
    state, top = Nesting().after('[["x\\')
    assert (state.depth, state.in_string, state.escaped, top) == (2, True, True, 2)
    assert state.after('"[')[0] == Nesting(2, True, False)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_a_free_value_stops_nesting_at_the_limit_and_parses(client: LanguageClient):
    """After `[[` the embedded model (run 4) opens one more bracket per token: the answer reaches the limit, where
    only the limit can have stopped it, and still parses."""
    r = as_dict(await client.protocol.send_request_async(
        "laya/structured", {"prompt": "[[", "schema": {}, "maxTokens": 1200}))
    value = json.loads(r["text"])
    assert value == r["value"] and isinstance(value, list)
    assert deepest(r["text"]) == MAX_DEPTH, "the model no longer nests here: pick a prompt that does"
