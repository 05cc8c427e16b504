"""Hostile input gets a clear error naming what is wrong, never an internal one, and the server keeps serving:
schemas too deep, too large, with too many properties or a `$ref` cycle, schemas no value can finish, bodies and
LSP messages over the size limits; and no error a client receives carries a traceback, a path or a repr.
Over LSP (stdio) and HTTP (a real uvicorn on 127.0.0.1), on the tests' tiny model."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
import pytest
from conftest import SERVER_CMD
from httphelpers import RAW, HttpServer
from importhook import hook_env
from lspclient import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, LspClient

from laya_lsp.decisions.schema_limits import MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_PROPERTIES

URI = "file:///hostile/a.py"
TEXT = "import os\n\ndef main():\n    return os.getcwd()\n"
MESSAGE_LIMIT = 256 * 1024  # the LSP server below runs with --max-message-bytes 256 KiB
INSIDES = ("Traceback", 'File "', ".py", "Error(", "laya_lsp", "site-packages", "0x")


def nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


def many_properties(n: int) -> dict:
    return {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)},
            "required": [f"p{i}" for i in range(n)]}


# (case, schema, words the error names)
REFUSED: list[tuple[str, Any, tuple[str, ...]]] = [
    ("250 objects deep", nested(250), ("deeper than", str(MAX_SCHEMA_DEPTH))),
    ("self reference", {"$ref": "#"}, ("$ref cycle",)),
    ("cycle through anyOf", {"anyOf": [{"$ref": "#/anyOf/1"}, {"allOf": [{"$ref": "#"}]}]}, ("$ref cycle",)),
    ("5,000 required properties", many_properties(5000), ("more than", str(MAX_SCHEMA_PROPERTIES))),
    ("too large", {"type": "string", "description": "x" * MAX_SCHEMA_BYTES}, ("bytes", str(MAX_SCHEMA_BYTES))),
    ("remote $ref", {"$ref": "https://example.com/schema.json"}, ("only local",)),
    ("dangling $ref", {"$ref": "#/$defs/missing"}, ("does not resolve",)),
    ("a value nested forever", {"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]},
     ("could be finished",)),
    ("contradictory bounds", {"type": "string", "minLength": 5, "maxLength": 2}, ("Unsatisfiable", "minLength")),
]
def nested_arrays(levels: int) -> dict:
    schema: dict = {"type": "integer"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema, "minItems": 1}
    return schema


ACCEPTED = [  # a recursive schema that describes a tree is fine, and so are schemas at the limits
    {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}, "maxItems": 2}}},
    # More than 8 levels to close by the grammar alone: the closer loop once took 8 equal closers for a loop.
    nested(MAX_SCHEMA_DEPTH // 2 - 1),
    nested_arrays(MAX_SCHEMA_DEPTH - 2),
    many_properties(8),
]


def no_insides(text: str) -> None:
    assert not any(w in text for w in INSIDES), f"an error shows the server's insides: {text[:500]}"


# -- LSP ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lsp() -> Any:
    loop = asyncio.new_event_loop()
    c = loop.run_until_complete(LspClient.spawn([*SERVER_CMD, "--max-message-bytes", str(MESSAGE_LIMIT)],
                                                default_timeout=60))
    loop.run_until_complete(c.initialize())
    loop.run_until_complete(c.did_open(URI, TEXT))
    yield loop, c
    loop.run_until_complete(c.close())
    loop.close()


async def _serves(c: LspClient) -> None:
    assert c.alive(), c.stderr[-2000:]
    resp = await c.completion(URI, 3, 11, timeout=60)
    assert "result" in resp, resp


@pytest.mark.parametrize(("case", "schema", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_lsp_refuses_schemas_with_invalid_params_naming_the_limit(lsp: Any, case: str, schema: Any,
                                                                  words: tuple[str, ...]):
    loop, c = lsp
    resp = loop.run_until_complete(c.request("laya/structured", {"prompt": "x", "schema": schema, "maxTokens": 16},
                                             timeout=120))
    assert "error" in resp, f"{case}: {json.dumps(resp)[:300]}"
    err = resp["error"]
    assert err["code"] == INVALID_PARAMS, err
    assert all(w in err["message"] for w in words), err
    assert "data" not in err or err["data"] is None, err
    no_insides(json.dumps(err))
    loop.run_until_complete(_serves(c))


@pytest.mark.parametrize("schema", ACCEPTED)
def test_lsp_answers_schemas_within_the_limits(lsp: Any, schema: dict):
    loop, c = lsp
    resp = loop.run_until_complete(c.request("laya/structured", {"prompt": "x", "schema": schema, "maxTokens": 24},
                                             timeout=120))
    assert "result" in resp, resp
    assert resp["result"]["value"] is not None


def test_lsp_message_over_the_size_limit_is_answered_and_dropped(lsp: Any):
    """The whole body is sent; the server never holds it, answers its request by id, and reads on."""
    loop, c = lsp

    async def case() -> None:
        rid = c.next_id()
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "laya/structured",
                           "params": {"prompt": "x" * (3 * MESSAGE_LIMIT), "schema": {}}}).encode()
        await c.write_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        resp = await c.wait_for_id(rid, 30)
        assert resp["error"]["code"] == INVALID_REQUEST, resp
        assert f"{len(body)} bytes" in resp["error"]["message"] and str(MESSAGE_LIMIT) in resp["error"]["message"]
        # A Content-Length far over the limit followed by fewer bytes and a next frame: that frame is read.
        rid2 = c.next_id()
        nxt = json.dumps({"jsonrpc": "2.0", "id": rid2, "method": "laya/stats", "params": {"recent": 0}}).encode()
        await c.write_raw(b"Content-Length: 999999999\r\n\r\n" + b'{"jsonrpc": "2.0", "id": "lost"'
                          + b"Content-Length: %d\r\n\r\n" % len(nxt) + nxt)
        assert "result" in await c.wait_for_id(rid2, 30)
        assert (await c.wait_for_id("lost", 30))["error"]["code"] == INVALID_REQUEST
        await _serves(c)

    loop.run_until_complete(case())


@pytest.mark.parametrize(("choices", "words"), [
    (["a", "b" * 70_000], "at most 4096"),  # the long fuzz run's finding: it held the worker for minutes
    ([f"c{i}" for i in range(65)], "at most 64"),
    ([{"id": "a", "description": "x" * 5000}, "b"], "at most 4096"),
])
def test_lsp_decide_bounds_its_choices(lsp: Any, choices: list, words: str):
    loop, c = lsp
    resp = loop.run_until_complete(c.request("laya/decide", {"context": "x = ", "choices": choices}, timeout=60))
    assert resp["error"]["code"] == INVALID_PARAMS and words in resp["error"]["message"], resp
    assert len(resp["error"]["message"]) < 300
    loop.run_until_complete(_serves(c))


def test_lsp_change_to_a_document_that_is_not_open_is_dropped(lsp: Any):
    """Fuzz finding: pygls raised KeyError for a didChange to a URI never opened (a failed notification each
    time). It is dropped: no error reaches the client, the document stays unknown, the server serves on."""
    loop, c = lsp

    async def case() -> None:
        n = len(c.received())
        uri = "file:///hostile/never-opened.py"
        await c.did_change(uri, 2, [{"range": {"start": {"line": 0, "character": 0},
                                               "end": {"line": 0, "character": 0}}, "text": "x"}])
        assert await c.call("laya/documentText", {"uri": uri}) is None
        errors = [
            r.msg
            for r in c.received()[n:]
            if isinstance(r.msg, dict)
            and r.msg.get("method") in ("window/logMessage", "window/showMessage")
            and r.msg["params"]["type"] == 1
        ]
        assert errors == []
        await _serves(c)

    loop.run_until_complete(case())


def test_lsp_failures_inside_handlers_carry_no_traceback(lsp: Any):
    """Errors raised inside handlers (here: an unknown command, a code action whose data is altered) come back
    as JSON-RPC errors with our message only; the full story is in the server's stderr."""
    loop, c = lsp

    async def case() -> None:
        resp = await c.request("workspace/executeCommand", {"command": "no.such.command", "arguments": []})
        assert resp["error"]["code"] == INVALID_PARAMS, resp
        no_insides(json.dumps(resp["error"]))
        for params in ({"title": "x", "data": {"laya": "fixSyntax", "uri": URI, "version": 1, "line": "x"}},
                       {"title": "x", "data": {"laya": "applyFix", "uri": URI, "version": 1, "start": [], "end": 1}}):
            resp = await c.request("codeAction/resolve", params)
            no_insides(json.dumps(resp.get("error")))
        for msg in c.received():
            if isinstance(msg.msg, dict) and "error" in msg.msg:
                no_insides(json.dumps(msg.msg["error"]))
            elif isinstance(msg.msg, dict) and msg.msg.get("method") in ("window/showMessage", "window/logMessage"):
                no_insides(msg.msg["params"]["message"])
        await _serves(c)

    loop.run_until_complete(case())


