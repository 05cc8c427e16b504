"""The single-worker scheduler with fake jobs (no model): latest-wins, fairness, bounds, background, debounce."""

from __future__ import annotations

import threading
import time

import pytest

from laya_lsp.engine.decoding.decode import Cancelled
from laya_lsp.engine.scheduling.scheduler import Job, Scheduler


class Gate:
    """A job body that blocks until released, checking its cancel token like prefill does."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, job: Job) -> str:
        self.started.set()
        while not self.release.wait(0.005):
            job.token.check()
        return job.key


def make(key: str, run=None, **kw) -> Job:
    return Job(key=key, run=run or (lambda j: j.key), on_drop=lambda j, reason: reason, **kw)


@pytest.fixture
def sched():
    s = Scheduler(max_queue=4)
    yield s
    s.stop()
    s.join(2)


def test_runs_jobs_in_arrival_order_across_documents(sched: Scheduler):
    gate = Gate()
    blocker = sched.submit(make("busy", gate))
    gate.started.wait(2)
    order: list[str] = []
    jobs = [sched.submit(make(k, lambda j: order.append(j.key) or j.key)) for k in ("a", "b", "c")]
    gate.release.set()
    assert [j.future.result(2) for j in jobs] == ["a", "b", "c"]
    assert order == ["a", "b", "c"] and blocker.future.result(2) == "busy"


def test_newer_job_supersedes_queued_and_running_for_the_same_document(sched: Scheduler):
    gate = Gate()
    running = sched.submit(make("doc", gate))
    gate.started.wait(2)
    queued = sched.submit(make("doc"))
    newest = sched.submit(make("doc"))
    assert queued.future.result(2) == "superseded"
    assert running.future.result(2) == "superseded", "the running job stops at its next check"
    assert newest.future.result(2) == "doc"


def test_queue_is_bounded_dropping_the_oldest(sched: Scheduler):
    gate = Gate()
    sched.submit(make("busy", gate))
    gate.started.wait(2)
    jobs = [sched.submit(make(f"d{i}")) for i in range(6)]
    gate.release.set()
    results = [j.future.result(2) for j in jobs]
    assert results[:2] == ["dropped", "dropped"] and results[2:] == ["d2", "d3", "d4", "d5"]
    assert sched.dropped == 2


def test_cancel_queued_and_running(sched: Scheduler):
    gate = Gate()
    running = sched.submit(make("r", gate))
    gate.started.wait(2)
    queued = sched.submit(make("q"))
    sched.cancel(queued)
    assert queued.future.result(1) == "cancelled"
    sched.cancel(running)
    assert running.future.result(2) == "cancelled"


def test_background_work_yields_and_is_cancelled_by_real_work(sched: Scheduler):
    gate = Gate()
    bg = sched.submit(make("bg", gate, background=True))
    gate.started.wait(2)
    real = sched.submit(make("real"))
    assert bg.future.result(2) == "cancelled"
    assert real.future.result(2) == "real"
    # Queued background work waits while real work is queued.
    gate2 = Gate()
    sched.submit(make("busy", gate2))
    gate2.started.wait(2)
    order: list[str] = []
    b2 = sched.submit(make("bg2", lambda j: order.append("bg2") or "bg2", background=True))
    r2 = sched.submit(make("r2", lambda j: order.append("r2") or "r2"))
    gate2.release.set()
    assert r2.future.result(2) == "r2"
    assert b2.future.result(2) == "cancelled" and order == ["r2"]


def test_debounce_waits_unless_the_probe_says_the_job_is_nearly_free(sched: Scheduler):
    slow = sched.submit(make("a", debounce_s=0.3, probe=lambda j: False))
    slow.future.result(2)
    assert slow.debounced_s == pytest.approx(0.3)
    assert slow.started is not None and slow.ready_at is not None and slow.started >= slow.ready_at
    fast = sched.submit(make("b", debounce_s=0.3, probe=lambda j: True))
    fast.future.result(2)
    assert fast.debounced_s == 0 and fast.ready_at == fast.created


def test_a_superseded_debounce_never_runs(sched: Scheduler):
    ran: list[int] = []
    first = sched.submit(make("a", lambda j: ran.append(1), debounce_s=0.2, probe=lambda j: False))
    second = sched.submit(make("a", lambda j: ran.append(2), debounce_s=0.0))
    assert first.future.result(2) == "superseded"
    second.future.result(2)
    assert ran == [2]


def test_control_calls_run_before_queued_jobs(sched: Scheduler):
    gate = Gate()
    sched.submit(make("busy", gate))
    gate.started.wait(2)
    order: list[str] = []
    job = sched.submit(make("j", lambda j: order.append("job")))
    call = sched.call(lambda: order.append("control"))
    gate.release.set()
    call.result(2)
    job.future.result(2)
    assert order == ["control", "job"]


def test_a_failing_job_does_not_kill_the_worker(sched: Scheduler):
    def boom(job: Job) -> None:
        raise RuntimeError("model exploded")

    bad = sched.submit(make("x", boom))
    with pytest.raises(RuntimeError, match="exploded"):
        bad.future.result(2)
    assert sched.submit(make("y")).future.result(2) == "y"


def test_drop_without_callback_raises_cancelled():
    s = Scheduler(max_queue=1)
    try:
        gate = Gate()
        s.submit(Job(key="busy", run=gate))
        gate.started.wait(2)
        old = s.submit(Job(key="a", run=lambda j: "a"))
        s.submit(Job(key="b", run=lambda j: "b"))
        with pytest.raises(Cancelled):
            old.future.result(2)
        gate.release.set()
    finally:
        s.stop()
        s.join(2)


def test_control_calls_never_hang_after_stop():
    s = Scheduler()
    gate = Gate()
    s.submit(Job(key="busy", run=gate))
    gate.started.wait(2)
    pending = s.call(lambda: "never")
    s.stop()
    gate.release.set()
    with pytest.raises(Cancelled):
        pending.result(2)
    with pytest.raises(Cancelled):
        s.call(lambda: "late").result(2)
    s.join(2)


# -- stepped jobs: several documents in flight, their work batched per round ------------------------------------
class Batcher:
    """A `batch` function that records each round's work and answers each item with its work doubled."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.rounds: list[list[str]] = []
        self.fail_on = fail_on

    def __call__(self, work: list[str]) -> list[str]:
        if self.fail_on in work:
            raise RuntimeError(f"cannot compute {self.fail_on}")
        self.rounds.append(list(work))
        return [w * 2 for w in work]


