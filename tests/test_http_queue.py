"""Admission and cancellation on a real `laya-lsp http`: with slow requests (long prompts, 8-token prefill
chunks) at most 4 hold engine work, 2 more wait, the rest get 429 + Retry-After at once; a client that closes its
connection has its work cancelled, in the HTTP queue, in the scheduler's queue and mid-prefill."""

from __future__ import annotations

import select
import time

import pytest
from httphelpers import HttpServer, raw_request, read_status, wait_idle

from laya_lsp.engine.decoding.adapter import MAX_TAIL_ROWS  # a prefill run to its end caches all but these

# Trigger rules off: every request runs the model (the tests count prefilled tokens); post-processing stays on.
SLOW = {"triggerRules": False, "prefillChunk": 8, "contextTokens": 4096, "speculative": False, "typedThrough": False,
        "warmUp": False, "debounceMs": 0}


def long_text(i: int) -> str:
    return f"# file {i}\n" + "".join(f"def f{i}_{k}(x):\n    return x * {k} + {i}\n" for k in range(240))


@pytest.fixture(scope="module")
def server():
    s = HttpServer("--max-queue", "2", settings=SLOW)
    yield s
    s.close()


def test_full_queue_answers_429_with_retry_after_and_disconnects_cancel_everything(server):
    socks = [raw_request(server, "/v1/complete", {"text": long_text(i)}) for i in range(9)]
    refused = []
    deadline = time.monotonic() + 10
    while len(refused) < 3 and time.monotonic() < deadline:
        ready, _, _ = select.select([s for s in socks if s not in refused], [], [], 0.5)
        for s in ready:
            head = read_status(s, 1.0)
            assert head is not None and head[0] == 429, head
            assert int(head[1]["retry-after"]) >= 1
            refused.append(s)
    assert len(refused) == 3, "4 in flight + 2 queued: the other 3 of 9 are refused"
    with server.client() as c:
        h = c.get("/v1/stats").json()["http"]
        # (A request that already finished handed its slot to one in line: in flight stays 4.)
        assert h["inFlight"] == 4 and h["waiting"] <= 2 and h["rejected"] == 3, h
        for s in socks:
            s.close()  # every client goes away: nothing of theirs may keep running
        st = wait_idle(c)
        mine = [r for r in st["recent"] if r["doc"].startswith("http:")]
        finished = sum(r["status"] == "ok" for r in mine)
        assert all(r["status"] in ("ok", "cancelled") for r in mine), mine
        assert st["http"]["disconnected"] + finished == 6
        assert any(r["status"] == "cancelled" for r in mine), "the running request is cancelled mid-prefill"
        assert st["queue"]["dropped"] == 0  # the scheduler never had to drop admitted work
        assert c.post("/v1/complete", json={"text": "def g(x):\n    return"}).json()["status"] == "ok"


def test_disconnect_mid_prefill_cancels_and_keeps_the_prefilled_part(server):
    with server.client() as c:
        s = raw_request(server, "/v1/complete", {"text": long_text(99), "session": "gone"})
        t0 = time.monotonic()
        # Close once the engine reports the prefill under way: part of the prompt cached, most of it not (a
        # prefill of ~3,000 tokens in 8-token chunks: hundreds of chunks left to stop in).
        while not ((q := c.get("/v1/stats").json()["queue"])["running"] == "session:gone" and q["runningTokens"]):
            assert time.monotonic() - t0 < 10, "the request never started prefilling"
            time.sleep(0.01)  # the polling interval, not a guess at timing
        seen = q["runningTokens"]
        s.close()
        st = wait_idle(c, timeout=60)  # generous: catches work that never ends (the reuse below shows it stopped)
        rec = [r for r in st["recent"] if r["doc"] == "session:gone"]
        assert len(rec) == 1 and rec[0]["status"] == "cancelled" and rec[0]["decode_tokens"] == 0
        docs = {d["uri"]: d["cacheBytes"] for d in st["documents"]}
        assert docs.get("session:gone", 0) > 0, "the prefilled part of the cache is kept for the next request"
        # and the next request of the session starts from it: at least what was prefilled when the client left,
        # not all (a prefill that ran on to the end after the disconnect would have cached all of it)
        again = c.post("/v1/complete", json={"text": long_text(99), "session": "gone"}, timeout=120).json()
        stats = again["stats"]
        assert again["status"] == "ok" and seen <= stats["reused_tokens"] < stats["prompt_tokens"] - MAX_TAIL_ROWS, (
            seen,
            stats,
        )
