"""Bad input never crashes or hangs the server: malformed frames, invalid JSON-RPC, wrong param types, positions
past the end, unknown URIs, a 10 MB document, binary junk, deep nesting, the lifecycle — each answered with its
JSON-RPC error code where a response is due, and a valid request works afterwards.

The hypothesis fuzz test runs LAYA_FUZZ_CASES cases (default 120); run it longer by hand, e.g.
`LAYA_FUZZ_CASES=5000 .venv/bin/python -m pytest tests/test_rel_badinput.py -k fuzz -s`.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from conftest import SERVER_CMD
from hypothesis import given, settings
from hypothesis import strategies as st
from lspclient import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    SERVER_NOT_INITIALIZED,
    LspClient,
)
from metamodel import assert_conforms

URI = "file:///work/bad%20input.py"
TEXT = "import os\n\n# read the config file and return \ndef main():\n    return os.getcwd()\n"
COMMENT = (2, len("# read the config file and return "))
FUZZ_CASES = int(os.environ.get("LAYA_FUZZ_CASES", "120"))


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def req(rid: Any, method: str, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def completion_params(line: int = COMMENT[0], character: int = COMMENT[1], uri: str = URI) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


class Session:
    """One server for the whole module, driven from a private event loop (hypothesis tests are synchronous)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.c: LspClient = self.run(LspClient.spawn(SERVER_CMD, default_timeout=60))
        self.run(self.c.initialize())
        self.run(self.c.did_open(URI, TEXT))

    def run(self, aw: Any) -> Any:
        return self.loop.run_until_complete(aw)

    async def expect_error(self, rid: Any, code: int, timeout: float = 10) -> dict:
        resp = await self.wait_id(rid, timeout)
        assert "error" in resp, f"expected error {code}, got {json.dumps(resp)[:300]}"
        assert resp["error"]["code"] == code, resp
        return resp

    async def wait_id(self, rid: Any, timeout: float = 10) -> dict:
        """The response to a request written raw (so the client did not register it)."""
        return await self.c.wait_for_id(rid, timeout)

    async def null_errors_after(self, n_before: int) -> list[dict]:
        await self.ping()
        return [r.msg for r in self.c.received()[n_before:]
                if isinstance(r.msg, dict) and r.msg.get("id") is None and "error" in r.msg]

    async def ping(self, timeout: float = 10) -> None:
        """The server still answers (cheaply), and its process is alive."""
        assert self.c.alive(), f"server died: {self.c.stderr[-2000:]}"
        doc = await self.c.call("laya/documentText", {"uri": "file:///not/open.py"}, timeout)
        assert doc is None

    async def serves_completion(self) -> None:
        await self.c.did_open(URI, TEXT, version=1)
        resp = await self.c.completion(URI, *COMMENT, timeout=30)
        assert "result" in resp and resp["result"]["items"], resp


@pytest.fixture(scope="module")
def s():
    sess = Session()
    yield sess
    sess.run(sess.c.close())
    sess.loop.close()
    assert_conforms(sess.c, "bad-input session (incl. fuzz)")


# -- malformed frames and JSON --------------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    b"{not json", b'{"jsonrpc": "2.0", "id": 1, "method": ', b"\xff\xfe\x00\x01binary junk\x80",
    b"[" * 100_000 + b"]" * 100_000, b'{"a": ' * 5000 + b"1" + b"}" * 5000, b"", b"   ",
], ids=["truncated", "cut-request", "binary", "deep-array", "deep-object", "empty", "spaces"])
def test_parse_errors(s: Session, body: bytes):
    async def case():
        n = len(s.c.received())
        await s.c.write_raw(frame(body))
        errs = await s.null_errors_after(n)
        if body.strip():
            assert [e["error"]["code"] for e in errs] == [PARSE_ERROR], errs
    s.run(case())


@pytest.mark.parametrize("msg, code", [
    ([1, 2, 3], INVALID_REQUEST),
    ([{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}], INVALID_REQUEST),  # batches are not LSP
    (42, INVALID_REQUEST),
    ("textDocument/completion", INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 1.5, "method": "laya/stats"}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": True, "method": "laya/stats"}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "laya/stats"}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": None, "method": "laya/stats"}, INVALID_REQUEST),
    ({"jsonrpc": "2.0"}, INVALID_REQUEST),
], ids=["array", "batch", "number", "string", "float-id", "bool-id", "object-id", "null-id", "empty"])
def test_invalid_requests_without_usable_id(s: Session, msg: Any, code: int):
    async def case():
        n = len(s.c.received())
        await s.c.write_raw(frame(json.dumps(msg).encode()))
        errs = await s.null_errors_after(n)
        assert [e["error"]["code"] for e in errs] == [code], errs
    s.run(case())


