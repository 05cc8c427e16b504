"""While MLX compiles a model's code the first time, answer with what needs none.

MLX compiles code the first time a machine (and MLX version) runs a model's steps, and keeps it:
- on the CPU, every `mx.compile`d function becomes C++ that g++ builds into <temp dir>/mlx/<version>/cpu, about a
  second each: a server's steps need ~24, so a first start took 20-31 s on a 2-core machine instead of ~1.3 s;
- with CUDA, every kernel is compiled with NVRTC into the kernel cache (`device.kernel_cache_dir`), seconds each:
  ~40 s for the embedded model on an H200, ~160 s for a 1.5B 4-bit one (docs/benchmarks.md, "Every first answer").
Where no mark says that compile is done for the model's shape, the step settings and the device (`plan_start`),
a start runs without `mx.compile` (eager: the same results, a step up to ~2x slower), and a long-running front
(LSP, HTTP) has a `laya-lsp warm-up` process compile meanwhile (`KernelCompile`; one per device and machine at a
time) and mark it done; then the front turns compilation on (CPU) or moves the model to the GPU (a reload:
requests during it wait, with $/progress; about a second with the kernels cached). With CUDA and `device` "auto",
a model small enough answers from the CPU meanwhile; a larger one loads on the GPU at once and its first requests
wait for the compile with $/progress (as `device` "gpu" does for every model). A failed compile leaves the front
as it started and says so. The compile process outlives a front that exits first (it is one bounded job whose
result every later start uses). `laya-lsp warm-up` marks what it compiled.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .device import Where, installed_backend, kernel_cache_dir, mlx_version

if TYPE_CHECKING:
    from .config import Settings

log = logging.getLogger(__name__)

# With CUDA, models whose weight files take at most this answer from the CPU while the GPU compiles (the embedded
# model: 17 MB; a 0.5B model at 4 bits: ~0.3 GB, dequantized to fp32 there); larger ones wait for the GPU.
BRIDGE_MAX_BYTES = 400 * 2**20
# The settings that decide which step shapes run (engine/loading/model.py WarmPlan), so which kernels.
_SHAPE_SETTINGS = ("candidates", "typing_candidates", "max_tokens", "context_tokens", "prefill_chunk",
                   "draft_tokens", "fixed_shapes")
MARKS = "laya-compiled"
POLL_S = 1.0  # how often a front whose compile another process runs looks for its mark
Role = Literal["front", "tool", "compile"]


@dataclass(frozen=True)
class StartPlan:
    """How a load starts: on which device, whether without `mx.compile` until a compile is marked done, and the
    compile a front runs meanwhile (None: none)."""

    load_on: Where
    eager: bool = False
    compile_on: Where | None = None


def load_device(settings: Settings) -> Where:
    """Where a load for `settings` puts the model: the setting's device; for "auto" the GPU where the installed
    MLX backend has one (said each time: a bridged start left MLX's default on the CPU)."""
    if settings.device != "auto":
        return settings.device  # type: ignore[return-value]
    return "cpu" if installed_backend() == "cpu" else "gpu"


def cpu_code_dir() -> Path:
    """Where MLX's CPU backend keeps the code it compiles (mlx/backend/cpu/compiled.cpp: the C++ temp dir, which
    follows TMPDIR, TMP, TEMP, TEMPDIR, else /tmp)."""
    tmp = next((os.environ[v] for v in ("TMPDIR", "TMP", "TEMP", "TEMPDIR") if os.environ.get(v)), "/tmp")
    return Path(tmp) / "mlx" / mlx_version() / "cpu"


def _compiles(where: Where) -> bool:
    """Whether MLX compiles code the first time on `where`: CUDA's NVRTC, or a CPU's g++ (without one MLX runs
    compiled functions eagerly anyway). Metal's kernels come built."""
    if where == "gpu":
        return installed_backend() == "cuda"
    return shutil.which("g++") is not None


def _marks(where: Where) -> Path:
    return (kernel_cache_dir() if where == "gpu" else cpu_code_dir()) / MARKS


def _model_dir(settings: Settings) -> Path | None:
    from .engine import ModelLoadError, resolve_model

    try:
        return resolve_model(settings.model or None, settings.allow_download)
    except ModelLoadError:
        return None  # the load itself reports it


def _code_files() -> list[Path]:
    """The code whose compiled graphs MLX builds: laya's decoding (the step, its CPU math) and mlx-lm's version
    (its model code runs compiled too)."""
    import importlib.util

    files = sorted((Path(__file__).parent / "engine" / "decoding").glob("*.py"))
    spec = importlib.util.find_spec("mlx_lm")
    for location in (spec.submodule_search_locations or []) if spec else []:
        files.append(Path(location) / "_version.py")
    return [f for f in files if f.exists()]


def compile_key(model_dir: Path, settings: Settings, where: Where) -> str:
    """What a compile's code depends on besides the device and MLX version (its folder): the code that builds the
    graphs (`_code_files`: an update of laya or mlx-lm compiles again), the model's shape and dtypes (its
    config.json) and, on a GPU (fixed shapes, a kernel set per padded size), the settings that decide the step
    shapes."""
    h = hashlib.sha256((model_dir / "config.json").read_bytes())
    for f in _code_files():
        h.update(f.read_bytes())
    if where == "gpu":
        h.update(json.dumps({k: getattr(settings, k) for k in _SHAPE_SETTINGS}, sort_keys=True).encode())
    return h.hexdigest()[:16]


def _mark_file(settings: Settings, where: Where, model_dir: Path | None = None) -> Path | None:
    """The file that marks a compile for `settings`' model on `where` done; None where nothing needs one (or the
    model does not resolve: its load says why)."""
    model_dir = model_dir or _model_dir(settings)
    if not _compiles(where) or model_dir is None:
        return None
    return _marks(where) / f"{compile_key(model_dir, settings, where)}.json"


def compiled(settings: Settings, where: Where, model_dir: Path | None = None) -> bool:
    """Whether a compile for `settings`' model on `where` is marked done (or nothing there needs one)."""
    mark = _mark_file(settings, where, model_dir)
    return mark is None or mark.exists()


def mark_compiled(model_dir: str, settings: Settings, where: Where, took_s: float) -> Path | None:
    """Record that the code a server of `settings` runs for the model in `model_dir` on `where` is compiled
    (`laya-lsp warm-up` does, as it ends); None where nothing is compiled (Metal, a CPU without g++)."""
    path = _mark_file(settings, where, Path(model_dir))
    if path is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"model": model_dir, "compiled_s": round(took_s, 1), "at": time.time()}))
    tmp.replace(path)
    return path


