"""`laya/structured` end to end over stdio: output validates against its schema whatever the (tiny, random)
model prefers — a hypothesis property over generated schemas and token budgets — including budgets too small
for the value (closed by the grammar), keys that are not identifiers, $ref, document ranges, bad schemas."""

from __future__ import annotations

import json

import jsonschema
import pytest
import pytest_lsp
from conftest import SERVER_CMD, as_dict
from hypothesis import given, settings
from hypothesis import strategies as st
from lsphelpers import open_doc, stats
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

TODO = {"type": "object", "required": ["time", "place", "topic", "action"], "properties": {
    "time": {"type": "string", "maxLength": 20}, "place": {"type": "string", "maxLength": 20},
    "topic": {"type": "string"}, "action": {"enum": ["meet", "call", "email", "remind"]}}}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None))
    yield
    await lsp_client.shutdown_session()


async def structured(client: LanguageClient, params: dict) -> dict:
    # Sent as raw JSON so the schema's keys reach the server exactly as written.
    return as_dict(await client.protocol.send_request_async("laya/structured", params))


def check(result: dict, schema: dict) -> object:
    """The value validates against the schema. It is read from `text`: pygls' client turns result objects into
    namedtuples, renaming keys such as "$id", "class" or "_"."""
    value = json.loads(result["text"])
    jsonschema.validate(value, schema)
    return value


async def test_todo_sentence_to_fields(client: LanguageClient):
    r = await structured(client, {"prompt": "# todo: call Ana tomorrow at 3pm in room 4 about the budget\n",
                                  "schema": TODO, "maxTokens": 96})
    assert check(r, TODO) == r["value"]
    assert set(r) >= {"value", "text", "confidence", "tokens", "truncated", "source"}
    assert r["source"] == "local" and 0 < r["confidence"] <= 1
    rec = (await stats(client, recent=1))["recent"][-1]
    # The record carries the grammar mask's cost per token (measured, so positive); its speed is a benchmark's number.
    assert rec["kind"] == "structured" and rec["extra"]["mask_ms_per_token"] > 0


async def test_a_prompt_asked_again_reuses_its_kv_state_and_answers_the_same(client: LanguageClient):
    params = {"prompt": "# todo: water the plants on friday morning before work\n", "schema": TODO, "maxTokens": 48}
    first = await structured(client, params)
    again = await structured(client, params)
    assert again["text"] == first["text"]
    cold, warm = (await stats(client, recent=2))["recent"]
    # The first shares only "# todo: " with the test before it; the second all but the token scoring starts from.
    assert cold["reused_tokens"] < warm["reused_tokens"] == warm["prompt_tokens"] - 1


async def test_a_budget_of_one_token_is_closed_by_the_grammar(client: LanguageClient):
    r = await structured(client, {"prompt": "x = ", "schema": TODO, "maxTokens": 1})
    check(r, TODO)
    assert r["truncated"] is True


async def test_keys_that_are_not_identifiers_and_refs(client: LanguageClient):
    schema = {"$defs": {"pt": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}},
              "type": "object", "required": ["class", "not", "$id", "p"],
              "properties": {"class": {"type": "boolean"}, "not": {"enum": [1, "a", None]},
                             "$id": {"type": "string", "maxLength": 3}, "p": {"$ref": "#/$defs/pt"}}}
    r = await structured(client, {"prompt": "data = ", "schema": schema, "maxTokens": 40})
    assert set(check(r, schema)) == {"class", "not", "$id", "p"}