FAULTS = r'''
def _boom(*_args, **_kwargs):
    raise RuntimeError("injected fault in /secret/laya_lsp/place.py at 0xdeadbeef")


PATCHES = {
    "laya_lsp.decisions.structured": lambda module: setattr(module, "structured_with", _boom),
    "laya_lsp.memory": lambda module: setattr(module.MemoryProbe, "report", _boom),
    "laya_lsp.orchestrator.completion_flow": lambda module: setattr(module.CompletionFlow, "closed", _boom),
}
'''
REQUEST_FAILED = -32803


async def test_lsp_server_faults_are_answered_without_the_server_insides(tmp_path):
    """Faults injected into the model's work (RequestFailed), a request handler (InternalError) and a
    notification handler (a log line for the client): each message is ours, the traceback is on stderr only."""
    c = await LspClient.spawn(SERVER_CMD, env=hook_env(tmp_path, FAULTS), default_timeout=60)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        resp = await c.request("laya/structured", {"prompt": "x", "schema": {"type": "integer"}})
        assert resp["error"]["code"] == REQUEST_FAILED and "model failed" in resp["error"]["message"], resp
        resp = await c.request("laya/stats", {"recent": 0, "memory": True})
        assert resp["error"]["code"] == INTERNAL_ERROR and "laya/stats" in resp["error"]["message"], resp
        assert resp["error"].get("data") is None, resp
        await c.did_close(URI)
        logged = await c.wait_notification("window/logMessage", lambda m: m["params"]["type"] == 1)
        for err in (resp["error"], logged["params"]):
            no_insides(json.dumps(err))
        assert "injected fault" in c.stderr and "Traceback" in c.stderr  # the server's side keeps the story
        await c.did_open(URI, TEXT)
        await _serves(c)
    finally:
        await c.close()


