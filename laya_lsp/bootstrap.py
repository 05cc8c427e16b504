"""One start-up path for every entry point: settings, BLAS, the engine and its model.

`laya-lsp serve`, `complete`, `doctor` and `http`, the replay (through the server it starts), the decision
calibration and the benchmarks all start here:
- settings: the defaults, then `LAYA_MODEL`, then `--settings` JSON, then `--model` / `--allow-download` (the LSP
  server merges `initializationOptions` and `workspace/didChangeConfiguration` over these);
- BLAS: MLX's CPU backend on the BLAS blas.py chooses (BLIS, else OpenBLAS) before MLX is used, and the
  `threads` setting;
- `begin`: the engine for those settings with its model's load queued on the engine's worker at once, so that
  a front's own imports run while the model loads; a future that requests wait on; and the pause tier's model
  (`pause.model`: the embedded one where shipped) asked for, to load when the worker is first idle (`load_pause`);
- `wire`: the orchestrator over that engine, what every front talks to (`start` for one-shot tools).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .blas import set_blas_threads
from .device import prepare_mlx
from .first_compile import KernelCompile, Role, StartPlan, compiled, load_device, plan_start

if TYPE_CHECKING:  # (imported where used: MLX must not load before the BLAS set-up)

    from .config import Settings
    from .engine import Engine, Progress
    from .orchestrator import Orchestrator

log = logging.getLogger(__name__)

MODEL_ENV = "LAYA_MODEL"


def resolve_settings(settings_json: str | None = None, model: str | None = None, allow_download: bool = False,
                     env: Mapping[str, str] = os.environ, pause_model: str | None = None) -> Settings:
    """The settings a command starts with: defaults < `LAYA_MODEL` < `--settings` JSON < `--model`,
    `--pause-model` and `--allow-download`. Raises SettingsError naming the problem."""
    from .config import Settings, SettingsError, parse_settings

    try:
        raw = json.loads(settings_json) if settings_json else {}
    except json.JSONDecodeError as exc:
        raise SettingsError(f"--settings is not valid JSON: {exc}") from None
    settings = parse_settings(raw, Settings(model=env.get(MODEL_ENV, "")))
    if model:
        settings = replace(settings, model=model)
    if pause_model:
        settings = replace(settings, pause=replace(settings.pause, model=pause_model))
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
    # MLX's first compile for this load's model, run while it answers without it (first_compile.py); None otherwise.
    compile: KernelCompile | None = None
    # The pause tier's load: resolves to its ModelInfo, None (no pause tier: `pause_note` says why) or the load's
    # ModelLoadError (a missing directory is found at once, before the worker is asked).
    pause: Future | None = None
    pause_note: str = ""


# What a front is handed when its model moves to the GPU after the first compile (None: the compile failed).
OnMove = Callable[[Loading | None], None]


def load_in_background(engine: Engine, settings: Settings, plan: StartPlan | None = None) -> Loading:
    """Queue the settings' model load (and warm-up) on the engine's worker and return at once; on the device and
    with the compilation `plan` says (default: where the `device` setting says, compiled)."""
    from .engine import ModelLoadError
    from .first_compile import StartPlan, load_device

    plan = plan or StartPlan(load_device(settings))
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

    engine.start_load(settings.model or None, settings.allow_download, progress, plan.load_on,
                      eager=plan.eager).add_done_callback(finished)
    loading = Loading(engine, done, progress)
    if plan.compile_on is not None:
        loading.compile = KernelCompile(settings, plan.compile_on, pause_dir(settings))
    return loading


def begin(settings: Settings, min_queue: int = 0, role: Role = "tool") -> Loading:
    """The engine for `settings` with its model's load and warm-up queued at once: the front imports its own
    stack (pygls and lsprotocol, FastAPI: ~0.4 s) while the model loads; then the pause tier's model asked for
    (`load_pause`). `role` (first_compile.plan_start): "front" for the long-running fronts (while MLX compiles
    the first time they answer without it, and have it compiled meanwhile: `wire`), "compile" for
    `laya-lsp warm-up`."""
    plan = plan_start(settings, role, pause_dir(settings))
    loading = load_in_background(create_engine(settings, min_queue), settings, plan)
    loading.pause, loading.pause_note = load_pause(loading.engine, settings, compiling=role == "compile")
    return loading


def pause_spec(settings: Settings) -> tuple[str | None, str]:
    """The pause tier's model for `settings` (a directory or repo id) and, when there is none, why."""
    from .config import PAUSE_OFF
    from .engine import PAUSE_MODEL_DIR

    asked = settings.pause.model
    if asked == PAUSE_OFF:
        return None, "off"
    if asked:
        return asked, ""
    if (PAUSE_MODEL_DIR / "config.json").exists():
        return str(PAUSE_MODEL_DIR), ""
    return None, "none (no embedded pause model is shipped with this install)"