async def test_document_range_is_the_prompt(client: LanguageClient):
    uri = "file:///notes.md"
    text = "meeting notes\nAna will email the report on friday\n"
    open_doc(client, uri, text, language="markdown")
    schema = {"type": "object", "properties": {"who": {"type": "string", "maxLength": 10}}, "required": ["who"]}
    r = await structured(client, {"textDocument": {"uri": uri}, "schema": schema, "prompt": "json:",
                                  "range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}})
    check(r, schema)


@pytest.mark.parametrize("params", [
    {"prompt": "x", "schema": {"type": "nope"}},
    {"prompt": "x", "schema": "not an object"},
    {"schema": {"type": "integer"}},
    {"prompt": "x", "schema": {"type": "integer"}, "maxTokens": 0},
    {"prompt": "x", "schema": {"type": "integer"}, "maxTokens": "5"},
    {"prompt": 5, "schema": {"type": "integer"}},
    {"prompt": "x", "schema": {"type": "integer"}, "textDocument": {"uri": "file:///x.py"}},
])
async def test_bad_params_are_invalid_params(client: LanguageClient, params: dict):
    with pytest.raises(JsonRpcException) as err:
        await structured(client, params)
    assert err.value.code == -32602


# -- property: every schema of these shapes gives a valid value, for any budget -----------------------------
# Objects with required and optional properties, enums, bounded and unbounded integers and numbers, booleans,
# strings with min/maxLength, nullable strings, arrays with min/maxItems, anyOf, all nested.

def _bounded(kind: str, draw_lo: int | None, span: int | None) -> dict:
    s: dict = {"type": kind}
    if draw_lo is not None:
        s["minimum"] = draw_lo
        if span is not None:
            s["maximum"] = draw_lo + span
    return s


names = st.text("abcdefgh_", min_size=1, max_size=6)
leaves = st.one_of(
    st.just({"type": "boolean"}),
    st.builds(_bounded, st.just("integer"), st.none() | st.integers(-50, 50), st.none() | st.integers(0, 100)),
    st.builds(_bounded, st.just("number"), st.none() | st.integers(-5, 5), st.none() | st.integers(0, 10)),
    st.integers(0, 12).flatmap(lambda hi: st.integers(0, hi).map(
        lambda lo: {"type": "string", "minLength": lo, "maxLength": hi})),
    st.lists(st.one_of(names, st.integers(-3, 3), st.booleans()), min_size=1, max_size=4, unique=True)
    .map(lambda xs: {"enum": xs}),
)


def _array(items: dict, lo: int, extra: int) -> dict:
    return {"type": "array", "items": items, "minItems": lo, "maxItems": lo + extra}


def _object(props: dict, required_mask: list[bool]) -> dict:
    keys = list(props)
    return {"type": "object", "properties": props,
            "required": [k for k, r in zip(keys, required_mask) if r]}


schemas = st.recursive(leaves, lambda inner: st.one_of(
    st.builds(_array, inner, st.integers(0, 2), st.integers(0, 2)),
    st.builds(_object, st.dictionaries(names, inner, min_size=1, max_size=3),
              st.lists(st.booleans(), min_size=3, max_size=3)),
    st.lists(inner, min_size=2, max_size=3).map(lambda xs: {"anyOf": xs}),
    st.integers(0, 5).map(lambda n: {"type": ["string", "null"], "maxLength": n}),
), max_leaves=6)


@settings(max_examples=40, deadline=None)
@given(schema=schemas, budget=st.sampled_from([1, 4, 16, 48]), prompt=st.sampled_from(["", "x = ", "{\n"]))
async def test_output_always_validates(client: LanguageClient, schema: dict, budget: int, prompt: str):
    params = {"prompt": prompt or " ", "schema": schema, "maxTokens": budget}
    r = await structured(client, params)
    check(r, schema)


@pytest.mark.parametrize("schema", [{"type": "number", "exclusiveMaximum": 0}, {"type": "number", "maximum": -0.5}])
async def test_negative_number_closed_after_a_spent_budget(client: LanguageClient, schema: dict):
    """One token leaves '-'; the grammar has no negative zero, so closing with zeros ('-0', '-0.0...') never
    ends the number: closing must pick another digit."""
    r = await structured(client, {"prompt": "x = ", "schema": schema, "maxTokens": 1})
    check(r, schema)
    assert r["value"] < 0 and r["truncated"]


async def test_cancel_stops_decoding(client: LanguageClient):
    import asyncio

    from pygls.exceptions import JsonRpcRequestCancelled

    params = {"prompt": "x = ", "schema": {"type": "string", "minLength": 3000}, "maxTokens": 4096}
    fut = asyncio.ensure_future(client.protocol.send_request_async("laya/structured", params, msg_id="long-json"))
    await asyncio.sleep(0.3)
    client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="long-json"))
    with pytest.raises(JsonRpcRequestCancelled):
        await fut
    rec = (await stats(client, recent=1))["recent"][-1]
    assert rec["kind"] == "structured" and rec["status"] == "cancelled"