@pytest.mark.parametrize("make, code", [
    (lambda i: {"id": i, "method": "laya/stats"}, INVALID_REQUEST),  # no jsonrpc
    (lambda i: {"jsonrpc": "1.0", "id": i, "method": "laya/stats"}, INVALID_REQUEST),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": 17}, INVALID_REQUEST),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "params": "recent"}, INVALID_REQUEST),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "no/suchMethod", "params": {}}, METHOD_NOT_FOUND),
    (lambda i: {"jsonrpc": "2.0", "id": str(i), "method": "$/unknownRequest"}, METHOD_NOT_FOUND),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": URI}, "position": {"line": "2", "character": 0}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": URI}, "position": {"line": 1.5, "character": 0}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": URI}, "position": {"line": 2**31, "character": 0}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion",
                "params": {"textDocument": {"uri": URI}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/completion", "params": [1, 2]}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/inlineCompletion",
                "params": {**completion_params(), "context": {"triggerKind": "auto"}}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "initialize", "params": {}}, INVALID_REQUEST),  # twice
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "textDocument/didClose",  # a notification sent with an id
                "params": {"textDocument": {"uri": "file:///never/opened.py"}}}, INVALID_REQUEST),
    # Found by the fuzz test: pygls took a request with an "error" key for a response and never answered it.
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "error": None}, INVALID_REQUEST),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "result": {}}, INVALID_REQUEST),
    # Custom requests' params are typed (lsp/params.py) like the standard ones.
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "params": {"recent": "10"}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "params": {"recent": -1}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/stats", "params": {"memory": 1}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/documentText", "params": {}}, INVALID_PARAMS),
    (lambda i: {"jsonrpc": "2.0", "id": i, "method": "laya/documentText", "params": {"uri": 5}}, INVALID_PARAMS),
], ids=["no-jsonrpc", "jsonrpc-1.0", "method-int", "params-string", "unknown-method", "unknown-$",
        "uri-int", "line-str", "line-float", "line-negative", "line-huge", "no-position", "params-array",
        "trigger-str", "initialize-again", "notification-with-id", "request-with-error", "request-with-result",
        "stats-recent-str", "stats-recent-negative", "stats-memory-int", "text-no-uri", "text-uri-int"])
def test_error_codes_with_id(s: Session, make: Any, code: int):
    async def case():
        msg = make(s.c.next_id())
        await s.c.write_raw(frame(json.dumps(msg).encode()))
        await s.expect_error(msg["id"], code)
        await s.ping()
    s.run(case())


@pytest.mark.parametrize("line, character, uri", [
    (999, 0, URI), (2, 999, URI), (5, 1, URI), (2**31 - 1, 2**31 - 1, URI),
    (0, 0, "file:///never/opened.py"), (0, 0, "untitled:Untitled-1"), (0, 0, "not a uri"),
])
def test_positions_past_end_and_unknown_uris_answer_empty(s: Session, line: int, character: int, uri: str):
    async def case():
        for method in ("textDocument/completion", "textDocument/inlineCompletion"):
            params = completion_params(line, character, uri)
            if method.endswith("inlineCompletion"):
                params["context"] = {"triggerKind": 1}
            resp = await s.c.request(method, params)
            assert "result" in resp, resp
            assert resp["result"] is None or resp["result"]["items"] == []
    s.run(case())


def test_notifications_with_bad_params_are_dropped(s: Session):
    async def case():
        await s.c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": "x"}, "contentChanges": 3})
        await s.c.notify("textDocument/didChange", {"textDocument": {"uri": "file:///never/opened.py", "version": 2},
                                                    "contentChanges": [{"text": "x"}]})
        await s.c.notify("textDocument/didOpen", {"textDocument": {"uri": 1}})
        await s.c.notify("no/suchNotification", {"a": 1})
        await s.c.notify("$/cancelRequest", {"id": 987654})  # unknown id
        await s.c.notify("$/cancelRequest", {"id": [1]})
        await s.c.notify("laya/focus", {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}})
        await s.c.notify("laya/focus", {"textDocument": {"uri": URI}})
        await s.c.notify("laya/focus", [1, 2])
        await s.ping()
        doc = await s.c.call("laya/documentText", {"uri": URI})
        assert doc["text"] == TEXT  # the malformed didChange did not touch it
        await s.serves_completion()
    s.run(case())


