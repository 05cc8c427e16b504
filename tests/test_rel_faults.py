"""Model faults: missing or corrupt weights, a missing or broken tokenizer, a path that does not exist, an unsupported
architecture, pickled weights only — each gives a window/showMessage error naming the problem, requests are
answered (empty), and the server keeps serving (a good model configured afterwards completes). Memory pressure: many
documents against a tiny cacheBudgetMB keep the cache bytes reported by laya/stats under the budget.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from conftest import SERVER_CMD, TINY_MODEL
from importhook import hook_env
from lspclient import LspClient, position_at
from metamodel import assert_conforms

URI = "file:///faults/a.py"
TEXT = "import os\n\n# read the settings and "
END = position_at(TEXT, len(TEXT))


def _copy(tmp: Path, name: str) -> Path:
    d = tmp / name
    shutil.copytree(TINY_MODEL, d)
    return d


@pytest.fixture(scope="module")
def broken_models(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Path, list[str]]]:
    """(case, model dir, words the error message must contain)."""
    tmp = tmp_path_factory.mktemp("models")
    cases = []
    d = _copy(tmp, "truncated")
    w = d / "model.safetensors"
    w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    cases.append(("truncated weights", d, ["truncated"]))
    d = _copy(tmp, "garbage-weights")
    (d / "model.safetensors").write_bytes(b"\x00\x01not a safetensors file" * 10)
    cases.append(("garbage weights", d, ["garbage-weights"]))
    d = _copy(tmp, "no-weights")
    (d / "model.safetensors").unlink()
    cases.append(("missing weights", d, [".safetensors"]))
    d = _copy(tmp, "no-tokenizer")
    (d / "tokenizer.json").unlink()
    cases.append(("missing tokenizer", d, ["tokenizer"]))
    d = _copy(tmp, "bad-tokenizer")
    (d / "tokenizer.json").write_text("{ this is not json")
    cases.append(("broken tokenizer", d, ["bad-tokenizer"]))
    d = _copy(tmp, "weird-arch")
    cfg = json.loads((d / "config.json").read_text())
    cfg["model_type"] = "no_such_architecture"
    (d / "config.json").write_text(json.dumps(cfg))
    cases.append(("unsupported architecture", d, ["no_such_architecture"]))
    d = _copy(tmp, "pickle-only")
    (d / "model.safetensors").rename(d / "pytorch_model.bin")
    cases.append(("pickled weights only", d, ["pytorch_model.bin", "never loaded"]))
    cases.append(("no such path", tmp / "does-not-exist", ["does-not-exist", "does not exist"]))
    return cases


async def _answers_empty(c: LspClient) -> None:
    for method in ("textDocument/completion", "textDocument/inlineCompletion"):
        params = {"textDocument": {"uri": URI}, "position": END, "context": {"triggerKind": 1}}
        if method.endswith("/completion"):
            del params["context"]
        resp = await c.request(method, params, timeout=30)
        assert "result" in resp, resp
        assert resp["result"] is None or resp["result"]["items"] == [], resp


async def test_model_faults_are_reported_and_the_server_keeps_serving(broken_models):
    first_case, first_dir, _words = broken_models[-1]  # start on a path that does not exist
    cmd = [sys.executable, "-m", "laya_lsp", "--model", str(first_dir)]
    c = await LspClient.spawn(cmd, default_timeout=60)
    report = []
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        seen = 0
        for case, path, words in [broken_models[-1], *broken_models[:-1]]:
            if case != first_case:
                await c.notify("workspace/didChangeConfiguration", {"settings": {"laya": {"model": str(path)}}})
            shown = await c.wait_notification(
                "window/showMessage", lambda m: m["params"]["type"] == 1 and "model" in m["params"]["message"],
                timeout=60, include_past=False) if case != first_case else await c.wait_notification(
                "window/showMessage", lambda m: m["params"]["type"] == 1, timeout=60)
            msg = shown["params"]["message"]
            assert all(w in msg for w in words), f"{case}: {msg!r} does not name {words}"
            await _answers_empty(c)
            stats = await c.call("laya/stats", {"recent": 0})
            assert stats["loadError"], f"{case}: laya/stats shows no loadError"
            seen += 1
            report.append(f"{case}: {msg[:110]}")
        # The server still serves: a good model configured now loads and completes.
        await c.notify("workspace/didChangeConfiguration", {"settings": {"laya": {"model": str(TINY_MODEL)}}})
        await c.wait_notification("window/logMessage", lambda m: "loaded" in m["params"]["message"], timeout=60,
                                  include_past=False)
        resp = await c.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": END})
        assert resp["result"]["items"], "the good model gives no completion after the faults"
        assert (await c.call("laya/stats", {"recent": 0}))["loadError"] is None
        print("\nmodel faults:\n  " + "\n  ".join(report))
        assert seen == len(broken_models)
    finally:
        await c.close()
    assert_conforms(c, "model faults")


async def test_cache_stays_under_a_tiny_budget():
    c = await LspClient.spawn(SERVER_CMD, default_timeout=60)
    try:
        await c.initialize(initialization_options={"cacheBudgetMB": 1, "warmUp": False, "speculative": False})
        peak, budget = 0, 0
        body = "".join(f"value_{i} = compute(value_{i - 1}, {i})  # step {i}\n" for i in range(1, 120))
        for n in range(10):
            uri = f"file:///faults/mem{n}.py"
            text = body + f"# document {n}: read the settings and "
            await c.did_open(uri, text)
            pos = position_at(text, len(text))
            resp = await c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": pos})
            assert "result" in resp
            stats = await c.call("laya/stats", {"recent": 1})
            budget = stats["cacheBudgetBytes"]
            total = stats["cacheBytesTotal"]
            assert total == sum(d["cacheBytes"] for d in stats["documents"])
            assert total <= budget, f"cache {total} bytes over the {budget} byte budget after document {n}"
            assert stats["recent"][-1]["status"] == "ok"
            peak = max(peak, total)
        assert stats["evictions"] > 0, "10 documents in 1 MB evicted nothing: the test did not press"
        print(f"\nmemory pressure: 10 documents, budget {budget} B, peak {peak} B, {stats['evictions']} evictions")
    finally:
        await c.close()
    assert_conforms(c, "memory pressure")


FAULT = r'''
import os


def _fail():
    if os.path.exists(os.environ["LAYA_FAULT_FILE"]):
        raise RuntimeError("injected fault inside generation")


PATCHES = {"laya_lsp.engine.completing": lambda module: wrap(module, "complete_steps", _fail)}
'''


async def test_exception_inside_generation(tmp_path: Path):
    """A fault inside the model call: the request is answered (empty), the user is told once, and the server
    serves normally when the fault goes away. The fault is injected with an import hook (importhook.py)."""
    flag = tmp_path / "FAULT"
    env = {**hook_env(tmp_path, FAULT), "LAYA_FAULT_FILE": str(flag)}
    c = await LspClient.spawn(SERVER_CMD, env=env, default_timeout=60)
    try:
        await c.initialize(initialization_options={"warmUp": False, "speculative": False, "typedThrough": False})
        await c.did_open(URI, TEXT)
        flag.write_text("on")
        for i in range(4):
            await c.did_change(URI, 2 + i, [{"range": {"start": END, "end": END}, "text": ""}])
            resp = await c.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": END})
            assert "result" in resp, f"a fault inside generation was answered with {resp.get('error')}"
            assert resp["result"]["items"] == []
        shown = [m for m in c.notifications if m["method"] == "window/showMessage" and m["params"]["type"] == 1]
        assert shown and "injected fault inside generation" in shown[0]["params"]["message"], shown
        assert len(shown) == 1, f"the same failure was shown {len(shown)} times"
        flag.unlink()
        resp = await c.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": END})
        assert resp["result"]["items"], "no completion once the fault is gone"
        print(
            f"\nfault inside generation: 4 requests answered empty, one showMessage: {shown[0]['params']['message']!r}"
        )
    finally:
        await c.close()
    assert_conforms(c, "fault inside generation")
