"""Start-up to the first answer (issue 27.8): the model's load is queued before a front's stack is imported, the
first completion after `initialize` is answered, options that name another model load that one, and on a
non-fixed-shape engine warm-up and the token trie wait until the first answer (then run when idle).

Checked by what happened (modules imported when the load was queued, the engine's own state), never by time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import DEFAULT_MODEL, SERVER_CMD, TINY_MODEL
from httphelpers import HttpServer
from importhook import hook_env
from lspclient import LspClient, position_at

from laya_lsp.engine import CompletionRequest, Engine, EngineSettings, NameSet, NameSteer

URI = "file:///start/first.py"
TEXT = "def total(values):\n    result = 0\n    for v in values:\n        result += v\n    return "
# Prints, when the engine's model load is queued, which of the fronts' stacks are imported already.
PROBE = r'''
import sys


def _probe():
    stack = sorted(m for m in ("pygls", "lsprotocol", "fastapi", "uvicorn") if m in sys.modules)
    print(f"LAYA-PROBE load queued with {stack} imported", file=sys.stderr, flush=True)


PATCHES = {"laya_lsp.engine.facade": lambda module: wrap(module.Engine, "start_load", _probe)}
'''


async def test_the_model_load_is_queued_before_pygls_and_lsprotocol_are_imported(tmp_path: Path):
    c = await LspClient.spawn(SERVER_CMD, env=hook_env(tmp_path, PROBE), default_timeout=60)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        end = position_at(TEXT, len(TEXT))
        resp = await c.completion(URI, end["line"], end["character"])
        assert resp["result"]["items"], "the first completion after initialize has no candidates"
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()
    probes = [line for line in c.stderr.splitlines() if line.startswith("LAYA-PROBE")]
    assert probes == ["LAYA-PROBE load queued with [] imported"], c.stderr[-2000:]


def test_the_http_front_queues_the_model_load_before_fastapi_and_uvicorn_are_imported(tmp_path: Path):
    server = HttpServer(env={**os.environ, **hook_env(tmp_path, PROBE)})  # returns once it serves the model
    try:
        with server.client() as c:
            assert c.post("/v1/complete", json={"text": TEXT}).json()["status"] == "ok"
    finally:
        server.close()
    probes = [line.strip() for line in server.stderr if line.startswith("LAYA-PROBE")]
    assert probes == ["LAYA-PROBE load queued with [] imported"], "".join(server.stderr)[-2000:]


async def test_initialization_options_naming_another_model_load_that_model():
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)  # --model TINY_MODEL on the command line
    try:
        await c.initialize(initialization_options={"model": str(DEFAULT_MODEL)})
        await c.did_open(URI, TEXT)
        end = position_at(TEXT, len(TEXT))
        resp = await c.completion(URI, end["line"], end["character"])
        assert "result" in resp, resp
        stats = await c.call("laya/stats", {"recent": 0})
        assert stats["model"]["path"] == str(DEFAULT_MODEL), stats["model"]
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()


def test_warm_up_and_the_token_trie_wait_for_the_first_answer_then_run_when_idle():
    engine = Engine(EngineSettings(fixed_shapes=False))
    try:
        engine.start_load(str(TINY_MODEL)).result(60)  # as the servers load (bootstrap.begin)
        lm = engine.lm
        assert lm is not None
        engine.scheduler.call(lambda: None).result(10)  # the worker has looked for work since the load
        assert "warmup_ms" not in lm.timings and "token_trie_ms" not in lm.timings, "idle work ran before any answer"
        result = engine.complete(CompletionRequest("doc", TEXT, len(TEXT), debounce=False)).future.result(60)
        assert result.candidates
        for _ in range(1200):  # bounded: the worker is idle now, the pieces run one after the other
            if lm.token_trie_built:
                break
            time.sleep(0.05)
        assert lm.token_trie_built, "the token trie was never built while idle"
        assert lm.timings["warmup_ms"] > 0 and lm.timings["token_trie_ms"] > 0
        assert engine.decoder is not None
        step = getattr(engine.decoder, "step", None)
        if step is not None:  # a compiled step counts the traces warm-up made
            assert step.warm_traces > 0
    finally:
        engine.shutdown()


def test_a_steered_request_builds_the_token_trie_itself_when_idle_work_has_not():
    engine = Engine(EngineSettings(fixed_shapes=False))
    try:
        engine.start_load(str(TINY_MODEL)).result(60)
        lm = engine.lm
        assert lm is not None and not lm.token_trie_built
        steer = NameSteer(first=NameSet(frozenset({"result", "values"})))
        req = CompletionRequest("doc", TEXT, len(TEXT), debounce=False, names=lambda: steer)
        result = engine.complete(req).future.result(60)
        assert result.extra.get("steered") is True, result.extra
        assert lm.token_trie_built
    finally:
        engine.shutdown()


def test_a_blocking_load_for_tools_warms_up_before_it_returns():
    engine = Engine(EngineSettings(fixed_shapes=False))
    try:
        engine.load(str(TINY_MODEL))  # (bootstrap.start too): tools time requests from the first one on
        lm = engine.lm
        assert lm is not None and lm.timings["warmup_ms"] > 0 and lm.token_trie_built
    finally:
        engine.shutdown()
