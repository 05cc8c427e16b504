"""One inference worker that owns MLX: per-document latest-wins, debounce, a bounded fair queue, cancellation.

Jobs for different documents run in arrival order (each document has at most one queued job, so a busy
document cannot starve the others). A new job for a document supersedes the queued one and cancels the
running one. Control calls (load a model, drop a cache) run before any queued job.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .decode import Cancelled, CancelToken

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    """A unit of model work for one document.

    `probe` runs in the worker when the job first reaches the queue front and returns True when the job is
    nearly free (the document's cache covers almost all of it), which skips the debounce delay.
    """

    key: str
    run: Callable[[Job], Any]
    debounce_s: float = 0.0
    probe: Callable[[Job], bool] | None = None
    on_drop: Callable[[Job, str], Any] | None = None
    token: CancelToken = field(default_factory=CancelToken)
    future: Future = field(default_factory=Future)
    created: float = field(default_factory=time.perf_counter)
    started: float | None = None
    ready_at: float | None = None
    debounced_s: float = 0.0
    prepared: Any = None
    # Background work (speculation, warm-up) runs only when no real job waits, and any real job cancels it.
    background: bool = False

    def cancel(self, reason: str = "cancelled") -> None:
        self.token.cancel(reason)


class Scheduler:
    """Runs jobs on a single worker thread (MLX is used from that thread only)."""

    def __init__(self, max_queue: int = 4, name: str = "laya-inference") -> None:
        self.max_queue = max(1, max_queue)
        self._cond = threading.Condition()
        self._queue: deque[Job] = deque()
        self._control: deque[tuple[Callable[[], Any], Future]] = deque()
        self._running: Job | None = None
        self._stopped = False
        self.dropped = 0
        self.superseded = 0
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    # -- called from any thread --------------------------------------------------------------------------
    def submit(self, job: Job) -> Job:
        """Queue `job`, superseding older work for the same document; a real job cancels background work."""
        with self._cond:
            if self._stopped:
                self._finish(job, reason="shutdown")
                return job
            if not job.background:
                for bg in [j for j in self._queue if j.background]:
                    self._queue.remove(bg)
                    self._finish(bg, reason="cancelled")
                if self._running is not None and self._running.background:
                    self._running.cancel("cancelled")
            for old in [j for j in self._queue if j.key == job.key]:
                self._queue.remove(old)
                self.superseded += 1
                self._finish(old, reason="superseded")
            if self._running is not None and self._running.key == job.key:
                self._running.cancel("superseded")
            while len(self._queue) >= self.max_queue:
                # Background work goes first, then the oldest real job.
                oldest = next((j for j in self._queue if j.background), self._queue[0])
                self._queue.remove(oldest)
                self.dropped += 1
                self._finish(oldest, reason="dropped")
            self._queue.append(job)
            self._cond.notify()
        return job

    def cancel(self, job: Job) -> None:
        """Cancel a job: a queued one is answered at once, a running one stops at its next check."""
        with self._cond:
            if job in self._queue:
                self._queue.remove(job)
                self._finish(job, reason="cancelled")
                return
        job.cancel("cancelled")

    def call(self, fn: Callable[[], Any]) -> Future:
        """Run `fn` on the worker before any queued job; returns its future."""
        fut: Future = Future()
        with self._cond:
            if self._stopped:
                # The worker is gone (or going): nobody would ever run it.
                fut.set_exception(Cancelled("shutdown"))
                return fut
            self._control.append((fn, fut))
            self._cond.notify()
        return fut

    def running_key(self) -> str | None:
        job = self._running
        return job.key if job else None

    def queued(self) -> int:
        with self._cond:
            return len(self._queue)

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            while self._queue:
                self._finish(self._queue.popleft(), reason="shutdown")
            while self._control:
                _fn, fut = self._control.popleft()
                if not fut.done():
                    fut.set_exception(Cancelled("shutdown"))
            if self._running is not None:
                self._running.cancel("cancelled")
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    # -- worker ------------------------------------------------------------------------------------------
    @staticmethod
    def _finish(job: Job, reason: str) -> None:
        """Answer a job that will not (or did not fully) run. The drop callback runs even when the caller
        already gave up on the future (an asyncio wrapper cancels it), so every request is accounted for."""
        job.token.cancel(reason)
        outcome: Any = Cancelled(reason)
        if job.on_drop is not None:
            try:
                outcome = job.on_drop(job, reason)
            except Exception as exc:
                log.exception("drop callback failed")
                outcome = exc
        if job.future.done():
            return
        if isinstance(outcome, BaseException):
            job.future.set_exception(outcome)
        else:
            job.future.set_result(outcome)

    def _next(self) -> tuple[Callable[[], Any], Future] | Job | None:
        """Pick the next control call or ready job; None means stop. Waits as needed."""
        with self._cond:
            while True:
                if self._control:
                    return self._control.popleft()
                if self._stopped:
                    return None
                now = time.perf_counter()
                unprobed = next((j for j in self._queue if j.ready_at is None), None)
                if unprobed is not None:
                    return ("probe", unprobed)  # type: ignore[return-value]
                ready = next((j for j in self._queue if not j.background and j.ready_at is not None
                              and j.ready_at <= now), None)
                if ready is None and not any(not j.background for j in self._queue):
                    ready = next((j for j in self._queue if j.ready_at is not None and j.ready_at <= now), None)
                if ready is not None:
                    self._queue.remove(ready)
                    self._running = ready
                    return ready
                wake = min((j.ready_at for j in self._queue if j.ready_at is not None), default=None)
                self._cond.wait(None if wake is None else max(wake - now, 0.0005))

    def _probe(self, job: Job) -> None:
        free = False
        try:
            free = bool(job.probe(job)) if job.probe else False
        except Exception:
            log.exception("probe failed")
        with self._cond:
            job.ready_at = job.created if (free or job.debounce_s <= 0) else job.created + job.debounce_s

    def _loop(self) -> None:
        while True:
            item = self._next()
            if item is None:
                return
            if isinstance(item, tuple) and item[0] == "probe":
                self._probe(item[1])
                continue
            if isinstance(item, tuple):
                fn, fut = item
                try:
                    fut.set_result(fn())
                except BaseException as exc:  # noqa: BLE001 - reported through the future
                    fut.set_exception(exc)
                continue
            job = item
            job.started = time.perf_counter()
            job.debounced_s = max(0.0, (job.ready_at or job.created) - job.created)
            try:
                if job.token.cancelled:
                    raise Cancelled(job.token.reason)
                result = job.run(job)
                if job.token.cancelled:
                    # Finished just as it was superseded: its text is for an older document version.
                    raise Cancelled(job.token.reason)
                if not job.future.done():
                    job.future.set_result(result)
            except Cancelled as exc:
                self._finish(job, exc.reason)
            except BaseException as exc:
                log.exception("inference job failed")
                if not job.future.done():
                    job.future.set_exception(exc)
            finally:
                with self._cond:
                    self._running = None
