"""What the engine holds per tier (tiers.py): a loaded model, its decode adapter, its cache store, its drafts and
whether its steps run compiled; and the pause tier's load, queued for when the worker is idle.

Only the inference worker changes a provider (in control calls and jobs), so it needs no lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..device import device_defaults, mlx_device_kind, use_compile
from .caches.prompt_caches import CacheBudget, CacheStore
from .decoding.adapter import DecodeModel, decode_model
from .decoding.draft import DraftBook
from .loading.model import LoadedModel, ModelLoadError, WarmPlan, load_model, warm_pieces, warm_up
from .requests import EngineSettings, ModelInfo
from .scheduling.scheduler import Scheduler
from .tiers import Tier

log = logging.getLogger(__name__)


@dataclass
class PendingLoad:
    """A pause-tier load asked for and not done yet: the model (a directory or repo id), whether it runs without
    `mx.compile` (its first compile is not marked done: first_compile.py), and the future the load resolves."""

    spec: str
    allow_download: bool
    eager: bool
    done: Future = field(default_factory=Future)


@dataclass(eq=False)
class Provider:
    """One tier's model and everything kept for it."""

    tier: Tier
    drafts: DraftBook
    lm: LoadedModel | None = None
    decoder: DecodeModel | None = None
    caches: CacheStore | None = None
    load_error: str | None = None
    compiled: bool = True  # its steps run `mx.compile`d (first_compile.py)
    warmed: WarmPlan | None = None  # what it was warmed up for (or is, when idle)
    pending: PendingLoad | None = None  # the pause tier: a load queued for when the worker is idle
    asked: PendingLoad | None = None  # the pause tier: the load last asked for (None: no pause tier)

    @property
    def ready(self) -> bool:
        return self.lm is not None and self.decoder is not None and self.caches is not None

    def unload(self) -> None:
        """Forget the model and its caches (the budget they shared is freed)."""
        if self.caches is not None:
            self.caches.budget.leave(self.tier)
        self.lm = self.decoder = self.caches = None
        self.warmed = None


class EngineParts(Protocol):
    """What of the engine (facade.py) its tiers' helpers use: its settings, worker, budget and providers."""

    settings: EngineSettings
    scheduler: Scheduler
    budget: CacheBudget
    keystroke: Provider
    pause: Provider
    tiers: dict[Tier, Provider]
    pause_loads: PauseLoads

    @property
    def compiled(self) -> bool: ...

    def pause_info(self) -> ModelInfo | None: ...