def stepped(key: str, steps: int, log: list[str] | None = None, label: str = "", **kw) -> Job:
    """A job whose coroutine asks for `steps` pieces of work named after its key and returns their answers."""

    def run(job: Job):
        got = []
        if log is not None and label:
            log.append(f"start {label}")
        try:
            for i in range(steps):
                job.token.check()
                got.append((yield f"{job.key}{i}"))
        finally:
            if log is not None:
                log.append(f"closed {label or job.key}")
        return got

    return make(key, run, **kw)


def held(sched: Scheduler) -> threading.Event:
    """Hold the worker (in a control call) until the returned event is set, so submitted jobs queue up."""
    gate = threading.Event()
    entered = threading.Event()
    sched.call(lambda: entered.set() or gate.wait(5))
    entered.wait(2)
    return gate


def test_stepped_jobs_of_different_documents_share_each_round(sched: Scheduler):
    sched.batch = batch = Batcher()
    gate = held(sched)
    jobs = [sched.submit(stepped(k, 3)) for k in ("a", "b", "c")]
    gate.set()
    assert [j.future.result(2) for j in jobs] == [[f"{k}{i}" * 2 for i in range(3)] for k in ("a", "b", "c")]
    assert batch.rounds == [["a0", "b0", "c0"], ["a1", "b1", "c1"], ["a2", "b2", "c2"]]
    assert [j.shared_steps for j in jobs] == [3, 3, 3]


def test_at_most_max_in_flight_stepped_jobs_at_once():
    s = Scheduler(max_queue=8, max_in_flight=2)
    try:
        s.batch = batch = Batcher()
        gate = held(s)
        jobs = [s.submit(stepped(k, 2)) for k in ("a", "b", "c")]
        gate.set()
        assert all(j.future.result(2) for j in jobs)
        assert max(len(r) for r in batch.rounds) == 2
        assert batch.rounds[:2] == [["a0", "b0"], ["a1", "b1"]] and ["c0"] in batch.rounds
    finally:
        s.stop()
        s.join(2)


