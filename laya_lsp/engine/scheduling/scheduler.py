"""One inference worker that owns MLX: per-document latest-wins, debounce, a bounded fair queue, cancellation,
and jobs of different documents sharing one batched step.

Jobs for different documents start in arrival order (each document has at most one queued job, so a busy
document cannot starve the others). A new job for a document supersedes the queued one and cancels the
running one. Control calls (load a model, drop a cache) run before any queued job. Idle work (warm-up left for
later) runs a piece at a time when nothing else waits, once a real job has been answered.

A job whose `run` returns a step coroutine (decode.py) is *stepped*: up to `max_in_flight` of them are in flight
at once, and each round the worker hands the work they ask for to `batch` in one call (one model step for all
of them) and sends each its result, instead of running one job to its end before the next starts.
"""

from __future__ import annotations

import inspect
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from ..decoding.decode import Cancelled, CancelToken

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    """A unit of model work for one document.

    `run` returns the job's result, or a step coroutine whose return value is the result (a stepped job).
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
    shared_steps: int = 0  # rounds in which its work was computed in one batch with other jobs' work
    # Background work (speculation, warm-up) runs only when no real job waits, and any real job cancels it.
    background: bool = False

    def cancel(self, reason: str = "cancelled") -> None:
        self.token.cancel(reason)


@dataclass(eq=False)
class _InFlight:
    """A stepped job between rounds: its coroutine and the work it asked for (None: nothing to batch)."""

    job: Job
    steps: Generator[Any, Any, Any]
    work: Any = None


# `_next` answers this when no new job can start and stepped jobs are in flight: run a round.
_ROUND = object()
# `_next` answers this when nothing waits, nothing runs and idle work is left: run one piece of it.
_IDLE = object()


class Scheduler:
    """Runs jobs on a single worker thread (MLX is used from that thread only).

    `batch` computes a list of stepped jobs' work items in one call and returns their results in order; the
    engine sets it when a model is loaded.
    """

    def __init__(self, max_queue: int = 4, name: str = "laya-inference", max_in_flight: int = 4) -> None:
        self.max_queue = max(1, max_queue)
        self.max_in_flight = max(1, max_in_flight)
        self.batch: Callable[[list[Any]], list[Any]] | None = None
        self._cond = threading.Condition()
        self._queue: deque[Job] = deque()
        self._control: deque[tuple[Callable[[], Any], Future]] = deque()
        self._running: list[Job] = []  # started and not finished (stepped jobs in flight, or the one running)
        self._flights: list[_InFlight] = []  # the worker's own list of stepped jobs in flight
        self._idle: deque[Callable[[], bool]] = deque()
        # Idle work waits for the first real job to be answered: before it, the worker is idle because the front
        # is still starting (its imports), and idle work would compete with them for the interpreter.
        self._served = False
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
                for running in self._running:
                    if running.background:
                        running.cancel("cancelled")
            for old in [j for j in self._queue if j.key == job.key]:
                self._queue.remove(old)
                self.superseded += 1
                self._finish(old, reason="superseded")
            for running in self._running:
                if running.key == job.key:
                    running.cancel("superseded")
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
        """Run `fn` on the worker before any queued job (between rounds of stepped jobs); returns its future."""
        fut: Future = Future()
        with self._cond:
            if self._stopped:
                # The worker is gone (or going): nobody would ever run it.
                fut.set_exception(Cancelled("shutdown"))
                return fut
            self._control.append((fn, fut))
            self._cond.notify()
        return fut

    def when_idle(self, piece: Callable[[], bool]) -> None:
        """Run `piece` on the worker when no job or control call waits or runs, once a real job has been answered;
        it does a small piece of work and returns True while more is left (it is then called again, when idle
        again). A job that arrives meanwhile waits for one piece at most."""
        with self._cond:
            self._idle.append(piece)
            self._cond.notify()

    def run_idle_work(self) -> None:
        """Run all the idle work left, now (on the worker: from a control call)."""
        while True:
            with self._cond:
                if not self._idle:
                    return
            self._idle_piece()

    def drop_idle(self) -> None:
        """Forget the idle work not done yet (it was for a model that is being replaced)."""
        with self._cond:
            self._idle.clear()

    def running_key(self) -> str | None:
        """The document of the oldest job in flight."""
        with self._cond:
            return self._running[0].key if self._running else None

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
            for running in self._running:
                running.cancel("cancelled")
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

    def _next(self) -> Any:
        """Pick the next control call, probe, job to start or round to run; None means stop. Waits as needed."""
        with self._cond:
            while True:
                if self._control:
                    return self._control.popleft()
                if self._stopped:
                    return None
                now = time.perf_counter()
                unprobed = next((j for j in self._queue if j.ready_at is None), None)
                if unprobed is not None:
                    return ("probe", unprobed)
                ready = None
                if len(self._running) < self.max_in_flight:
                    ready = next((j for j in self._queue if not j.background and j.ready_at is not None
                                  and j.ready_at <= now), None)
                    # Background work starts only when no real job waits or runs.
                    idle = not any(not j.background for j in [*self._queue, *self._running])
                    if ready is None and idle:
                        ready = next((j for j in self._queue if j.ready_at is not None and j.ready_at <= now), None)
                if ready is not None:
                    self._queue.remove(ready)
                    self._running.append(ready)
                    return ready
                if self._flights:
                    return _ROUND
                if self._idle and self._served and not self._queue and not self._running:
                    return _IDLE
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
                for flight in list(self._flights):
                    flight.steps.close()
                    self._done(flight.job, Cancelled("shutdown"))
                self._flights.clear()
                return
            if item is _ROUND:
                self._round()
            elif item is _IDLE:
                self._idle_piece()
            elif isinstance(item, tuple) and item[0] == "probe":
                self._probe(item[1])
            elif isinstance(item, tuple):
                fn, fut = item
                try:
                    fut.set_result(fn())
                except BaseException as exc:  # noqa: BLE001 - reported through the future
                    fut.set_exception(exc)
            else:
                self._start(item)

    def _idle_piece(self) -> None:
        with self._cond:
            if not self._idle:  # dropped meanwhile
                return
            piece = self._idle[0]
        try:
            more = piece()
        except Exception:  # idle work is an optimisation: its failure is logged, never raised
            log.exception("idle work failed")
            more = False
        with self._cond:
            if not more and self._idle and self._idle[0] is piece:
                self._idle.popleft()

    def _start(self, job: Job) -> None:
        """Run a job, or, when it turns out stepped, advance its coroutine to the first work it asks for."""
        self._reap()  # a job it superseded must be closed before it touches the same document's cache
        job.started = time.perf_counter()
        job.debounced_s = max(0.0, (job.ready_at or job.created) - job.created)
        try:
            if job.token.cancelled:
                raise Cancelled(job.token.reason)
            result = job.run(job)
        except BaseException as exc:  # noqa: BLE001 - answered through the job
            self._done(job, exc)
            return
        if inspect.isgenerator(result):
            flight = _InFlight(job, result)
            self._flights.append(flight)
            self._advance(flight, None)
        else:
            self._done(job, result)

    def _round(self) -> None:
        """One step for every stepped job in flight: their work computed in one `batch` call, results sent back."""
        self._reap()
        flights = list(self._flights)
        asking = [f for f in flights if f.work is not None]
        results: dict[int, Any] = {}
        if asking:
            if self.batch is None:
                raise RuntimeError("stepped jobs ask for work but the scheduler has no `batch` function")
            try:
                outs = self.batch([f.work for f in asking])
                results = {id(f): out for f, out in zip(asking, outs)}
                if len(asking) > 1:
                    for f in asking:
                        f.job.shared_steps += 1
            except Exception:  # noqa: BLE001 - find whose work failed: each alone, the failure to its owner
                for f in asking:
                    try:
                        results[id(f)] = self.batch([f.work])[0]
                    except Exception as exc:  # noqa: BLE001
                        results[id(f)] = exc
        for f in flights:
            self._advance(f, results.get(id(f)))

    def _reap(self) -> None:
        """Close the stepped jobs cancelled since the last round (their clean-up runs now): cancelled work is never
        computed, and the next job for their document starts from a cache they no longer use."""
        for flight in [f for f in self._flights if f.job.token.cancelled]:
            flight.steps.close()
            self._flights.remove(flight)
            self._done(flight.job, Cancelled(flight.job.token.reason))

    def _advance(self, flight: _InFlight, result: Any) -> None:
        """Send a stepped job its result (an exception is thrown into it); it asks for more work or ends."""
        job = flight.job
        try:
            if job.token.cancelled:
                raise Cancelled(job.token.reason)
            if isinstance(result, BaseException):
                flight.work = flight.steps.throw(result)
            else:
                flight.work = flight.steps.send(result)  # (None starts it, and answers a chunk it ran alone)
            return
        except StopIteration as end:
            outcome: Any = end.value
        except BaseException as exc:  # noqa: BLE001 - answered through the job
            flight.steps.close()
            outcome = exc
        self._flights.remove(flight)
        self._done(job, outcome)

    def _done(self, job: Job, outcome: Any) -> None:
        """Answer a job that ran: its result, its cancellation (or a late supersede) or its failure."""
        with self._cond:
            if job in self._running:
                self._running.remove(job)
        if isinstance(outcome, Cancelled):
            self._finish(job, outcome.reason)
        elif isinstance(outcome, BaseException):
            log.error("inference job failed", exc_info=outcome)
            if not job.future.done():
                job.future.set_exception(outcome)
        elif job.token.cancelled:
            # Finished just as it was superseded: its text is for an older document version.
            self._finish(job, job.token.reason)
        elif not job.future.done():
            job.future.set_result(outcome)
        if not job.background:
            with self._cond:
                self._served = True
