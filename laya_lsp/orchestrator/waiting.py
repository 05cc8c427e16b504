"""How a request waits: for the model to finish loading (and warming up: on a GPU its kernels compile), and
for its engine job (cancellable).

Both fronts wait the same way. What differs is given by a `Caller`: the HTTP front keeps its admission slot
until a job resolves (`hold`), notices a client that went away (`gone`, polled while waiting) and answers 503
when the model is still loading after MODEL_WAIT_S; an editor's request waits for the model as long as it takes,
shown as $/progress (`shown`), until `$/cancelRequest` cancels the handler's task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from ..engine import Engine, Job, Status
from .records import Kind, Records, RequestStats, Source

POLL_S = 0.02  # how often a waiting request checks that its client is still there
# For a caller that gives up itself (an HTTP client's timeout): long enough for a large model on a busy machine;
# past it the request is answered "model loading" (the client asks again).
MODEL_WAIT_S = 30.0
MODEL_LOADING = "model loading"


class ClientGone(Exception):
    """The caller went away while its request waited; its engine work was cancelled."""


class NotReady(Exception):
    """No model can answer: it is still loading (`loading`), or the load failed (the message says why)."""

    def __init__(self, reason: str, loading: bool) -> None:
        super().__init__(reason)
        self.loading = loading


class ModelFailed(Exception):
    """The model's work failed on the server's side (the cause is logged; the message is what a client sees)."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"the model failed on this {kind} request; the server's log has the details")
        self.kind = kind


class Superseded(Exception):
    """The request's engine work ended without a result (`status`: cancelled, superseded or dropped)."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class Caller:
    """What the front asks of waiting: `hold(future)` for every engine job started for the request, `gone()`
    polled every POLL_S while waiting (True: the client left); `until_loaded`: a request that comes while the
    model loads waits until it is there, the client's cancel bounding it (else MODEL_WAIT_S); `shown()`:
    entered while it waits for the model (the LSP front shows the wait as $/progress)."""

    hold: Callable[[Future], None] | None = None
    gone: Callable[[], Awaitable[bool]] | None = None
    until_loaded: bool = False
    shown: Callable[[], AbstractAsyncContextManager[Any]] | None = None


async def wait_job(engine: Engine, job: Job, caller: Caller, cancel: bool = True) -> Any:
    """The job's result. Cancels the job (queued: at once; running: at its next check) when the client goes
    away or the waiting task is cancelled, unless `cancel` is False (a job another request shares)."""
    # asyncio.wait never cancels what it waits on: cancelling a wrap_future() wrapper would cancel the job's
    # future itself, answering another request that shares the job.
    fut = asyncio.wrap_future(job.future)
    try:
        while True:
            done, _ = await asyncio.wait([fut], timeout=POLL_S if caller.gone else None)
            if done:
                return fut.result()
            if caller.gone is not None and await caller.gone():
                if cancel:
                    engine.cancel(job)
                raise ClientGone()
    except asyncio.CancelledError:
        if cancel:
            engine.cancel(job)
        raise


class ModelGate:
    """Whether the engine's model can answer; a request that arrives while a model loads waits for the load."""

    def __init__(self, engine: Engine, records: Records) -> None:
        self.engine = engine
        self.records = records
        self._load: Future | None = None

    def loading(self, load: Future) -> None:
        """A model load started (or will: resolve `load` when it is done); requests wait for it."""
        self._load = load

    @property
    def busy(self) -> bool:
        """A load is in progress."""
        return self._load is not None and not self._load.done()

    async def refusal(self, doc_id: str, kind: Kind, caller: Caller | None = None) -> RequestStats | None:
        """None once a model can answer. Else the request's recorded refusal: status "loading" (the model still
        loads after MODEL_WAIT_S, for a caller that does not wait until it is loaded) or "error" (the load
        failed), with the reason in `error`."""
        caller = caller or Caller()
        shown = caller.shown() if self.busy and caller.shown is not None else contextlib.nullcontext()
        async with shown:
            reason = await self.wait(None if caller.until_loaded else MODEL_WAIT_S)
        if reason is None:
            return None
        status = Status.LOADING if self.busy else Status.ERROR
        return self.records.plain(doc_id, kind, Source.NONE, "no model", status, error=reason)

    async def wait(self, bound: float | None) -> str | None:
        """None when a model can answer now; else why not: MODEL_LOADING (still loading after `bound`
        seconds; None: as long as it takes) or the load's error."""
        load = self._load
        if load is not None and not load.done():
            loop = asyncio.get_running_loop()
            loaded = asyncio.Event()

            def wake(_load: Future) -> None:
                try:
                    loop.call_soon_threadsafe(loaded.set)
                except RuntimeError:
                    pass  # the event loop closed meanwhile (shutting down): nobody waits any more

            load.add_done_callback(wake)
            try:
                await asyncio.wait_for(loaded.wait(), bound)
            except asyncio.TimeoutError:
                return MODEL_LOADING
        if self.engine.model_info() is not None:
            return None
        return self.engine.load_error or "no model loaded"