# -- HTTP ---------------------------------------------------------------------------------------------------
BODY_LIMIT = 256 * 1024


@pytest.fixture(scope="module")
def http() -> Any:
    s = HttpServer("--max-body-bytes", str(BODY_LIMIT), settings=RAW)
    yield s
    s.close()


@pytest.mark.parametrize(("case", "schema", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_http_refuses_schemas_with_422_naming_the_limit(http: HttpServer, case: str, schema: Any,
                                                        words: tuple[str, ...]):
    with http.client() as c:
        r = c.post("/v1/structured", json={"prompt": "x", "schema": schema, "maxTokens": 16})
        assert r.status_code == 422, f"{case}: {r.status_code} {r.text[:300]}"
        detail = r.json()["detail"]
        assert all(w in json.dumps(detail) for w in words), detail
        no_insides(r.text)
        assert c.get("/healthz").status_code == 200


def test_http_body_over_the_limit_gets_413_with_a_message(http: HttpServer):
    """20 MB to /v1/complete (the limit here: 256 KiB): the client reads a 413 naming the limit, no reset."""
    big = b'{"text": "' + b"x" * (20 * 2**20) + b'"}'
    with http.client() as c:
        r = c.post("/v1/complete", content=big, headers={"content-type": "application/json"})
        assert r.status_code == 413, r.text[:200]
        assert str(BODY_LIMIT) in r.json()["detail"]

        def chunks() -> Any:  # no Content-Length: counted as it comes
            for _ in range(40):
                yield b" " * 16384

        r = c.post("/v1/complete", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413, r.text[:200]
        assert "more than" in r.json()["detail"]
    with http.client() as c:
        assert c.post("/v1/complete", json={"text": "def f():\n    return "}).status_code == 200


def test_http_errors_carry_no_traceback(http: HttpServer):
    """Every error body is JSON with a message; deep JSON, bad JSON and wrong types are 400/422."""
    bodies = [b"[" * 100_000 + b"]" * 100_000, b'{"text": ' * 3000 + b"1" + b"}" * 3000, b"\xff\xfe junk",
              json.dumps({"schema": {"type": "banana"}, "prompt": "x"}).encode()]
    with http.client() as c:
        for body in bodies:
            for path in ("/v1/complete", "/v1/structured", "/v1/decide"):
                r = c.post(path, content=body, headers={"content-type": "application/json"})
                assert r.status_code in (400, 422), (path, body[:40], r.status_code, r.text[:200])
                no_insides(r.text)


def test_http_connection_stays_usable_after_an_error(http: HttpServer):
    """One keep-alive connection: a refused schema, then a valid request on the same socket."""
    with httpx.Client(base_url=http.url, timeout=60) as c:
        assert c.post("/v1/structured", json={"prompt": "x", "schema": {"$ref": "#"}}).status_code == 422
        assert c.post("/v1/structured", json={"prompt": "x", "schema": {"type": "integer"},
                                              "maxTokens": 8}).status_code == 200


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
