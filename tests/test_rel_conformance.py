"""A whole session through the raw client; every message the server sends is validated against the LSP 3.18
metaModel (responses, notifications, $/progress, server→client requests). Zero violations allowed."""

from __future__ import annotations

import json

import pytest
from conftest import SERVER_CMD
from lspclient import LspClient, rich_capabilities
from metamodel import SessionValidator

URI = "file:///work/conformance%20demo.py"
TEXT = ('import os\n\n\ndef greet(name):\n    """Say hello 👋 to 世界."""\n    return "hi " + name\n\n\n'
        '# 👋 call greet with the ')


def units(s: str, encoding: str) -> int:
    """Length of `s` in the negotiated position encoding's code units."""
    return len(s.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(s.encode(encoding))


@pytest.mark.parametrize("encodings", [["utf-16"], ["utf-8", "utf-16"]], ids=["utf16", "utf8"])
async def test_full_session_conforms(encodings):
    c = await LspClient.spawn(SERVER_CMD)
    try:
        resp = await c.request("initialize", {
            "processId": None, "rootUri": "file:///work", "capabilities": rich_capabilities(encodings),
            "clientInfo": {"name": "conformance", "version": "1"}, "locale": "en",
            "workspaceFolders": [{"uri": "file:///work", "name": "work"}], "trace": "off",
        })
        raw = next(r.raw for r in c.received() if isinstance(r.msg, dict) and r.msg.get("id") == resp["id"])
        assert b'"inlineCompletionProvider"' in raw, "inline completion is not advertised in the raw JSON"
        caps = resp["result"]["capabilities"]
        assert caps["positionEncoding"] == encodings[0]
        assert caps["textDocumentSync"]["change"] == 2
        await c.notify("initialized", {})
        await c.did_open(URI, TEXT)

        # Completions in a comment: the tiny random model's code is rejected by the syntax check, prose is not.
        enc = encodings[0]
        last, end = TEXT.count("\n"), units(TEXT.rsplit("\n", 1)[1], enc)
        first = await c.completion(URI, last, end)
        assert first["result"]["items"], "no completion items"
        inline = await c.inline_completion(URI, last, end)
        assert inline["result"]["items"]
        # Type "wor" and ask again (columns after the emoji differ between UTF-16 and UTF-8).
        await c.did_change(URI, 2, [{"range": {"start": {"line": last, "character": end},
                                               "end": {"line": last, "character": end}}, "text": "wor"}])
        second = await c.completion(URI, last, end + 3)
        assert "result" in second
        stats = await c.call("laya/stats", {"recent": 5})
        assert stats["recent"][-1]["status"] == "ok"
        doc = await c.call("laya/documentText", {"uri": URI})
        assert doc["text"] == TEXT + "wor" and doc["version"] == 2
        # Invalid settings: the server must say so with window/showMessage (validated like everything else).
        await c.notify("workspace/didChangeConfiguration", {"settings": {"laya": {"candidates": "many"}}})
        shown = await c.wait_notification("window/showMessage", timeout=10)
        assert shown["params"]["type"] == 1 and "candidates" in shown["params"]["message"]
        # A request after the settings change still works (the invalid settings were ignored).
        assert (await c.completion(URI, last, end + 3))["result"] is not None
        code = await c.shutdown_and_exit()
        assert code == 0
    finally:
        await c.close()

    report = SessionValidator().validate_log(c.log, c.frame_errors)
    methods = sorted({r.msg.get("method", "response") for r in c.received() if isinstance(r.msg, dict)})
    print(f"\nconformance[{encodings[0]}]: {report.validated} server messages validated "
          f"({json.dumps(report.by_kind)}; {', '.join(methods)}), {len(report.violations)} violations")
    assert report.violations == [], "\n".join(report.violations[:30])
    assert report.by_kind.get("notification", 0) >= 3  # progress begin/end + logMessage at least
    assert any(r.msg.get("method") == "window/workDoneProgress/create" for r in c.received())


@pytest.mark.parametrize("client_answer", ["never"])  # "error" (a refusal) takes the same path; add it to check
async def test_progress_create_unanswered_or_refused(client_answer):
    """A client that advertises workDoneProgress but never answers (or refuses) window/workDoneProgress/create
    still gets a model and completions; any $/progress sent is for a token the client accepted."""
    c = await LspClient.spawn(SERVER_CMD, default_timeout=30)
    dispatch = c._dispatch

    async def hold_create(msg):
        if isinstance(msg, dict) and msg.get("method") == "window/workDoneProgress/create":
            c.server_requests.append(msg)
            if client_answer == "error":
                await c.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32603, "message": "no"}})
            return
        await dispatch(msg)

    c._dispatch = hold_create  # type: ignore[method-assign]
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        last, end = TEXT.count("\n"), units(TEXT.rsplit("\n", 1)[1], "utf-16")
        resp = await c.completion(URI, last, end, timeout=30)
        assert resp["result"]["items"], "no completion while progress creation is pending/refused"
        assert not [m for m in c.notifications if m["method"] == "$/progress"], "progress for an unaccepted token"
    finally:
        await c.close()
