"""While a GPU compiles its kernels for the first time, the CPU answers.

MLX's CUDA backend compiles every kernel a model's steps need with NVRTC the first time a machine (and MLX
version) runs them, one after another and seconds each: about a minute for the embedded model, minutes for a
1.5B one (docs/benchmarks.md, "GPU at typing speed"). They are kept in the kernel cache
(`device.kernel_cache_dir`), so this happens once. A server (LSP or HTTP) with `device` "auto" that finds no mark
of a finished compile for its model's shape and settings, and whose model is small enough to answer at typing
speed on the CPU, loads it on the CPU, compiles the kernels meanwhile in a `laya-lsp warm-up` process of its own
(`KernelCompile`), and moves the model to the GPU when that process is done (a reload: requests during it wait,
with $/progress, as during any load; with the kernels cached it takes about a second). If the compile fails the
server stays on the CPU and says so in its log. `laya-lsp warm-up` on a GPU leaves the mark (`mark_compiled`).

A larger model loads on the GPU at once and its first requests wait for the compile with $/progress
(`device` "gpu" does that for every model; "cpu" keeps the model on the CPU).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from .device import Where, installed_backend, kernel_cache_dir

if TYPE_CHECKING:
    from .config import Settings

log = logging.getLogger(__name__)

# Models whose weight files take at most this answer from the CPU meanwhile (the embedded model: 17 MB; a 0.5B
# model at 4 bits: ~0.3 GB, dequantized to fp32 there); larger ones wait for the GPU.
BRIDGE_MAX_BYTES = 400 * 2**20
# The settings that decide which step shapes warm-up runs (engine/loading/model.py WarmPlan), so which kernels.
_SHAPE_SETTINGS = ("candidates", "typing_candidates", "max_tokens", "context_tokens", "prefill_chunk",
                   "draft_tokens", "fixed_shapes")
MARKS = "laya-compiled"


def load_device(settings: Settings) -> Where:
    """Where a load for `settings` puts the model: the setting's device; for "auto" the GPU where the installed
    MLX backend has one (said each time: a bridged start left MLX's default on the CPU)."""
    if settings.device != "auto":
        return settings.device  # type: ignore[return-value]
    return "cpu" if installed_backend() == "cpu" else "gpu"


def _model_dir(settings: Settings) -> Path | None:
    from .engine import ModelLoadError, resolve_model

    try:
        return resolve_model(settings.model or None, settings.allow_download)
    except ModelLoadError:
        return None  # the load itself reports it


def compile_key(model_dir: Path, settings: Settings) -> str:
    """What a compile's kernels depend on: the model's shape and dtypes (its config.json), the settings that decide
    the step shapes, and the MLX version (the kernel cache folder is already per version)."""
    h = hashlib.sha256((model_dir / "config.json").read_bytes())
    h.update(json.dumps({k: getattr(settings, k) for k in _SHAPE_SETTINGS}, sort_keys=True).encode())
    h.update(str(kernel_cache_dir()).encode())
    return h.hexdigest()[:16]


def _mark_path(model_dir: Path, settings: Settings) -> Path:
    return kernel_cache_dir() / MARKS / f"{compile_key(model_dir, settings)}.json"


def mark_compiled(model_dir: str, settings: Settings, took_s: float) -> Path:
    """Record that every kernel a server of `settings` needs for the model in `model_dir` is compiled (written by
    `laya-lsp warm-up` on a GPU when it succeeds)."""
    path = _mark_path(Path(model_dir), settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"model": model_dir, "compiled_s": round(took_s, 1), "at": time.time()}))
    tmp.replace(path)
    return path


def bridge_wanted(settings: Settings) -> bool:
    """Whether a server for `settings` should start on the CPU while the GPU compiles: device "auto", MLX's CUDA
    backend, a model small enough for the CPU, and no mark of a finished compile for it."""
    if settings.device != "auto" or installed_backend() != "cuda":
        return False
    model_dir = _model_dir(settings)
    if model_dir is None:
        return False
    weights = sum(f.stat().st_size for f in model_dir.glob("*.safetensors"))
    return weights <= BRIDGE_MAX_BYTES and not _mark_path(model_dir, settings).exists()


class KernelCompile:
    """`laya-lsp warm-up` on the GPU in a process of its own, for `settings`; `on_done(ok)` is called (on a
    thread of its own) when it ends: ok when it compiled everything and left its mark."""

    running: ClassVar[set[KernelCompile]] = set()  # every compile started and not yet ended (stop_all)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.process: subprocess.Popen[bytes] | None = None
        self.ok: bool | None = None
        self._stopped = threading.Event()

    def command(self) -> list[str]:
        from .config import settings_json

        return [sys.executable, "-m", "laya_lsp", "warm-up", "--json", "--settings",
                settings_json(replace(self.settings, device="gpu"))]

    def start(self, on_done: Callable[[bool], Any]) -> None:
        """Start the compile now; returns at once."""
        log.info("the GPU's kernels are not compiled yet for this model: answering from the CPU while "
                 "`laya-lsp warm-up` compiles them")
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        KernelCompile.running.add(self)
        threading.Thread(target=self._wait, args=(on_done,), name="laya-kernel-compile", daemon=True).start()

    def _wait(self, on_done: Callable[[bool], Any]) -> None:
        assert self.process is not None
        t0 = time.perf_counter()
        out, err = self.process.communicate()
        KernelCompile.running.discard(self)
        if self._stopped.is_set():
            return
        model_dir = _model_dir(self.settings)
        self.ok = (self.process.returncode == 0 and model_dir is not None
                   and _mark_path(model_dir, self.settings).exists())
        if self.ok:
            log.info("GPU kernels compiled in %.1f s: moving the model to the GPU", time.perf_counter() - t0)
        else:
            tail = err.decode(errors="replace").strip().splitlines()[-5:] or out.decode(errors="replace")[-400:]
            log.error("compiling the GPU's kernels failed (laya-lsp warm-up exited %s): staying on the CPU; %s",
                      self.process.returncode, " | ".join(tail) if isinstance(tail, list) else tail)
        on_done(bool(self.ok))

    @classmethod
    def stop_all(cls) -> None:
        for compile in list(cls.running):
            compile.stop()

    def stop(self) -> None:
        """End the compile process (the server is exiting); `on_done` is not called."""
        self._stopped.set()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
