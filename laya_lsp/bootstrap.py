"""One start-up path for every entry point: settings, BLAS, the engine and its model.

`laya-lsp serve`, `complete`, `doctor` and `http`, the replay (through the server it starts), the decision
calibration and the benchmarks all start here:
- settings: the defaults, then `LAYA_MODEL`, then `--settings` JSON, then `--model` / `--allow-download` (the LSP
  server merges `initializationOptions` and `workspace/didChangeConfiguration` over these);
- BLAS: MLX's CPU backend on the BLAS blas.py chooses (BLIS, else OpenBLAS) before MLX is used, and the
  `threads` setting;
- `begin`: the engine for those settings with its model's load queued on the engine's worker at once, so that
  a front's own imports run while the model loads; a future that requests wait on;
- `wire`: the orchestrator over that engine, what every front talks to (`start` for one-shot tools).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .blas import set_blas_threads
from .device import prepare_mlx

if TYPE_CHECKING:  # (imported where used: MLX must not load before the BLAS set-up)
    from collections.abc import Callable

    from .config import Settings
    from .cpu_bridge import KernelCompile
    from .device import Where
    from .engine import Engine, Progress
    from .orchestrator import Orchestrator

log = logging.getLogger(__name__)

MODEL_ENV = "LAYA_MODEL"


def resolve_settings(settings_json: str | None = None, model: str | None = None, allow_download: bool = False,
                     env: Mapping[str, str] = os.environ) -> Settings:
    """The settings a command starts with: defaults < `LAYA_MODEL` < `--settings` JSON < `--model` and
    `--allow-download`. Raises SettingsError naming the problem."""
    from .config import Settings, SettingsError, parse_settings

    try:
        raw = json.loads(settings_json) if settings_json else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(f"--settings is not valid JSON: {exc}") from None
    settings = parse_settings(raw, Settings(model=env.get(MODEL_ENV, "")))
    if model:
        settings = replace(settings, model=model)
    if allow_download:
        settings = replace(settings, allow_download=True)
    return settings


def use_fast_blas() -> None:
    """Check the MLX backend and, on a Linux CPU, route MLX's matrix products to the BLAS blas.py chooses
    (device.prepare_mlx, blas.py). Call it first thing, before anything imports MLX."""
    prepare_mlx()


def apply_threads(settings: Settings) -> None:
    """The `threads` setting (0 leaves the BLAS default)."""
    if settings.threads:
        set_blas_threads(settings.threads)


def create_engine(settings: Settings, min_queue: int = 0) -> Engine:
    """An engine (no model yet) for `settings`; its queue holds at least `min_queue` jobs before dropping any."""
    from .engine import Engine

    apply_threads(settings)
    engine_settings = settings.engine()
    engine_settings.max_queue = max(engine_settings.max_queue, min_queue)
    return Engine(engine_settings)


class LoadProgress:
    """The steps of a load that may start before anyone can show them: the latest is kept, and handed to each
    listener that comes later (the LSP server once the client can take $/progress, a request waiting for the
    model), then every step after it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.latest: tuple[str, int] | None = None
        self._listeners: list[Progress] = []

    def __call__(self, message: str, pct: int) -> None:
        with self._lock:
            self.latest = (message, pct)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(message, pct)

    def listen(self, listener: Progress) -> Callable[[], None]:
        """Call `listener` with the latest step now and every step after; returns what stops that."""
        with self._lock:
            self._listeners.append(listener)
            latest = self.latest
        if latest is not None:
            listener(*latest)

        def stop() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return stop


@dataclass
class Loading:
    """A model load queued on `engine`'s worker: `done` resolves to its ModelInfo, or to the load's exception
    (whatever went wrong is also in `engine.load_error`, for requests and health checks)."""

    engine: Engine
    done: Future
    progress: LoadProgress
    # The GPU's first compile, run while this load's model answers from the CPU (cpu_bridge.py); None otherwise.
    compile: KernelCompile | None = None


def load_in_background(engine: Engine, settings: Settings, device: Where | None = None) -> Loading:
    """Queue the settings' model load (and warm-up) on the engine's worker and return at once; on `device`, else
    where the `device` setting says."""
    from .cpu_bridge import load_device
    from .engine import ModelLoadError

    progress = LoadProgress()
    done: Future = Future()

    def finished(load: Future) -> None:  # on the worker, as the load ends
        exc = load.exception()
        if exc is None:
            done.set_result(engine.model_info())
            return
        if not isinstance(exc, ModelLoadError):  # a bug or an unexpected library error: reported like a bad model
            log.error("model load failed", exc_info=exc)
            engine.load_error = f"{type(exc).__name__}: {exc}"
        done.set_exception(exc)

    engine.start_load(settings.model or None, settings.allow_download, progress,
                      device or load_device(settings)).add_done_callback(finished)
    return Loading(engine, done, progress)