def pause_dir(settings: Settings) -> Path | None:
    """The pause tier's model directory, None when there is none or it does not resolve (its load says why)."""
    from .engine import ModelLoadError, resolve_model

    spec, _why = pause_spec(settings)
    try:
        return resolve_model(spec, settings.allow_download) if spec else None
    except ModelLoadError:
        return None


def load_pause(engine: Engine, settings: Settings, compiling: bool = False) -> tuple[Future, str]:
    """Ask `engine` for the settings' pause-tier model (none: the one loaded is dropped): it loads when the worker
    is first idle. On a CPU whose MLX has not compiled its code for that model yet (first_compile.py) it runs
    uncompiled until `_when_compiled` turns compilation on (`compiling`: this is that compile, `laya-lsp
    warm-up`). Returns the load's future and, for no pause tier, why."""
    from .engine import ModelLoadError, resolve_model

    spec, why = pause_spec(settings)
    if spec is None:
        log.info("pause tier: %s", why)
        return engine.start_pause_load(None), why
    try:
        path = resolve_model(spec, settings.allow_download)
    except ModelLoadError as exc:  # a missing directory (or repo) is said at once; the keystroke model serves on
        log.error("pause-tier model not loaded: %s", exc)
        engine.start_pause_load(None)
        failed: Future = Future()
        failed.set_exception(exc)
        return failed, ""
    eager = not compiling and load_device(settings) == "cpu" and not compiled(settings, "cpu", path)
    return engine.start_pause_load(str(path), settings.allow_download, eager), ""


def wire(settings: Callable[[], Settings], loading: Loading, on_move: OnMove | None = None) -> Orchestrator:
    """The orchestrator every front talks to, over the engine `loading` loads (requests wait for the load);
    `settings` is called for each request (the LSP's change with `didChangeConfiguration`). Where `loading`
    has a first compile to run (first_compile.py), it starts, and when it is done the model moves to the GPU
    (`on_move` gets that load, to report it; None if the compile failed) or runs compiled on the CPU."""
    from .orchestrator import Orchestrator

    orchestrator = Orchestrator(loading.engine, settings)
    orchestrator.loading(loading.done)
    _when_compiled(orchestrator, loading, on_move)
    return orchestrator


def reload(orchestrator: Orchestrator, settings: Settings, on_move: OnMove | None = None) -> Loading:
    """Load the settings' model again (it changed) into the orchestrator's engine; requests wait for it. A front
    passes `on_move` (as to `wire`): its load may start without compiled code while it compiles."""
    loading = load_in_background(orchestrator.engine, settings,
                                 plan_start(settings, "front" if on_move is not None else "tool"))
    orchestrator.loading(loading.done)
    _when_compiled(orchestrator, loading, on_move)
    return loading


def _when_compiled(orchestrator: Orchestrator, loading: Loading, on_move: OnMove | None) -> None:
    """Start `loading`'s first compile, if it has one; when it is done (and the model and device asked for are
    still the ones it compiled for): on the CPU, compiled code from then on; for the GPU, the model loaded again
    there, that load handed to `on_move`. A failed compile: `on_move(None)` (the model stays as it is)."""
    compile = loading.compile
    if compile is None:
        return

    def done(ok: bool) -> None:  # on the compile's thread
        now = orchestrator.settings()
        asked = compile.settings
        if (now.model, now.allow_download, now.device) != (asked.model, asked.allow_download, asked.device):
            return  # another model (or device) was asked for meanwhile: its own load decided how it runs
        if not ok:
            if on_move is not None:
                on_move(None)
        elif compile.where == "cpu":
            orchestrator.engine.compile_from_now()
            if compiled(now, "cpu", pause_dir(now)):  # the compile covered the pause model too (first_start.py)
                orchestrator.engine.compile_pause_from_now()
        else:
            moved = load_in_background(orchestrator.engine, now, StartPlan("gpu"))
            orchestrator.loading(moved.done)
            if on_move is not None:
                on_move(moved)

    compile.start(done)


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