def test_custom_requests_name_the_bad_field(s: Session):
    async def case():
        resp = await s.c.request("laya/stats", {"recent": "10", "reset": True})
        assert resp["error"]["code"] == INVALID_PARAMS and "recent" in resp["error"]["message"], resp
        resp = await s.c.request("laya/documentText", {"uri": URI, "checkTree": "yes"})
        assert resp["error"]["code"] == INVALID_PARAMS and "checkTree" in resp["error"]["message"], resp
        assert (await s.c.call("laya/stats", None))["summary"]["requests"] >= 0  # no params: the defaults
    s.run(case())


# -- framing ---------------------------------------------------------------------------------------------
def test_wrong_content_length_and_junk_between_frames(s: Session):
    async def case():
        # Too short: the body is cut (ParseError), the rest is junk; the next frame is still read.
        rid = s.c.next_id()
        body = req(rid, "laya/stats", {"recent": 0})
        n = len(s.c.received())
        await s.c.write_raw(b"Content-Length: %d\r\n\r\n" % (len(body) - 7) + body)
        assert [e["error"]["code"] for e in await s.null_errors_after(n)] == [PARSE_ERROR]
        # Too long, followed by another frame: both requests are answered.
        a, b = s.c.next_id(), s.c.next_id()
        ba, bb = req(a, "laya/stats", {"recent": 0}), req(b, "laya/stats", {"recent": 0})
        await s.c.write_raw(b"Content-Length: %d\r\n\r\n" % (len(ba) + 40) + ba + frame(bb))
        assert "result" in await s.wait_id(a) and "result" in await s.wait_id(b)
        # Too long with nothing after it: answered once the server sees no more bytes are coming.
        rid = s.c.next_id()
        body = req(rid, "laya/stats", {"recent": 0})
        await s.c.write_raw(b"Content-Length: %d\r\n\r\n" % (len(body) + 1000) + body)
        assert "result" in await s.wait_id(rid, timeout=10)  # generous: only a server that never answers fails
        # Junk with and without CRLFs, bad headers, then a valid frame.
        for junk in [b"garbage\r\n\r\n", b"\x00\xff" * 100, b"Content-Type: x\r\n\r\n", b"Content-Length: -5\r\n\r\n",
                     b"Content-Length: abc\r\n\r\n", b"Content-Length: 99999999999\r\n\r\n", b"\r\n" * 10,
                     b"content-length:   12  \r\n\r\n" + b'{"x": "y"}  ']:
            await s.c.write_raw(junk)
            await s.ping()
        # Headers in another order, lower case, with Content-Type and a BOM-free UTF-8 body.
        rid = s.c.next_id()
        body = req(rid, "laya/documentText", {"uri": URI})
        await s.c.write_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: %d\r\n\r\n"
                            % len(body) + body)
        assert (await s.wait_id(rid))["result"]["text"] == TEXT
        # A request split into many small writes.
        rid = s.c.next_id()
        data = frame(req(rid, "laya/stats", {"recent": 0}))
        for i in range(0, len(data), 7):
            await s.c.write_raw(data[i: i + 7])
            await asyncio.sleep(0.002)
        assert "result" in await s.wait_id(rid)
        await s.serves_completion()
    s.run(case())