def test_a_new_job_supersedes_a_stepped_job_in_flight(sched: Scheduler):
    """The running document's coroutine is closed at the next round (its clean-up runs) and answered superseded."""
    log: list[str] = []
    computing, release = threading.Event(), threading.Event()

    def slow_batch(work: list[str]) -> list[str]:
        computing.set()
        release.wait(2)
        return list(work)

    sched.batch = slow_batch
    old = sched.submit(stepped("doc", 50, log))
    computing.wait(2)  # the old job is in flight, its first step being computed
    new = sched.submit(stepped("doc", 1, log))
    release.set()
    assert old.future.result(2) == "superseded"
    assert new.future.result(2) == ["doc0"]
    assert log == ["closed doc", "closed doc"]


def test_a_failing_work_item_fails_only_its_own_job(sched: Scheduler):
    sched.batch = Batcher(fail_on="bad0")
    gate = held(sched)
    good, bad = sched.submit(stepped("good", 2)), sched.submit(stepped("bad", 2))
    gate.set()
    assert good.future.result(2) == ["good0" * 2, "good1" * 2]
    with pytest.raises(RuntimeError, match="cannot compute bad0"):
        bad.future.result(2)


def test_background_stepped_work_waits_for_real_work_in_flight(sched: Scheduler):
    sched.batch = batch = Batcher()
    gate = held(sched)
    real = sched.submit(stepped("real", 2))
    bg = sched.submit(stepped("bg", 1, background=True))
    gate.set()
    assert real.future.result(2) and bg.future.result(2) == ["bg0" * 2]
    assert batch.rounds == [["real0"], ["real1"], ["bg0"]], "background work never shares a round with real work"


def test_stop_answers_stepped_jobs_in_flight():
    s = Scheduler()
    release = threading.Event()
    s.batch = lambda work: release.wait(2) and list(work)
    job = s.submit(stepped("doc", 50))
    s.stop()
    release.set()
    assert job.future.result(2) == "shutdown"
    s.join(2)


def test_a_superseded_stepped_job_is_closed_before_its_successor_starts(sched: Scheduler):
    """Two jobs of one document never work on its cache at once: the old one's clean-up runs first."""
    sched.batch = Batcher()
    log: list[str] = []
    gate = held(sched)
    old = sched.submit(stepped("doc", 10**6, log, label="old"))
    gate.set()
    deadline = time.monotonic() + 30  # only catches a hang
    while not sched.batch.rounds:  # the old job is in flight
        assert time.monotonic() < deadline, "the old job never started"
        time.sleep(0.001)
    new = sched.submit(stepped("doc", 2, log, label="new"))
    assert old.future.result(2) == "superseded" and new.future.result(2)
    assert log.index("closed old") < log.index("start new"), log


def test_idle_work_runs_piece_by_piece_after_the_first_answer_and_yields_to_jobs(sched: Scheduler):
    order: list[str] = []
    pieces: list[int] = []
    started, release = threading.Event(), threading.Event()

    def piece() -> bool:
        pieces.append(len(pieces) + 1)
        order.append(f"piece {len(pieces)}")
        if len(pieces) == 1:
            started.set()
            release.wait(5)
        return len(pieces) < 3

    sched.when_idle(piece)
    first = sched.submit(make("a", lambda j: order.append("first") or j.key))  # idle work waits for an answer
    assert first.future.result(2) == "a"
    assert started.wait(2), "idle work never ran after the first answer"
    job = sched.submit(make("b", lambda j: order.append("job") or j.key))  # arrives during a piece
    release.set()
    assert job.future.result(2) == "b"
    for _ in range(400):  # bounded: the worker is idle again, the last pieces run
        if len(pieces) == 3:
            break
        time.sleep(0.005)
    sched.call(lambda: None).result(2)
    assert order == ["first", "piece 1", "job", "piece 2", "piece 3"], "a job waits for one piece at most"