def stepped_with(enter: Callable[[], None], leave: Callable[[], None],
                 steps: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """`steps` (a step coroutine), with `enter()` before and `leave()` after each time it runs: the pause tier's
    steps run with its own compile state (`mx.compile` on or off is process-wide)."""
    value: Any = None
    error: BaseException | None = None
    while True:
        enter()
        try:
            work = steps.throw(error) if error is not None else steps.send(value)
        except StopIteration as end:
            return end.value
        finally:
            leave()
        try:
            value, error = (yield work), None
        except GeneratorExit:
            enter()
            try:
                steps.close()
            finally:
                leave()
            raise
        except BaseException as exc:  # noqa: BLE001 - thrown into the steps, as the scheduler threw it here
            value, error = None, exc


class CompileSwitch:
    """A context in which `mx.compile` is off if `eager`, else as the keystroke tier runs it (the switch is
    process-wide: the keystroke tier's state is restored on leaving)."""

    def __init__(self, engine: EngineParts, eager: bool) -> None:
        self.engine = engine
        self.eager = eager
        self.switch = eager != (not engine.compiled)

    def __enter__(self) -> None:
        if self.switch:
            use_compile(not self.eager)

    def __exit__(self, *_exc: object) -> None:
        self.leave()

    def leave(self) -> None:
        if self.switch:
            use_compile(self.engine.compiled)


class PauseLoads:
    """The pause tier's load and warm-up (on the worker): asked for by a control call, done as idle work after
    the keystroke model's first answer, or at once by the first pause-tier job that finds it still waiting (that
    job runs only when no keystroke job waits). Its steps run uncompiled while its first compile is not marked
    done (`eager`), so a cold machine never builds the pause model's compiled code in front of a keystroke."""

    def __init__(self, engine: EngineParts) -> None:
        self.engine = engine

    @property
    def pause(self) -> Provider:
        return self.engine.pause

    def ask(self, pending: PendingLoad | None) -> None:
        """Drop the pause tier's model and queue `pending` (None: no pause tier)."""
        p = self.pause
        p.unload()
        p.load_error = None
        if pending is None:
            if p.pending is not None and not p.pending.done.done():
                p.pending.done.set_result(None)
            p.pending = p.asked = None
            return
        self.queue(pending)

    def again(self) -> None:
        """Load the pause tier's model again (the keystroke model moved or changed: the device and the drafts it
        shares go with it)."""
        asked, p = self.pause.asked, self.pause
        if asked is not None and p.lm is not None:
            p.unload()
            self.queue(PendingLoad(asked.spec, asked.allow_download, not p.compiled))

    def queue(self, pending: PendingLoad) -> None:
        p = self.pause
        previous = p.pending
        p.pending = p.asked = pending
        if previous is not None and previous is not pending and not previous.done.done():
            previous.done.set_result(None)  # superseded: the newer ask answers for both
        self.engine.scheduler.when_idle(lambda: self.load() and False)

    def load(self) -> bool:
        """Load the pending model, then queue its warm-up; True once the pause tier is there."""
        p, pending, engine = self.pause, self.pause.pending, self.engine
        if pending is None:
            return p.ready
        p.pending = None
        try:
            with CompileSwitch(engine, pending.eager):
                lm = load_model(pending.spec, pending.allow_download)
        except Exception as exc:  # noqa: BLE001 - the tier stays off; the front tells the user
            p.load_error = str(exc) if isinstance(exc, ModelLoadError) else f"{type(exc).__name__}: {exc}"
            log.error("pause-tier model not loaded: %s", p.load_error)
            pending.done.set_exception(exc if isinstance(exc, ModelLoadError) else ModelLoadError(p.load_error))
            return False
        k = engine.keystroke
        # The same vocabulary: the keystroke model's answers are drafts for the pause tier's (and back).
        same_vocabulary = k.lm is not None and k.lm.token_texts == lm.token_texts
        p.drafts = k.drafts if same_vocabulary else DraftBook(engine.settings.draft_tokens)
        p.lm, p.decoder, p.compiled, p.load_error, p.warmed = lm, decode_model(lm.model), not pending.eager, None, None
        p.caches = CacheStore(lm.model, int(engine.settings.cache_budget_mb * 2**20), Tier.PAUSE, engine.budget)
        log.info("pause-tier model %s loaded (%.1fM params, %s%s) in %.0f ms", lm.name, lm.n_params / 1e6,
                 lm.dtype, "" if p.compiled else "; uncompiled until its first compile is marked done",
                 lm.timings["load_ms"])
        self.warm()
        pending.done.set_result(engine.pause_info())
        return True

    def warm(self) -> None:
        """Queue the pause tier's warm-up (its pending load first) as idle work."""
        p, engine = self.pause, self.engine
        if p.pending is not None:
            engine.scheduler.when_idle(lambda: self.load() and False)
            return
        lm = p.lm
        if lm is None:
            return
        plan = engine.settings.warm_plan(device_defaults(mlx_device_kind()).fixed_shapes)
        if plan == p.warmed:
            return
        p.warmed = plan
        # Fixed shapes are fixed once, before the tier's first job: all at once (one piece of idle work).
        pieces: Iterator[str] = _at_once(lm, plan) if plan.fixed else warm_pieces(lm, plan)

        def piece() -> bool:
            if p.lm is not lm:
                return False
            with CompileSwitch(engine, not p.compiled):
                return next(pieces, None) is not None

        engine.scheduler.when_idle(piece)


def _at_once(lm: LoadedModel, plan: WarmPlan) -> Iterator[str]:
    warm_up(lm, plan)
    yield "warmed up"
