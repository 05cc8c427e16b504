"""The GPU's first start (cpu_bridge.py): while MLX compiles a GPU's kernels the first time, a small model answers
from the CPU, then moves to the GPU once a `laya-lsp warm-up` of the server's own has compiled them; a failed
compile leaves it on the CPU, said to the user; a later start finds the compile's mark and loads on the GPU at once.

This machine has no GPU, so an import hook (importhook.py) makes laya see MLX's CUDA backend: `installed_backend`
says "cuda" and `use_device("gpu")` keeps MLX on the CPU but reports "cuda", in the server and in the warm-up
process it starts (the hook travels in the environment). Everything else is the real server, the real warm-up
command and the real mark in the kernel cache folder (under a temporary XDG_CACHE_HOME). While a flag file exists
the warm-up's compile is held back, so the test sees the server answer before it ends.
"""

from __future__ import annotations

import asyncio
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
URI = "file:///bridge/first.py"
TEXT = "def mean(values):\n    total = sum(values)\n    return "
SETTINGS = {"speculative": False}


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


async def _wait_device(c: LspClient, want: str, limit_s: float = 120) -> None:
    for _ in range(int(limit_s / 0.25)):
        if await _device(c) == want:
            return
        await asyncio.sleep(0.25)
    raise AssertionError(f"the model never moved to {want!r}; server log:\n{c.stderr[-3000:]}")


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
        assert len(_marks(tmp_path)) == 1, "the warm-up did not mark its compile done"
        loads = [m["params"]["value"] for m in c.notifications
                 if m["method"] == "$/progress" and m["params"]["value"].get("title") == "laya: loading model"]
        assert len(loads) == 2, "the move to the GPU was not shown as a load"
        assert await _complete(c), "no answer after the move to the GPU"
        text = await c.call("laya/documentText", {"uri": URI})
        assert text["text"] == TEXT, "the move lost or changed the document"
    finally:
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
        await c.close()


async def test_a_failed_compile_leaves_the_model_answering_on_the_cpu_and_says_so(tmp_path: Path):
    env, flag = _env(tmp_path, LAYA_FAIL_COMPILE="1")
    flag.unlink()
    c = await LspClient.spawn(DEFAULT_SERVER_CMD, env={**os.environ, **env}, default_timeout=60)
    try:
        await c.initialize(initialization_options=SETTINGS)
        await c.did_open(URI, TEXT)
        shown = await c.wait_notification("window/showMessage",
                                          lambda m: "compiling the GPU's kernels failed" in m["params"]["message"],
                                          timeout=120)
        assert shown["params"]["type"] == 2  # Warning
        assert "NVRTC could not compile a kernel" in c.stderr, "the log does not say why the compile failed"
        assert await _complete(c), "no answer after the compile failed"
        assert await _device(c) == "cpu" and _marks(tmp_path) == []
    finally:
        await c.close()


def test_which_starts_answer_from_the_cpu_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Only "auto" with MLX's CUDA backend and a model small enough for the CPU, until a compile for the same
    shape and step settings is marked done."""
    from dataclasses import replace

    from laya_lsp import cpu_bridge
    from laya_lsp.config import Settings

    monkeypatch.setenv("MLX_PTX_CACHE_DIR", str(tmp_path / "kernels"))
    auto = Settings(model=str(DEFAULT_MODEL))
    assert not cpu_bridge.bridge_wanted(auto), "this machine's MLX has no CUDA backend"
    monkeypatch.setattr(cpu_bridge, "installed_backend", lambda: "cuda")
    assert cpu_bridge.bridge_wanted(auto)
    assert cpu_bridge.load_device(auto) == "gpu"
    for device in ("gpu", "cpu"):
        assert not cpu_bridge.bridge_wanted(replace(auto, device=device))
        assert cpu_bridge.load_device(replace(auto, device=device)) == device
    monkeypatch.setattr(cpu_bridge, "BRIDGE_MAX_BYTES", 1 << 20)
    assert not cpu_bridge.bridge_wanted(auto), "a model too big for the CPU bridged"
    monkeypatch.setattr(cpu_bridge, "BRIDGE_MAX_BYTES", 400 << 20)
    cpu_bridge.mark_compiled(str(DEFAULT_MODEL), replace(auto, device="gpu"), 61.0)
    assert not cpu_bridge.bridge_wanted(auto), "the compile's mark was not found"
    assert cpu_bridge.bridge_wanted(replace(auto, candidates=auto.candidates + 1)), \
        "other step shapes (another candidates count) need their own compile"
    assert not cpu_bridge.bridge_wanted(replace(auto, min_confidence=0.9)), "a setting without shapes mattered"
    assert not cpu_bridge.bridge_wanted(replace(auto, model=str(tmp_path / "missing"))), \
        "a model that does not load bridged (its load reports the error)"