def plan_start(settings: Settings, role: Role, pause_dir: Path | None = None) -> StartPlan:
    """How a start of `role` loads: "front" (LSP, HTTP: may bridge and compile in the background), "tool" (a
    one-shot command: eager while nothing is compiled), "compile" (`laya-lsp warm-up`: compiles now). A front
    whose pause-tier model (`pause_dir`) is not compiled on the CPU compiles too (the pause tier runs uncompiled
    meanwhile: bootstrap.load_pause), even where the keystroke model's code is."""
    where = load_device(settings)
    if role == "compile":
        return StartPlan(where)
    model_dir = _model_dir(settings)
    if where == "gpu":
        if (role == "front" and settings.device == "auto" and _compiles("gpu") and model_dir is not None
                and sum(f.stat().st_size for f in model_dir.glob("*.safetensors")) <= BRIDGE_MAX_BYTES
                and not compiled(settings, "gpu", model_dir)):
            return StartPlan("cpu", eager=not compiled(settings, "cpu", model_dir), compile_on="gpu")
        return StartPlan("gpu")
    cold = not compiled(settings, "cpu", model_dir)
    pause_cold = pause_dir is not None and not compiled(settings, "cpu", pause_dir)
    return StartPlan("cpu", eager=cold, compile_on="cpu" if (cold or pause_cold) and role == "front" else None)


class KernelCompile:
    """`laya-lsp warm-up` on `where` in a process of its own, for `settings`; `on_done(ok)` is called (on a thread
    of its own) when the compile is marked done (ok) or its process ended without marking it. One compile per
    device folder at a time on a machine: a start that finds another process compiling waits for its mark."""

    def __init__(self, settings: Settings, where: Where, pause_dir: Path | None = None) -> None:
        self.settings = settings
        self.where = where
        self.process: subprocess.Popen[bytes] | None = None
        # The pause tier's model's mark, where its compile is not done (the compile covers it: first_start.py).
        pause_mark = _mark_file(settings, where, pause_dir) if pause_dir is not None else None
        self.pause_mark = pause_mark if pause_mark is not None and not pause_mark.exists() else None

    def command(self) -> list[str]:
        from .config import settings_json

        return [sys.executable, "-m", "laya_lsp", "warm-up", "--json", "--settings",
                settings_json(replace(self.settings, device=self.where))]

    def start(self, on_done: Callable[[bool], Any]) -> None:
        """Start the compile (or find the one running); returns at once."""
        lock = _marks(self.where) / "compiling.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        other = _running_pid(lock)
        if other is None:
            # its own session and a log file, not pipes: the editor's interrupt or the front's exit does not stop it
            with (lock.parent / "compile.log").open("wb") as out:
                self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                                start_new_session=True)
            lock.write_text(str(self.process.pid))
            log.info("%s: compiling in a `laya-lsp warm-up` process (pid %d) meanwhile", _first_time(self.where),
                     self.process.pid)
        else:
            log.info("%s: another process (pid %d) compiles it; waiting for it", _first_time(self.where), other)
        threading.Thread(target=self._wait, args=(on_done, lock, other), name="laya-first-compile",
                         daemon=True).start()

    def _wait(self, on_done: Callable[[bool], Any], lock: Path, other: int | None) -> None:
        t0 = time.perf_counter()
        # once: a mark's key reads the model's config and laya's code; the pause tier's too, where it is cold
        marks = [m for m in (_mark_file(self.settings, self.where), self.pause_mark) if m is not None]
        if self.process is not None:
            self.process.wait()
            lock.unlink(missing_ok=True)
        else:
            while _alive(other) and not all(m.exists() for m in marks):
                time.sleep(POLL_S)
        ok = all(m.exists() for m in marks)
        if ok:
            log.info("compiled for the %s in %.1f s", self.where.upper(), time.perf_counter() - t0)
        else:
            output = lock.parent / "compile.log"
            tail = output.read_text(errors="replace").strip().splitlines()[-5:] if output.exists() else []
            log.error("compiling for the %s failed (laya-lsp warm-up exited %s; %s): %s", self.where.upper(),
                      self.process.returncode if self.process else "?", output, " | ".join(tail))
        on_done(ok)


def _first_time(where: Where) -> str:
    return ("the GPU's kernels are not compiled yet for this model: answering from the CPU" if where == "gpu"
            else "MLX's CPU code is not compiled yet for this model: answering without it (eager)")


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _running_pid(lock: Path) -> int | None:
    """The pid in `lock` if that process still runs (a compile in progress), else None (no lock, or a stale one)."""
    try:
        pid = int(lock.read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None