HUGE_LINE = "x = compute_value(alpha, beta, gamma)  # 😀 comment 世界\n"
HUGE = HUGE_LINE * (10 * 2**20 // len(HUGE_LINE.encode()) + 1)


def test_ten_megabyte_document(s: Session):
    """A 10 MB document is opened, edited, read back and completed near its start (each step's timeout only
    catches a hang; its speed is the benchmarks' business)."""
    async def case():
        uri = "file:///work/huge.py"
        assert len(HUGE.encode()) >= 10 * 2**20
        await s.c.did_open(uri, HUGE)
        await s.c.did_change(uri, 2, [{"range": {"start": {"line": 2, "character": 0},
                                                 "end": {"line": 2, "character": 0}}, "text": "# the start "}])
        resp = await s.c.completion(uri, 2, len("# the start "), timeout=60)
        assert "result" in resp, resp
        n_lines = HUGE.count("\n")
        await s.c.did_change(uri, 3, [{"range": {"start": {"line": n_lines, "character": 0},
                                                 "end": {"line": n_lines, "character": 0}}, "text": "# the end"}])
        doc = await s.c.call("laya/documentText", {"uri": uri}, timeout=60)
        lines = HUGE.splitlines(keepends=True)
        assert doc["text"] == "".join(lines[:2]) + "# the start " + "".join(lines[2:]) + "# the end"
        await s.c.did_close(uri)
        await s.serves_completion()
    s.run(case())


async def test_ten_megabyte_document_completion_at_the_end():
    """At the end of a 10 MB document the prompt is the context window's worth of tokens, not the document (the
    timeout only catches a hang: on a busy 2-core machine parsing 10 MB alone takes seconds)."""
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)
    try:
        await c.initialize(initialization_options={"warmUp": False, "speculative": False, "contextTokens": 1024})
        await c.did_open("file:///work/huge-end.py", HUGE)
        n_lines = HUGE.count("\n")
        resp = await c.completion("file:///work/huge-end.py", n_lines, 0, timeout=120)
        assert "result" in resp
        rec = (await c.call("laya/stats", {"recent": 1}))["recent"][-1]
        assert 0 < rec["prompt_tokens"] <= 1024, rec
    finally:
        if c.proc is not None and c.proc.returncode is None:
            c.proc.kill()  # it may still be tokenizing: do not wait for a polite exit
        await c.close()


# -- fuzz ------------------------------------------------------------------------------------------------
METHODS = ["textDocument/completion", "textDocument/inlineCompletion", "laya/stats", "laya/documentText",
           "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "$/cancelRequest",
           "$/setTrace", "workspace/didChangeWorkspaceFolders", "textDocument/hover", "foo", "", "初期化"]
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.floats(allow_nan=False),
                      st.text(max_size=30))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=20)
position = st.fixed_dictionaries({"line": st.one_of(st.integers(-2, 10), json_leaf),
                                  "character": st.one_of(st.integers(-2, 80), json_leaf)})
fuzz_params = st.one_of(
    json_value,
    st.fixed_dictionaries({"textDocument": st.fixed_dictionaries({"uri": st.sampled_from([URI, "file:///x.py", 3])}),
                           "position": position}),
    st.fixed_dictionaries({"textDocument": st.fixed_dictionaries({
        "uri": st.sampled_from(["file:///fuzz.py", URI]), "version": st.one_of(st.integers(-1, 5), json_leaf),
        "languageId": st.sampled_from(["python", "", 3]), "text": st.one_of(st.text(max_size=200), json_leaf)}),
        "contentChanges": st.lists(st.fixed_dictionaries({"text": st.text(max_size=20)}, optional={
            "range": st.fixed_dictionaries({"start": position, "end": position})}), max_size=3)}),
)
fuzz_request = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "id": st.sampled_from(["int", "str"]),
                                      "method": st.sampled_from(METHODS), "params": fuzz_params})
fuzz_notification = st.fixed_dictionaries({"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS),
                                           "params": fuzz_params})
fuzz_wild = st.fixed_dictionaries(
    {},
    optional={"jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]),
              "id": st.sampled_from(["int", "str", "null", "float", "list"]),
              "method": st.one_of(st.sampled_from(METHODS), st.text(max_size=20), st.integers()),
              "params": fuzz_params, "result": json_value, "error": json_value},
)
fuzz_message = st.one_of(fuzz_request, fuzz_request, fuzz_request, fuzz_notification, fuzz_wild)
fuzz_case = st.one_of(
    fuzz_message.map(lambda m: ("message", m)),
    fuzz_message.map(lambda m: ("message", m)),
    st.binary(max_size=300).map(lambda b: ("body", b)),
    st.tuples(fuzz_message, st.integers(-20, 20)).map(lambda t: ("length", t)),
    st.binary(max_size=60).map(lambda b: ("junk", b)),
)
_fuzz_stats = {"cases": 0, "requests": 0, "answered": 0, "codes": {}}


