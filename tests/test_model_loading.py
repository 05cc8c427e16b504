"""Requests that arrive before the model has loaded: they wait for the load (bounded) and are then answered; past
the bound they get a clear "model loading" answer. Never an error record in `laya/stats`.

The load is held back by an import hook (importhook.py): while a flag file exists the engine's model load waits,
and the orchestrator's wait bound is shortened so the bounded path is reached quickly.
"""

from __future__ import annotations

import asyncio
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
    module.MODEL_WAIT_S = 0.5


PATCHES = {"laya_lsp.engine.engine": lambda module: wrap(module, "load_model", _hold),
           "laya_lsp.orchestrator.waiting": _short_bound}
'''
URI = "file:///loading/early.py"
TEXT = "def early(values):\n    return "
# The embedded model: its text survives post-processing (on, as by default), so "answered" means candidates.
SETTINGS = {"speculative": False}


def _hook(tmp_path: Path) -> tuple[dict[str, str], Path]:
    flag = tmp_path / "HOLD"
    flag.write_text("on")
    return {**hook_env(tmp_path, HOLD_LOAD), "LAYA_HOLD_LOAD_FILE": str(flag)}, flag


async def test_lsp_requests_before_the_load_get_model_loading_then_answers(tmp_path: Path):
    env, flag = _hook(tmp_path)
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env=env, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)  # its warm-up waits for the model instead of failing
        end = position_at(TEXT, len(TEXT))
        resp = await c.completion(URI, end["line"], end["character"])
        assert resp["result"]["items"] == [], "answered with candidates although no model has loaded"
        stats = await c.call("laya/stats", {"recent": 50})
        assert stats["model"] is None
        assert [r["status"] for r in stats["recent"]] == ["loading"]
        assert stats["recent"][0]["error"] == "model loading"
        flag.unlink()  # the load goes on
        for _ in range(1200):
            if (await c.call("laya/stats", {"recent": 0}))["model"] is not None:
                break
            await asyncio.sleep(0.05)
        resp = await c.completion(URI, end["line"], end["character"])
        assert resp["result"]["items"], "no candidates once the model has loaded"
        stats = await c.call("laya/stats", {"recent": 50})
        assert "error" not in stats["summary"]["by_status"], stats["recent"]
        assert stats["recent"][-1]["kind"] == "completion" and stats["recent"][-1]["status"] == "ok"
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
