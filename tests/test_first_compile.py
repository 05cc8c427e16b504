"""The first start while MLX compiles (first_compile.py): a server answers without compiled code while a
`laya-lsp warm-up` process of its own compiles it, then runs compiled (CPU) or moves to the GPU; one compile per
machine at a time; a failed compile leaves the server as it was, said to the user; a later start finds the
compile's mark and runs compiled (on the GPU) at once.

The CPU case is real: a copy of the embedded model with its own config.json has no mark yet, whatever this
machine compiled before. This machine has no GPU, so for the GPU case an import hook (importhook.py) makes laya
see MLX's CUDA backend: `installed_backend` says "cuda" and `use_device("gpu")` keeps MLX on the CPU but reports
"cuda", in the server and in the warm-up process it starts (the hook travels in the environment); its mark goes
to the kernel cache folder under a temporary XDG_CACHE_HOME. While a flag file exists the warm-up's compile is
held back, so a test sees the server answer before it ends.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from importhook import hook_env
from lspclient import LspClient, position_at

AS_CUDA = r'''
import os, time


def _as_cuda(module):
    module.installed_backend = lambda: "cuda"

    def use_device(where):
        import mlx.core as mx

        mx.set_default_device(mx.cpu)
        return "cuda" if where == "gpu" else "cpu"

    module.use_device = use_device


def _compile():
    while os.path.exists(os.environ["LAYA_HOLD_COMPILE_FILE"]):
        time.sleep(0.05)
    if os.environ.get("LAYA_FAIL_COMPILE"):
        raise RuntimeError("NVRTC could not compile a kernel (injected)")


PATCHES = {"laya_lsp.device": _as_cuda, "laya_lsp.first_start": lambda module: wrap(module, "warm_up", _compile)}
'''
HOLD_ONLY = AS_CUDA.replace('"laya_lsp.device": _as_cuda, ', "")
URI = "file:///bridge/first.py"
TEXT = "def mean(values):\n    total = sum(values)\n    return "
SETTINGS = {"speculative": False, "pause": {"model": "off"}}  # the keystroke model answers
PAUSE_SHIPPED = int((DEFAULT_MODEL.parent / "pause" / "config.json").exists())


def _env(tmp_path: Path, **extra: str) -> tuple[dict[str, str], Path]:
    flag = tmp_path / "HOLD"
    flag.write_text("on")
    env = {**hook_env(tmp_path, AS_CUDA), "LAYA_HOLD_COMPILE_FILE": str(flag),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), **extra}
    return env, flag


def _marks(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("laya-compiled/*.json"))


async def _complete(c: LspClient) -> list[dict]:
    where = {"textDocument": {"uri": URI}, "position": position_at(TEXT, len(TEXT))}
    resp = await c.request("textDocument/completion", where, 60)
    return resp["result"]["items"]


async def _device(c: LspClient) -> str | None:
    stats = await c.call("laya/stats", {"recent": 0})
    return (stats["model"] or {}).get("device")


async def _model(c: LspClient) -> dict:
    return (await c.call("laya/stats", {"recent": 0}))["model"] or {}


async def _wait_model(c: LspClient, key: str, want: object, limit_s: float = 300) -> None:
    for _ in range(int(limit_s / 0.25)):
        if (await _model(c)).get(key) == want:
            return
        await asyncio.sleep(0.25)
    raise AssertionError(f"the model's {key} never became {want!r}; server log:\n{c.stderr[-3000:]}")


async def _wait_device(c: LspClient, want: str) -> None:
    await _wait_model(c, "device", want)


@pytest.fixture(autouse=True)
def _no_kernel_cache_from_outside(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MLX_PTX_CACHE_DIR", raising=False)


async def test_the_cpu_answers_while_the_gpu_compiles_then_the_model_moves_there(tmp_path: Path):
    env, flag = _env(tmp_path)
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env={**os.environ, **env}, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)
        assert await _complete(c), "no answer from the CPU while the GPU's kernels compile"
        assert await _device(c) == "cpu"
        assert _marks(tmp_path) == [], "the compile is held back: nothing can have marked it done"
        flag.unlink()  # the compile goes on and ends
        await _wait_device(c, "cuda")
        # the background warm-up compiles the server's models (the embedded pause model's too, where it is shipped)
        assert len(_marks(tmp_path)) == 1 + PAUSE_SHIPPED, "the warm-up did not mark its compiles done"
        loads = [m["params"]["value"] for m in c.notifications
                 if m["method"] == "$/progress" and m["params"]["value"].get("title") == "laya: loading model"]
        assert len(loads) == 2, "the move to the GPU was not shown as a load"
        assert await _complete(c), "no answer after the move to the GPU"
        text = await c.call("laya/documentText", {"uri": URI})
        assert text["text"] == TEXT, "the move lost or changed the document"
    finally:
        flag.unlink(missing_ok=True)
        await c.close()
    # the next start finds the mark: straight to the GPU, no CPU first
    env.pop("LAYA_HOLD_COMPILE_FILE")
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env={**os.environ, **env, "LAYA_HOLD_COMPILE_FILE": str(flag)},
                              default_timeout=60)
    flag.write_text("on")  # a compile started now would hang on it (and the device would stay "cpu")
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)
        assert await _complete(c)
        assert await _device(c) == "cuda", "a start after the compile did not load on the GPU"
    finally:
        flag.unlink(missing_ok=True)
        await c.close()


async def test_a_failed_compile_leaves_the_model_answering_on_the_cpu_and_says_so(tmp_path: Path):
    env, flag = _env(tmp_path, LAYA_FAIL_COMPILE="1")
    flag.unlink()
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env={**os.environ, **env}, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)
        shown = await c.wait_notification("window/showMessage",
                                          lambda m: "first compile for this model failed" in m["params"]["message"],
                                          timeout=120)
        assert shown["params"]["type"] == 2  # Warning
        assert "NVRTC could not compile a kernel" in c.stderr, "the log does not say why the compile failed"
        assert await _complete(c), "no answer after the compile failed"
        assert await _device(c) == "cpu" and _marks(tmp_path) == []
    finally:
        await c.close()


def test_how_each_start_runs_while_nothing_is_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """first_compile.plan_start: eager (and, for a front, a compile meanwhile) until the compile for the model on
    that device is marked; with CUDA, "auto" and a model small enough, on the CPU meanwhile."""
    from dataclasses import replace

    from laya_lsp import first_compile
    from laya_lsp.config import Settings
    from laya_lsp.first_compile import StartPlan, plan_start

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))  # MLX's CPU code folder: nothing compiled there
    monkeypatch.setenv("MLX_PTX_CACHE_DIR", str(tmp_path / "kernels"))
    auto = Settings(model=str(DEFAULT_MODEL))
    assert plan_start(auto, "front") == StartPlan("cpu", eager=True, compile_on="cpu")
    assert plan_start(auto, "tool") == StartPlan("cpu", eager=True)
    assert plan_start(auto, "compile") == StartPlan("cpu")
    first_compile.mark_compiled(str(DEFAULT_MODEL), replace(auto, candidates=9), "cpu", 20.0)
    assert plan_start(auto, "front") == StartPlan("cpu"), "the CPU's code does not depend on step settings"
    with monkeypatch.context() as m:
        m.setattr(first_compile.shutil, "which", lambda _name: None)
        m.setenv("TMPDIR", str(tmp_path / "other"))
        assert plan_start(auto, "front") == StartPlan("cpu"), "without g++ MLX compiles nothing: nothing to wait for"

    monkeypatch.setattr(first_compile, "installed_backend", lambda: "cuda")
    bridged = StartPlan("cpu", eager=False, compile_on="gpu")
    assert plan_start(auto, "front") == bridged
    assert plan_start(auto, "tool") == StartPlan("gpu"), "a one-shot command bridged"
    assert plan_start(replace(auto, device="gpu"), "front") == StartPlan("gpu")
    assert plan_start(replace(auto, device="cpu"), "front") == StartPlan("cpu")
    monkeypatch.setattr(first_compile, "BRIDGE_MAX_BYTES", 1 << 20)
    assert plan_start(auto, "front") == StartPlan("gpu"), "a model too big for the CPU bridged"
    monkeypatch.setattr(first_compile, "BRIDGE_MAX_BYTES", 400 << 20)
    first_compile.mark_compiled(str(DEFAULT_MODEL), replace(auto, device="gpu"), "gpu", 61.0)
    assert plan_start(auto, "front") == StartPlan("gpu"), "the GPU compile's mark was not found"
    assert plan_start(replace(auto, candidates=auto.candidates + 1), "front") == bridged, \
        "other step shapes (another candidates count) need their own GPU compile"
    assert plan_start(replace(auto, min_confidence=0.9), "front") == StartPlan("gpu"), "a setting without shapes"
    real = first_compile._code_files()
    assert any(f.name == "step.py" for f in real) and any(f.name == "_version.py" for f in real)
    changed = tmp_path / "step.py"
    changed.write_text(real[0].read_text() + "\n# an update\n")
    monkeypatch.setattr(first_compile, "_code_files", lambda: [changed, *real[1:]])
    assert plan_start(auto, "front") == StartPlan("cpu", eager=True, compile_on="gpu"), \
        "an update of laya's decoding code kept the old compiles' marks"
    missing = replace(auto, model=str(tmp_path / "missing"))
    assert plan_start(missing, "front") == StartPlan("gpu"), "a model that does not load bridged (its load says why)"


def _model_of_its_own(tmp_path: Path) -> Path:
    """The embedded model under a config.json of its own (one more key, ignored by the loader): no compile of it is
    marked done on this machine."""
    model = tmp_path / "model"
    model.mkdir()
    for f in DEFAULT_MODEL.iterdir():
        if f.name != "config.json":
            (model / f.name).symlink_to(f)
    config = json.loads((DEFAULT_MODEL / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**config, "laya_test_nonce": str(tmp_path)}))
    return model


async def test_without_compiled_cpu_code_the_server_answers_eagerly_until_one_compile_is_done(tmp_path: Path):
    """Two servers start on a model no compile has marked: both answer at once without compiled code, one
    compile runs (the second server finds it and waits), both run compiled once it is marked; a third start runs
    compiled from the first answer and compiles nothing."""
    from laya_lsp.first_compile import cpu_code_dir

    model = _model_of_its_own(tmp_path)
    flag = tmp_path / "HOLD"
    flag.write_text("on")
    env = {**os.environ, **hook_env(tmp_path, HOLD_ONLY), "LAYA_HOLD_COMPILE_FILE": str(flag)}
    cmd = [*DEFAULT_SERVER_CMD[:-1], str(model), "--log-level", "INFO"]
    marks = cpu_code_dir() / "laya-compiled"
    before = set(marks.glob("*.json"))
    servers: list[LspClient] = []
    try:
        for _ in range(2):
            c = await LspClient.spawn(cmd, env=env, default_timeout=60)
            servers.append(c)
            await c.initialize(initialization_options=SETTINGS)
            await c.did_open(URI, TEXT)
            assert await _complete(c), "no answer while the compile runs"
            assert (await _model(c))["compiled"] is False
        first, second = servers
        await _wait_log(second, "another process (pid")
        assert "compiling in a `laya-lsp warm-up` process" in first.stderr
        assert "compiling in a `laya-lsp warm-up` process" not in second.stderr, "a second compile started"
        assert set(marks.glob("*.json")) == before, "the compile is held back: nothing can have marked it done"
        flag.unlink()
        for c in servers:
            await _wait_model(c, "compiled", True)
            assert await _complete(c), "no answer once compiled"
        new = set(marks.glob("*.json")) - before
        assert len(new) == 1, "the compile was not marked done"
        third = await LspClient.spawn(cmd, env=env, default_timeout=60)
        servers.append(third)
        await third.initialize(initialization_options=SETTINGS)
        await third.did_open(URI, TEXT)
        assert await _complete(third)
        assert (await _model(third))["compiled"] is True, "a start after the compile ran without compiled code"
        assert "laya-lsp warm-up" not in third.stderr, "a start after the compile compiled again"
    finally:
        flag.unlink(missing_ok=True)
        for c in servers:
            await c.close()
        for mark in set(marks.glob("*.json")) - before:
            mark.unlink()


async def _wait_log(c: LspClient, text: str, limit_s: float = 60) -> None:
    for _ in range(int(limit_s / 0.1)):
        if text in c.stderr:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{text!r} never in the server's log:\n{c.stderr[-3000:]}")