@settings(max_examples=FUZZ_CASES, deadline=None)
@given(case=fuzz_case)
def test_fuzz_never_crashes_or_hangs(s: Session, case: tuple[str, Any]):
    kind, value = case

    async def run() -> None:
        rid: Any = None
        if kind in ("message", "length"):
            msg = dict(value[0] if kind == "length" else value)
            if msg.get("method") in ("exit", "shutdown", "initialize"):
                msg["method"] = "laya/stats"
            id_kind = msg.pop("id", None)
            if id_kind is not None:
                n = s.c.next_id()
                msg["id"] = {"int": n, "str": f"fuzz-{n}", "null": None, "float": n + 0.5, "list": [n]}[id_kind]
                rid = msg["id"] if id_kind in ("int", "str") else None
            body = json.dumps(msg).encode()
            if kind == "length":
                delta = value[1]
                await s.c.write_raw(b"Content-Length: %d\r\n\r\n" % max(0, len(body) + delta) + body)
                rid = rid if delta == 0 else None
            else:
                await s.c.write_raw(frame(body))
            is_request = rid is not None and isinstance(msg.get("method"), str) and "method" in msg
            if is_request and msg.get("jsonrpc") == "2.0":
                _fuzz_stats["requests"] += 1
                resp = await s.wait_id(rid, timeout=10)
                _fuzz_stats["answered"] += 1
                code = resp.get("error", {}).get("code", "result")
                _fuzz_stats["codes"][code] = _fuzz_stats["codes"].get(code, 0) + 1
                allowed = {"result", PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, REQUEST_CANCELLED}
                assert code in allowed, f"{json.dumps(msg)[:300]} -> {json.dumps(resp)[:300]}"
        elif kind == "body":
            await s.c.write_raw(frame(value))
        else:
            await s.c.write_raw(value + b"\r\n\r\n")
        await s.ping(timeout=20)
        _fuzz_stats["cases"] += 1

    s.run(run())


def test_fuzz_summary_and_still_serving(s: Session):
    """Runs after the fuzz test (file order): a real completion still works; every id got one response."""
    s.run(s.serves_completion())
    dup = {rid: len(rs) for rid, rs in s.c._responses.items() if rid is not None and len(rs) > 1}
    assert dup == {}, f"ids answered more than once: {dup}"
    print(f"\nfuzz: {_fuzz_stats['cases']} cases, {_fuzz_stats['requests']} requests, "
          f"{_fuzz_stats['answered']} answered, codes {_fuzz_stats['codes']}, 0 crashes")


# -- lifecycle (fresh servers) --------------------------------------------------------------------------
async def test_before_initialize_and_after_shutdown():
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)
    try:
        resp = await c.completion(URI, 0, 0)
        assert resp["error"]["code"] == SERVER_NOT_INITIALIZED
        resp = await c.request("laya/stats", {})
        assert resp["error"]["code"] == SERVER_NOT_INITIALIZED
        await c.did_open(URI, TEXT)  # dropped: notifications before initialize are ignored
        resp = await c.request("initialize", {"processId": "me", "capabilities": {}})  # bad params: retry allowed
        assert resp["error"]["code"] == INVALID_PARAMS
        await c.initialize()
        assert await c.call("laya/documentText", {"uri": URI}) is None
        await c.did_open(URI, TEXT)
        assert (await c.completion(URI, *COMMENT))["result"]["items"]
        assert (await c.request("shutdown"))["result"] is None
        for method, params in [("textDocument/completion", completion_params()), ("laya/stats", {}),
                               ("shutdown", None), ("initialize", {"capabilities": {}})]:
            resp = await c.request(method, params)
            assert resp.get("error", {}).get("code") == INVALID_REQUEST, resp
        await c.did_change(URI, 2, [{"text": "after shutdown"}])  # dropped, no crash
        await c.notify("exit")
        assert await c.wait_exit(15) == 0
    finally:
        await c.close()


async def test_exit_without_shutdown_exits_1_and_eof_exits():
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)
    try:
        await c.initialize()
        await c.notify("exit")
        assert await c.wait_exit(15) == 1
    finally:
        await c.close()
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)
    try:
        await c.initialize()
        c._writer.close()  # the editor died: end of input
        assert await c.wait_exit(15) == 0
    finally:
        await c.close()
