"""Admission for the HTTP front: at most `max_in_flight` requests hold engine work, `max_queue` more wait, the
rest are refused (429) at once.

The engine's scheduler runs one job at a time and, when its own queue is full, drops its oldest job: right for
an editor (the oldest keystroke is stale), wrong for independent HTTP clients. So the HTTP layer never gives
the scheduler more than it holds (`max_in_flight` <= the scheduler's queue bound) and queues the rest itself,
in arrival order, where a client that goes away simply leaves the line.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Future

from ..orchestrator import POLL_S, ClientGone

__all__ = ["Admission", "ClientGone", "QueueFull", "Slot"]


class QueueFull(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__("the server is busy: too many requests in flight and queued")
        self.retry_after = retry_after


class Slot:
    """One admitted request's hold on the engine. Released once: when its job finishes, or by `close`."""

    def __init__(self, admission: Admission) -> None:
        self._admission = admission
        self._released = False
        self._bound = False

    def bind(self, fut: Future) -> None:
        """Keep the slot until `fut` (a job's future, resolved on the worker thread) is done."""
        self._bound = True
        loop = asyncio.get_running_loop()
        fut.add_done_callback(lambda _f: loop.call_soon_threadsafe(self.release))

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._admission.release()

    def close(self) -> None:
        """End of the request: release unless a job still holds the slot."""
        if not self._bound:
            self.release()


class Admission:
    """Counts requests holding engine work; used from the event loop thread only."""

    def __init__(self, max_in_flight: int, max_queue: int) -> None:
        self.max_in_flight = max(1, max_in_flight)
        self.max_queue = max(0, max_queue)
        self.in_flight = 0
        self.rejected = 0
        self.disconnected = 0
        self._waiting: deque[asyncio.Future] = deque()
        self.typical_ms: Callable[[], float] = lambda: 1000.0

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the work ahead of a new request at the typical request time."""
        ahead = self.in_flight + self.waiting
        return max(1, math.ceil(ahead * max(self.typical_ms(), 1.0) / 1000.0))

    async def acquire(self, disconnected: Callable[[], Awaitable[bool]]) -> Slot:
        """A slot now, a place in line, or QueueFull; ClientGone if the client leaves while waiting."""
        if self.in_flight < self.max_in_flight and not self._waiting:
            self.in_flight += 1
            return Slot(self)
        if len(self._waiting) >= self.max_queue:
            self.rejected += 1
            raise QueueFull(self.retry_after())
        turn: asyncio.Future = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            while not turn.done():
                await asyncio.wait([turn], timeout=POLL_S)
                if not turn.done() and await disconnected():
                    self.disconnected += 1
                    raise ClientGone()
        except BaseException:
            if turn in self._waiting:
                self._waiting.remove(turn)
            elif turn.done() and not turn.cancelled():
                self.release()  # the slot was handed to us just as we left: pass it on
            raise
        return Slot(self)

    def release(self) -> None:
        """Hand the slot to the next waiter (the in-flight count stays), or free it."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.in_flight -= 1
