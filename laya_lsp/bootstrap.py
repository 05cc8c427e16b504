"""One start-up path for every entry point: settings, BLAS, the engine and its model.

`laya-lsp serve`, `complete`, `doctor` and `http`, the replay (through the server it starts), the decision
calibration and the benchmarks all start here:
- settings: the defaults, then `LAYA_MODEL`, then `--settings` JSON, then `--model` / `--allow-download` (the LSP
  server merges `initializationOptions` and `workspace/didChangeConfiguration` over these);
- BLAS: MLX's CPU backend on the BLAS blas.py chooses (BLIS, else OpenBLAS) before MLX is used, and the `threads` setting;
- the engine for those settings and its model, loaded in the foreground or on a thread with a future that
  requests wait on;
- `wire`: the engine and the orchestrator over it, what every front talks to (`start` for one-shot tools).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import replace
from typing import TYPE_CHECKING

from .blas import set_blas_threads
from .device import prepare_mlx

if TYPE_CHECKING:  # (imported where used: MLX must not load before the BLAS set-up)
    from collections.abc import Callable

    from .config import Settings
    from .engine import Engine, ModelInfo, Progress
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


def load_model(engine: Engine, settings: Settings, progress: Progress | None = None) -> ModelInfo:
    """Load (and warm up) the settings' model into `engine`; raises ModelLoadError naming the problem."""
    return engine.load(settings.model or None, settings.allow_download, progress)


def load_in_background(engine: Engine, settings: Settings, progress: Progress | None = None,
                       done: Future | None = None) -> Future:
    """Load the model on a thread; `done` (or a new future) resolves to its ModelInfo or the load's exception.
    Whatever went wrong is also in `engine.load_error`, for requests and health checks."""
    from .engine import ModelLoadError

    fut: Future = done if done is not None else Future()

    def load() -> None:
        try:
            fut.set_result(load_model(engine, settings, progress))
        except ModelLoadError as exc:
            fut.set_exception(exc)
        except Exception as exc:  # a bug or an unexpected library error: reported like a bad model
            log.exception("model load failed")
            engine.load_error = f"{type(exc).__name__}: {exc}"
            fut.set_exception(exc)

    threading.Thread(target=load, name="laya-load-model", daemon=True).start()
    return fut


def wire(settings: Callable[[], Settings], min_queue: int = 0) -> Orchestrator:
    """The engine (no model yet) for the settings in force and the orchestrator every front talks to;
    `settings` is called for each request (the LSP's change with `didChangeConfiguration`)."""
    from .orchestrator import Orchestrator

    return Orchestrator(create_engine(settings(), min_queue), settings)


def start(settings: Settings) -> Orchestrator:
    """`wire` with the settings' model loaded, for one-shot commands and tools; raises ModelLoadError."""
    orchestrator = wire(lambda: settings)
    try:
        load_model(orchestrator.engine, settings)
    except BaseException:
        orchestrator.engine.shutdown()
        raise
    return orchestrator
