"""Requests that arrive before the model has loaded. An editor's wait for the load, shown as $/progress, until
the model answers (or the client cancels); an HTTP request waits a bounded time, then gets a clear "model
loading" answer (503). Never an error record in `laya/stats`.

The load is held back by an import hook (importhook.py): while a flag file exists the engine's model load waits,
and the HTTP wait bound is 0, so a bounded wait would end at once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from importhook import hook_env
from lspclient import LspClient, position_at

HOLD_LOAD = r'''
import os, time


def _hold():
    while os.path.exists(os.environ["LAYA_HOLD_LOAD_FILE"]):
        time.sleep(0.02)


def _short_bound(module):
    module.MODEL_WAIT_S = 0.0


PATCHES = {"laya_lsp.engine.facade": lambda module: wrap(module, "load_model", _hold),
           "laya_lsp.orchestrator.waiting": _short_bound}
'''
URI = "file:///loading/early.py"
TEXT = "def early(values):\n    return "
# The embedded model: its text survives post-processing (on, as by default), so "answered" means candidates.
SETTINGS = {"speculative": False, "pause": {"model": "off"}}  # the keystroke model loads (the pause tier: elsewhere)


def _hook(tmp_path: Path) -> tuple[dict[str, str], Path]:
    flag = tmp_path / "HOLD"
    flag.write_text("on")
    return {**hook_env(tmp_path, HOLD_LOAD), "LAYA_HOLD_LOAD_FILE": str(flag)}, flag


def _progress(c: LspClient, token: object) -> list[dict]:
    """The $/progress values the server sent on `token`, in order."""
    return [m["params"]["value"] for m in c.notifications
            if m["method"] == "$/progress" and m["params"]["token"] == token]


async def test_lsp_requests_during_the_load_wait_visibly_then_get_the_real_answer(tmp_path: Path):
    """An editor's request that comes while the model loads (on a GPU's first start: kernels compile) waits for
    it, however long, shown as $/progress, and is answered by the model; `$/cancelRequest` ends a wait. The
    bound an HTTP request gets is 0 here (the hook): an answer before the load would come at once."""
    env, flag = _hook(tmp_path)
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env=env, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)  # a client that takes window/workDoneProgress
        await c.did_open(URI, TEXT)  # its warm-up waits for the model instead of failing
        end = position_at(TEXT, len(TEXT))
        where = {"textDocument": {"uri": URI}, "position": end}
        _shown, shown_reply = await c.send_request("textDocument/completion", {**where, "workDoneToken": "wait-1"})
        _plain, plain_reply = await c.send_request("textDocument/completion", where)
        gone, gone_reply = await c.send_request("laya/decide", {"context": "x = ", "choices": ["1", "2"]})
        begin = await c.wait_notification("$/progress", lambda m: m["params"]["token"] == "wait-1")
        assert (
            begin["params"]["value"]["kind"] == "begin" and "waiting for the model" in begin["params"]["value"]["title"]
        )
        load = await c.wait_notification(
            "$/progress", lambda m: m["params"]["value"].get("title") == "laya: loading model"
        )
        created = [r["params"]["token"] for r in c.server_requests if r["method"] == "window/workDoneProgress/create"]
        assert created == [load["params"]["token"]], "the load's progress token was not created first"
        await c.cancel(gone)
        cancelled = await c.wait_response(gone_reply)
        assert cancelled["error"]["code"] == -32800, cancelled  # RequestCancelled: the client ended the wait
        stats = await c.call("laya/stats", {"recent": 50})  # answered while the requests above still wait
        assert stats["model"] is None and stats["recent"] == [], "a request was answered before the model loaded"
        assert not shown_reply.done() and not plain_reply.done()
        flag.unlink()  # the load goes on
        for reply in (shown_reply, plain_reply):
            resp = await c.wait_response(reply)
            assert resp["result"]["items"], "no candidates once the model has loaded"
        steps = _progress(c, "wait-1")
        assert [v["kind"] for v in steps[:1] + steps[-1:]] == ["begin", "end"] and steps[-1]["message"] == "model ready"
        assert any(v["kind"] == "report" for v in steps), "the load's steps were not shown on the request's token"
        assert _progress(c, created[0])[-1] == {"kind": "end", "message": "ready"}
        stats = await c.call("laya/stats", {"recent": 50})
        assert {r["status"] for r in stats["recent"] if r["kind"] == "completion"} == {"ok"}, stats["recent"]
        assert any(r["kind"] == "warm-up" for r in stats["recent"]), "the open's warm-up never ran"
    finally:
        await c.close()


def test_http_requests_before_the_load_get_503_then_answers(tmp_path: Path):
    env, flag = _hook(tmp_path)
    cmd = [sys.executable, "-m", "laya_lsp", "http", "--port", "0", "--model", str(DEFAULT_MODEL),
           "--settings", json.dumps(SETTINGS)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **env})
    lines: list[str] = []
    listening = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "listening on http://" in line:
                listening.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        assert listening.wait(60), "".join(lines)
        found = next(re.search(r"http://[\d.]+:\d+", x) for x in lines if "listening" in x)
        assert found is not None
        with httpx.Client(base_url=found.group(0), timeout=60) as h:
            assert h.get("/healthz").json()["status"] == "loading"
            r = h.post("/v1/complete", json={"text": TEXT, "language": "python"})
            assert r.status_code == 503 and "model loading" in r.json()["detail"], r.text
            assert int(r.headers["retry-after"]) >= 1
            flag.unlink()
            t0 = time.monotonic()
            while h.get("/healthz").json()["status"] == "loading":
                assert time.monotonic() - t0 < 60, "the model never finished loading"
                time.sleep(0.05)
            r = h.post("/v1/complete", json={"text": TEXT, "language": "python"})
            assert r.status_code == 200 and r.json()["candidates"], r.text
            st = h.get("/v1/stats", params={"recent": 50}).json()
            assert [x["status"] for x in st["recent"]] == ["loading", "ok"]
            assert "error" not in st["summary"]["by_status"]
    finally:
        proc.terminate()
        proc.wait(10)
