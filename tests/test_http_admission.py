"""The HTTP front's admission, without a server: slots, the bounded line, hand-off, clients leaving the line."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

import pytest

from laya_lsp.http.admission import Admission, ClientGone, QueueFull


async def never() -> bool:
    return False


async def test_slots_then_a_bounded_line_then_queue_full():
    a = Admission(max_in_flight=2, max_queue=1)
    s1, s2 = await a.acquire(never), await a.acquire(never)
    waiter = asyncio.ensure_future(a.acquire(never))
    await asyncio.sleep(0.05)
    assert (a.in_flight, a.waiting) == (2, 1) and not waiter.done()
    a.typical_ms = lambda: 400.0
    with pytest.raises(QueueFull) as exc:
        await a.acquire(never)
    assert exc.value.retry_after == 2 and a.rejected == 1  # 3 ahead x 0.4 s, rounded up
    s1.close()  # handed to the waiter: still 2 in flight
    s3 = await asyncio.wait_for(waiter, 1)
    assert (a.in_flight, a.waiting) == (2, 0)
    s2.close()
    s3.close()
    s3.close()  # idempotent
    assert a.in_flight == 0


async def test_a_bound_slot_is_released_when_its_job_finishes_on_another_thread():
    a = Admission(max_in_flight=1, max_queue=0)
    slot = await a.acquire(never)
    job: Future = Future()
    slot.bind(job)
    slot.close()  # the request ends, its job still runs: the slot stays taken
    assert a.in_flight == 1
    await asyncio.to_thread(job.set_result, None)
    await asyncio.sleep(0.05)
    assert a.in_flight == 0


async def test_a_client_that_leaves_the_line_frees_its_place():
    a = Admission(max_in_flight=1, max_queue=2)
    held = await a.acquire(never)
    gone = asyncio.Event()

    async def disconnected() -> bool:
        return gone.is_set()

    leaving = asyncio.ensure_future(a.acquire(disconnected))
    staying = asyncio.ensure_future(a.acquire(never))
    await asyncio.sleep(0.05)
    gone.set()
    with pytest.raises(ClientGone):
        await asyncio.wait_for(leaving, 1)
    assert a.waiting == 1 and a.disconnected == 1
    held.close()
    (await asyncio.wait_for(staying, 1)).close()
    assert (a.in_flight, a.waiting) == (0, 0)