def _load(engine: Engine, settings: Settings, bridge: bool) -> Loading:
    """The settings' load; with `bridge`, on the CPU while the GPU's kernels compile the first time, where
    cpu_bridge.bridge_wanted says so (the compile starts with `_move_when_compiled`)."""
    from .cpu_bridge import KernelCompile, bridge_wanted

    if bridge and bridge_wanted(settings):
        loading = load_in_background(engine, settings, "cpu")
        loading.compile = KernelCompile(settings)
        return loading
    return load_in_background(engine, settings)


def begin(settings: Settings, min_queue: int = 0, bridge: bool = False) -> Loading:
    """The engine for `settings` with its model's load and warm-up queued at once, for the long-running fronts:
    the front imports its own stack (pygls and lsprotocol, FastAPI: ~0.4 s) while the model loads. `bridge`: a
    front that can move its model to the GPU later (`wire` with `on_move`) may start it on the CPU while the GPU
    compiles its kernels the first time (cpu_bridge.py)."""
    return _load(create_engine(settings, min_queue), settings, bridge)


def wire(settings: Callable[[], Settings], loading: Loading,
         on_move: Callable[[Loading | None], None] | None = None) -> Orchestrator:
    """The orchestrator every front talks to, over the engine `loading` loads (requests wait for the load);
    `settings` is called for each request (the LSP's change with `didChangeConfiguration`). Where `loading`
    answers from the CPU while the GPU compiles, the model moves to the GPU when that is done, and `on_move` gets
    that load (to report it), or None if the compile failed (the model stays on the CPU)."""
    from .orchestrator import Orchestrator

    orchestrator = Orchestrator(loading.engine, settings)
    orchestrator.loading(loading.done)
    _move_when_compiled(orchestrator, loading, on_move)
    return orchestrator


def reload(orchestrator: Orchestrator, settings: Settings, on_move: Callable[[Loading | None], None] | None = None,
           previous: Loading | None = None) -> Loading:
    """Load the settings' model again (it changed) into the orchestrator's engine; requests wait for it. A front
    that passes `on_move` may get it on the CPU while the GPU compiles (as `begin` with `bridge`); the compile of
    the `previous` load, if one still runs, stops."""
    if previous is not None and previous.compile is not None:
        previous.compile.stop()
    loading = _load(orchestrator.engine, settings, bridge=on_move is not None)
    orchestrator.loading(loading.done)
    _move_when_compiled(orchestrator, loading, on_move)
    return loading


def stop_compiles() -> None:
    """End every GPU compile a load started (cpu_bridge.KernelCompile) that still runs: the front is exiting."""
    from .cpu_bridge import KernelCompile

    KernelCompile.stop_all()


def _move_when_compiled(orchestrator: Orchestrator, loading: Loading,
                        on_move: Callable[[Loading | None], None] | None) -> None:
    """Start `loading`'s GPU compile, if it has one; when it succeeds (and the model is still the one it compiled
    for) load the model again on the GPU, and hand that load to `on_move`."""
    compile = loading.compile
    if compile is None:
        return

    def compiled(ok: bool) -> None:  # on the compile's thread
        now = orchestrator.settings()
        asked = compile.settings
        if (now.model, now.allow_download, now.device) != (asked.model, asked.allow_download, asked.device):
            return  # another model (or device) was asked for meanwhile: its own load decided where it runs
        if not ok:
            if on_move is not None:
                on_move(None)
            return
        moved = load_in_background(orchestrator.engine, now, "gpu")
        orchestrator.loading(moved.done)
        if on_move is not None:
            on_move(moved)

    compile.start(compiled)


def start(settings: Settings) -> Orchestrator:
    """`begin` and `wire` with the model loaded and warmed up, for one-shot commands and tools (which time
    requests from the first one on); raises ModelLoadError."""
    loading = begin(settings)
    try:
        loading.done.result()
        loading.engine.finish_warm_up()
    except BaseException:
        loading.engine.shutdown()
        raise
    return wire(lambda: settings, loading)
