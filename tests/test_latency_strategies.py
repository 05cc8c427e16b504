"""The latency strategies (laya_lsp/orchestrator/latency/), one by one, against a fake engine: what each keeps
per document, when it answers, what background work it queues, and that closing a document drops it all.
The same tricks through the real server: test_latency_tricks.py, test_first_line_first.py."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from laya_lsp.config import FallbackSettings, Settings
from laya_lsp.engine import (
    Candidate,
    CompletionRequest,
    CompletionResult,
    Job,
    ModelInfo,
    PauseState,
    Status,
    Tier,
    Timings,
)
from laya_lsp.orchestrator import Completion, CompletionFlow, Suggestion
from laya_lsp.orchestrator.answers import Cleaned, clean
from laya_lsp.orchestrator.latency import (
    Ask,
    Background,
    FirstLineFirst,
    HandOff,
    SharedJob,
    Speculation,
    Ticket,
    TypedThrough,
    WarmUp,
)
from laya_lsp.orchestrator.records import Kind, Records, RequestStats, Source, StatsBook
from laya_lsp.orchestrator.waiting import ModelGate
from laya_lsp.syntax import CompletionPlan, SyntaxDocument

INFO = ModelInfo("fake", "", 0, "float32", "starcoder", "psm", repo_level=False)
ONE_LINE = CompletionPlan(True, "test")
BLOCK = CompletionPlan(True, "test block", multiline=True, max_lines=4)


class FakeEngine:
    """The engine facade's completion half: records requests; `reply(request)` gives a job's raw candidates at
    once (None: the job keeps running until the test finishes it)."""

    def __init__(self, reply: Callable[[CompletionRequest], list[str] | None] = lambda _r: None) -> None:
        self.reply = reply
        self.requests: list[CompletionRequest] = []
        self.prefills: list[CompletionRequest] = []
        self.jobs: list[Job] = []
        self.closed: list[str] = []
        self.info: ModelInfo | None = INFO
        self.load_error: str | None = None
        self.pause: ModelInfo | None = None  # a pause tier (its requests come with tier=Tier.PAUSE)

    def _job(self, req: CompletionRequest) -> Job:
        job = Job(req.doc_id, run=lambda _job: None, background=req.background)
        self.jobs.append(job)
        texts = self.reply(req)
        if texts is not None:
            finish(job, *texts)
        return job

    def complete(self, req: CompletionRequest) -> Job:
        self.requests.append(req)
        return self._job(req)

    def prefill(self, req: CompletionRequest) -> Job:
        self.prefills.append(req)
        return self._job(req)

    def model_info(self) -> ModelInfo | None:
        return self.info

    def pause_info(self) -> ModelInfo | None:
        return self.pause

    def pause_state(self) -> PauseState:
        return PauseState.LOADED if self.pause is not None else PauseState.NONE

    def cancel(self, job: Job) -> None:
        job.cancel()

    def close_document(self, doc_id: str) -> None:
        self.closed.append(doc_id)


def finish(job: Job, *texts: str) -> None:
    job.future.set_result(CompletionResult([Candidate(t, -0.1 * i, 3) for i, t in enumerate(texts)], Timings()))


def _settings(**changes: Any) -> Callable[[], Settings]:
    s = replace(Settings(), debounce_ms=0, **changes)
    return lambda: s


def _request_for(doc_id: str, doc: SyntaxDocument, offset: int, kind: str, plan: CompletionPlan,
                 version: int | None, debounce: bool, background: bool = False, source: str = "model",
                 candidates: int | None = None, lines: int | None = None) -> CompletionRequest:
    return CompletionRequest(doc_id, doc.text, offset, kind, candidates, max_lines=lines or plan.max_lines,
                             background=background, source=source)


def _raw(doc: SyntaxDocument, offset: int, plan: CompletionPlan, result: CompletionResult) -> Cleaned:
    return clean(doc, offset, plan, result, None)


def _parts(engine: FakeEngine) -> tuple[Records, Background]:
    records = Records(StatsBook())
    return records, Background(engine, records, _request_for, _raw)  # type: ignore[arg-type]


def _ask(doc: SyntaxDocument, offset: int | None = None, *, doc_id: str = "doc", kind: Kind = Kind.COMPLETION,
         remember: bool = True, typing: bool = False, wanted: int = 2) -> Ask:
    return Ask(doc_id, doc, len(doc.text) if offset is None else offset, kind, remember, typing, wanted)


def _answer(*texts: str, plan: CompletionPlan = ONE_LINE, result: CompletionResult | None = None) -> Completion:
    return Completion([Suggestion(t, -0.1) for t in texts], RECORD, plan, result)


RECORD = RequestStats(0, "doc", Kind.COMPLETION, Source.MODEL, Timings(), Status.OK)  # an answer's booked record


async def _settle(background: Background) -> None:
    """Wait for the background tasks, which must end: a job the test never finishes fails it."""
    for _ in range(10):
        if not background.tasks:
            return
        done, pending = await asyncio.wait(background.tasks, timeout=2)
        assert not pending, f"background work left waiting: {pending}"
        for task in done:
            failure = None if task.cancelled() else task.exception()
            if failure is not None:
                raise failure
    raise AssertionError("background work keeps starting more")


PY = SyntaxDocument("def area(w, h):\n    return ", "python", "file:///area.py")


# -- typed-through -------------------------------------------------------------------------------------------------
def test_typed_through_serves_the_rest_of_the_shown_answer_without_a_run():
    records, _ = _parts(FakeEngine())
    typed = TypedThrough(_settings(), records)
    typed.answered(_ask(PY), _answer("w * h", "w + h", "h"), Ticket(ONE_LINE))
    ticket = typed.early(_ask(PY.with_text(PY.text + "w *")))
    assert ticket is not None and ticket.immediate is not None and ticket.job is None
    assert [s.text for s in ticket.immediate.suggestions] == [" h"]  # "w + h" no longer fits; "h" never did
    assert ticket.immediate.stats.source.value == "typed-through" and ticket.plan is ONE_LINE


def test_typed_through_answers_nothing_past_the_answer_or_after_another_edit():
    records, _ = _parts(FakeEngine())
    typed = TypedThrough(_settings(), records)
    typed.answered(_ask(PY), _answer("w * h"), Ticket(ONE_LINE))
    assert typed.early(_ask(PY.with_text(PY.text + "w * h"))) is None  # typed all of it: nothing left
    assert typed.early(_ask(PY.with_text(PY.text + "x"))) is None  # typed past it
    assert typed.early(_ask(PY.with_text(PY.text + "w\n"), len(PY.text) + 1)) is None  # the suffix changed
    assert typed.early(_ask(PY.with_text("# edited\n" + PY.text + "w"))) is None  # an edit above the cursor
    assert TypedThrough(_settings(typed_through=False), records).early(_ask(PY)) is None
    typed.closed("doc")
    assert typed.held() == set() and typed.early(_ask(PY.with_text(PY.text + "w"))) is None


# -- speculation ---------------------------------------------------------------------------------------------------
def _speculation(engine: FakeEngine, **settings: Any) -> tuple[Speculation, Background, list[SyntaxDocument]]:
    records, background = _parts(engine)
    planned: list[SyntaxDocument] = []

    def plan(doc: SyntaxDocument, offset: int) -> CompletionPlan:
        planned.append(doc)
        return ONE_LINE

    return Speculation(_settings(**settings), records, background, plan), background, planned


async def test_speculation_answers_the_text_with_the_top_line_accepted():
    engine = FakeEngine(lambda r: ["if w else 0"] if r.source == "speculative" else None)
    spec, background, _ = _speculation(engine)
    spec.answered(_ask(PY), _answer("w * h \n    pass", "w + h"), Ticket(ONE_LINE))
    [req] = engine.requests
    assert (req.text, req.offset) == (PY.text + "w * h ", len(PY.text) + 6)  # the top line (not the next) accepted
    assert req.background and req.source == req.kind == "speculative"
    await _settle(background)
    accepted = PY.with_text(PY.text + "w * h ")
    ticket = spec.early(_ask(accepted))
    assert ticket is not None and ticket.immediate is not None
    assert [s.text for s in ticket.immediate.suggestions] == ["if w else 0"]
    assert ticket.immediate.stats.source.value == "speculative"
    assert spec.early(_ask(PY)) is None  # only at the accepted text


async def test_speculation_starts_from_what_ghost_text_shows_of_a_cut_suggestion():
    """Ghost text shows a suggestion only as far as it is sure: the person can accept that part, not the rest, so
    speculation accepts the cut part; an answer ghost text withholds whole starts none."""
    engine = FakeEngine()
    spec, background, _ = _speculation(engine, min_confidence=0.5)
    cut = Suggestion("w * h + 1", -0.1, confidence=0.8, cut_at=5)
    spec.answered(_ask(PY, kind=Kind.INLINE), Completion([cut], RECORD, ONE_LINE), Ticket(ONE_LINE))
    [req] = engine.requests
    assert req.text == PY.text + "w * h"  # not the unsure "+ 1"
    spec.answered(_ask(PY, kind=Kind.COMPLETION), Completion([cut], RECORD, ONE_LINE), Ticket(ONE_LINE))
    assert engine.requests[-1].text == PY.text + "w * h + 1"  # a list item is inserted whole
    unsure = Suggestion("w * h + 1", -0.1, confidence=0.2)
    spec.answered(_ask(PY, kind=Kind.INLINE), Completion([unsure], RECORD, ONE_LINE), Ticket(ONE_LINE))
    assert len(engine.requests) == 2  # nothing shown: nothing to accept
    for job in engine.jobs:
        finish(job)
    await _settle(background)


async def test_speculation_plans_the_hypothetical_text_in_the_document_s_language():
    """An HTTP session's document id is no file name: the copy with the line accepted must keep the language
    the document was opened with (it was planned as plain text before)."""
    engine = FakeEngine()
    spec, background, planned = _speculation(engine)
    session_doc = SyntaxDocument(PY.text, "python", "session:42")
    spec.answered(_ask(session_doc, doc_id="session:42"), _answer("w * h"), Ticket(ONE_LINE))
    assert [d.language for d in planned] == ["python"]
    finish(engine.jobs[0])
    await _settle(background)


def test_speculation_waits_for_the_block_and_skips_typed_through_answers_or_when_off():
    engine = FakeEngine()
    spec, _background, _ = _speculation(engine)
    spec.answered(_ask(PY), _answer("w * h"), Ticket(ONE_LINE, block=True))
    spec.answered(_ask(PY), _answer("w * h"), Ticket(ONE_LINE, typed="w"))
    off, _bg, _ = _speculation(engine, speculative=False)
    off.answered(_ask(PY), _answer("w * h"), Ticket(ONE_LINE))
    assert engine.requests == []


async def test_a_speculation_finishing_after_close_is_dropped():
    engine = FakeEngine()
    spec, background, _ = _speculation(engine)
    spec.answered(_ask(PY), _answer("w * h"), Ticket(ONE_LINE))
    assert spec.held() == {"doc"}
    spec.closed("doc")
    finish(engine.jobs[0], "if w else 0")
    await _settle(background)
    assert spec.held() == set() and spec.early(_ask(PY.with_text(PY.text + "w * h"))) is None


# -- sharing a running job -----------------------------------------------------------------------------------------
def test_a_request_typed_along_a_running_job_shares_it():
    shared = SharedJob(_settings())
    job = Job("doc", run=lambda _job: None)
    shared.started(_ask(PY, wanted=2), Ticket(BLOCK, job=job, block=True))
    ticket = shared.early(_ask(PY.with_text(PY.text + "w *"), wanted=2))
    assert ticket is not None and ticket.job is job and ticket.shared and ticket.typed == "w *" and ticket.block
    assert shared.early(_ask(PY.with_text(PY.text + "w *"), wanted=3)) is None  # it runs for fewer candidates
    assert shared.early(_ask(PY.with_text("#\n" + PY.text))) is None  # not typed at the cursor
    job.cancel()
    assert shared.early(_ask(PY.with_text(PY.text + "w"))) is None  # superseded: cannot be shared
    shared.closed("doc")
    assert shared.held() == set()


def test_a_finished_or_forgettable_job_is_not_shared():
    shared = SharedJob(_settings())
    job = Job("doc", run=lambda _job: None)
    shared.started(_ask(PY, remember=False), Ticket(ONE_LINE, job=job))
    assert shared.held() == set()  # a one-off request's run serves nobody else
    shared.started(_ask(PY), Ticket(ONE_LINE, job=job))
    finish(job, "w * h")
    assert shared.early(_ask(PY.with_text(PY.text + "w"))) is None  # done: the typed-through store answers
    assert SharedJob(_settings(typed_through=False)).early(_ask(PY)) is None


# -- first line first ----------------------------------------------------------------------------------------------
def _first_line(engine: FakeEngine, **settings: Any) -> tuple[FirstLineFirst, TypedThrough, Background]:
    records, background = _parts(engine)
    s = _settings(**settings)
    typed = TypedThrough(s, records)
    spec = Speculation(s, records, background, lambda _doc, _offset: ONE_LINE)
    return FirstLineFirst(s, background, typed, spec), typed, background


def test_first_line_first_asks_one_line_only_of_a_typing_request_for_a_block():
    first, _typed, _bg = _first_line(FakeEngine())
    assert first.lines(_ask(PY, typing=True), BLOCK) == 1
    assert first.lines(_ask(PY, typing=False), BLOCK) is None  # an explicit request waits for the block
    assert first.lines(_ask(PY, typing=True, remember=False), BLOCK) is None  # nobody would get the block
    assert first.lines(_ask(PY, typing=True), ONE_LINE) is None
    off, _t, _b = _first_line(FakeEngine(), first_line_first=False)
    assert off.lines(_ask(PY, typing=True), BLOCK) is None


async def test_the_block_replaces_its_first_line_then_speculation_starts_from_it():
    engine = FakeEngine(lambda r: {"block": ["w * h\n    pass"], "speculative": ["# next"]}.get(r.source))
    first, typed, background = _first_line(engine)
    ask = _ask(PY, typing=True)
    raw = CompletionResult([Candidate("w * h", 0.0, 2), Candidate("w + h", -1.0, 2)], Timings())
    shown = _answer("w * h", plan=BLOCK, result=raw)
    ticket = Ticket(BLOCK, block=True)
    typed.answered(ask, shown, ticket)
    first.answered(ask, shown, ticket)
    [block_req] = engine.requests
    assert block_req.source == "block" and block_req.background and block_req.candidates == 2
    assert block_req.max_lines == BLOCK.max_lines
    await _settle(background)
    again = typed.early(_ask(PY.with_text(PY.text + "w")))
    assert again is not None and again.immediate is not None
    assert [s.text for s in again.immediate.suggestions] == [" * h\n    pass"]
    assert [r.source for r in engine.requests] == ["block", "speculative"]
    assert engine.requests[1].text == PY.text + "w * h"  # the block's top line accepted


async def test_a_block_arriving_after_the_user_moved_on_is_dropped():
    engine = FakeEngine()
    first, typed, background = _first_line(engine)
    ask = _ask(PY, typing=True)
    shown = _answer("w * h", plan=BLOCK)
    typed.answered(ask, shown, Ticket(BLOCK, block=True))
    first.answered(ask, shown, Ticket(BLOCK, block=True))
    moved = _ask(PY.with_text(PY.text + "x"))
    typed.answered(moved, _answer("y"), Ticket(ONE_LINE))  # a newer answer, elsewhere
    finish(engine.jobs[0], "w * h\n    pass")
    await _settle(background)
    assert typed.at("doc") == (moved.prefix, moved.suffix)
    assert [r.source for r in engine.requests] == ["block"]  # and no speculation from a stale block


def test_no_block_after_a_typed_through_answer_or_a_full_run():
    engine = FakeEngine()
    first, _typed, _bg = _first_line(engine)
    first.answered(_ask(PY), _answer("w * h", plan=BLOCK), Ticket(BLOCK, block=True, typed="w"))
    first.answered(_ask(PY), _answer("w * h", plan=BLOCK), Ticket(BLOCK))
    assert engine.requests == [] and first.held() == set()


# -- warm-up -------------------------------------------------------------------------------------------------------
def _warm_up(engine: FakeEngine, gate: ModelGate | None = None, **settings: Any) -> tuple[WarmUp, Background]:
    records, background = _parts(engine)
    return WarmUp(_settings(**settings), engine, gate or ModelGate(engine, records), records,  # type: ignore[arg-type]
                  background), background


def test_warm_up_prefills_on_open_and_focus_without_decoding():
    engine = FakeEngine()
    warm, _bg = _warm_up(engine)
    warm.opened("doc", PY)
    warm.warm("doc", PY, 10)
    assert [(r.offset, r.kind, r.background) for r in engine.prefills] == [(0, "warm-up", True), (10, "warm-up", True)]
    assert engine.requests == []
    off, _b = _warm_up(engine, warm_up=False)
    off.opened("doc", PY)
    engine.info = None
    warm.opened("doc", PY)  # no model and none loading: nothing to warm
    assert len(engine.prefills) == 2


async def test_warm_up_while_loading_waits_for_the_model_and_close_cancels_it():
    engine = FakeEngine()
    gate = ModelGate(engine, Records(StatsBook()))
    load: Future = Future()
    gate.loading(load)
    warm, background = _warm_up(engine, gate)
    warm.opened("a", PY)
    warm.opened("b", PY)
    await asyncio.sleep(0)
    assert warm.held() == {"a", "b"} and engine.prefills == []
    warm.closed("b")
    load.set_result(None)
    await _settle(background)
    assert [r.doc_id for r in engine.prefills] == ["a"] and warm.held() == set()


# -- the flow: every strategy's state goes with its document ------------------------------------------------------
def _complete_replies(req: CompletionRequest) -> list[str] | None:
    if req.source == "model" and req.text.endswith("x"):
        return None  # a request typed further: its run keeps going (shared, then closed)
    return {"model": ["os.getcwd()"], "speculative": [" + '/'"]}.get(req.source)


async def test_closing_a_document_drops_what_every_strategy_held():
    engine = FakeEngine(_complete_replies)
    records = Records(StatsBook())
    gate = ModelGate(engine, records)
    flow = CompletionFlow(engine, _settings(), gate, records)  # type: ignore[arg-type]
    text = "import os\n\n\ndef main():\n    value = "
    doc = SyntaxDocument(text, "python", "file:///main.py")
    flow.opened("main", doc)
    answer = await flow.complete("main", doc, len(text), Kind.COMPLETION)
    assert answer is not None and [s.text for s in answer.suggestions] == ["os.getcwd()"]
    await asyncio.sleep(0.05)  # the speculation is cleaned and kept on the event loop
    typed_on = doc.with_text("import os\n\nx = 1\n\ndef main():\n    value = x")
    running = asyncio.ensure_future(flow.complete("main", typed_on, len(typed_on.text), Kind.COMPLETION))
    await asyncio.sleep(0.05)
    load: Future = Future()
    gate.loading(load)
    flow.warm("main", doc, 5)  # waits for the model being loaded
    await asyncio.sleep(0)
    held = {type(s).__name__: s.held() for s in flow.strategies}
    assert held == {"HandOff": set(), "PauseTier": set(), "TypedThrough": {"main"}, "Speculation": {"main"},
                    "SharedJob": {"main"}, "FirstLineFirst": set(), "WiderLater": set(), "WarmUp": {"main"}}, held
    assert flow.tracked() == 1
    flow.closed("main")
    assert flow.tracked() == 0 and all(not s.held() for s in flow.strategies)
    assert engine.closed == ["main"]
    finish(engine.jobs[-1], "1")
    load.set_result(None)
    await running
    await asyncio.sleep(0.05)
    assert flow.tracked() == 0 and len(engine.prefills) == 1  # the warm-up waiting for the load went with it


async def test_closing_a_document_cancels_its_hand_off():
    silent = socket.socket()  # accepts connections (the kernel does) but never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    try:
        engine = FakeEngine(_complete_replies)
        records = Records(StatsBook())
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        settings = _settings(fallback=FallbackSettings(url=url, completions="always", deadline_ms=600000))
        flow = CompletionFlow(engine, settings, ModelGate(engine, records), records)  # type: ignore[arg-type]
        text = "import os\n\n\ndef main():\n    value = "
        doc = SyntaxDocument(text, "python", "file:///main.py")
        await flow.complete("main", doc, len(text), "completion")
        handoff = flow.strategies[0]
        assert isinstance(handoff, HandOff) and handoff.held() == {"main"}
        task = handoff.asked["main"].task
        assert task is not None
        await asyncio.sleep(0.05)
        assert not task.done()  # the silent server holds it
        flow.closed("main")
        assert handoff.held() == set()
        await asyncio.wait({task})
        assert task.cancelled()
    finally:
        silent.close()


async def test_a_sure_answer_is_not_handed_off():
    engine = FakeEngine(_complete_replies)
    records = Records(StatsBook())
    url = "http://127.0.0.1:9"  # never reached: nothing is asked
    settings = _settings(fallback=FallbackSettings(url=url, completions="unsure"), min_confidence=0.0)
    flow = CompletionFlow(engine, settings, ModelGate(engine, records), records)  # type: ignore[arg-type]
    text = "import os\n\n\ndef main():\n    value = "
    doc = SyntaxDocument(text, "python", "file:///main.py")
    answer = await flow.complete("main", doc, len(text), "completion")
    assert answer is not None and answer.suggestions and not answer.unsure
    assert flow.strategies[0].held() == set()


# -- the pause tier ---------------------------------------------------------------------------------------------
PAUSE_INFO = ModelInfo("pause-fake", "", 0, "float32", "starcoder", "psm", repo_level=False)
UNSURE_TEXT = "def main():\n    value = "


def _pause_flow(pause_reply: Callable[[CompletionRequest], list[str] | None], **settings: Any) -> tuple[
        CompletionFlow, FakeEngine, Records]:
    """A flow whose keystroke model answers "1" (never calibrated: sure) and whose pause tier `pause_reply`s."""
    def reply(req: CompletionRequest) -> list[str] | None:
        return pause_reply(req) if req.tier is Tier.PAUSE else ["1"]

    engine = FakeEngine(reply)
    engine.pause = PAUSE_INFO
    records = Records(StatsBook())
    s = {"speculative": False, "warm_up": False, "first_line_first": False, "wider_candidates": 0, **settings}
    return CompletionFlow(engine, _settings(**s), ModelGate(engine, records), records), engine, records  # type: ignore[arg-type]


async def test_an_unsure_keystroke_answer_is_answered_by_the_pause_tier_in_the_same_response():
    # "[" fails the syntax checks: the keystroke answer is blank, so unsure.
    flow, engine, records = _pause_flow(lambda _r: ["total(values)"])
    engine.reply = lambda r: ["total(values)"] if r.tier is Tier.PAUSE else ["]"]
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///u.py")
    answer = await flow.complete("u", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert answer is not None and [x.text for x in answer.suggestions] == ["total(values)"]
    assert answer.stats.source is Source.PAUSE and answer.stats.extra["tier"] == "pause"
    assert [r.tier for r in engine.requests] == [Tier.KEYSTROKE, Tier.PAUSE]
    assert engine.requests[1].background
    runs = [r for r in records.book.recent() if r.kind is Kind.PAUSE]
    assert len(runs) == 1 and runs[0].source is Source.PAUSE  # the run's own record (its engine cost)
    # The next request at the same text is answered from it at once, no model run.
    again = await flow.complete("u", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert again is not None and [x.text for x in again.suggestions] == ["total(values)"]
    assert again.stats.source is Source.PAUSE and len(engine.requests) == 2


async def test_a_completion_list_never_waits_for_the_pause_tier():
    """The list is asked for at every keystroke: an unsure one stays the keystroke model's, at its latency."""
    flow, engine, _records = _pause_flow(lambda _r: ["total(values)"])
    engine.reply = lambda r: ["total(values)"] if r.tier is Tier.PAUSE else ["]"]
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///list.py")
    answer = await flow.complete("list", doc, len(UNSURE_TEXT), Kind.COMPLETION, version=1)
    assert answer is not None and "total(values)" not in [x.text for x in answer.suggestions]
    assert [r.tier for r in engine.requests] == [Tier.KEYSTROKE]


async def test_a_sure_keystroke_answer_never_runs_the_pause_tier():
    flow, engine, _records = _pause_flow(lambda _r: ["total(values)"])
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///s.py")
    answer = await flow.complete("s", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert answer is not None and [x.text for x in answer.suggestions] == ["1"]
    assert answer.stats.source is Source.MODEL and [r.tier for r in engine.requests] == [Tier.KEYSTROKE]


async def test_past_its_deadline_the_keystroke_answer_stands_and_the_late_answer_serves_the_next_request():
    flow, engine, _records = _pause_flow(lambda _r: None, pause=replace(Settings().pause, deadline_ms=20))
    engine.reply = lambda r: None if r.tier is Tier.PAUSE else ["]"]
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///l.py")
    answer = await flow.complete("l", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert answer is not None and answer.suggestions == [] and answer.stats.extra["pause"] == "late"
    finish(engine.jobs[-1], "total(values)")  # the pause tier answers late
    await asyncio.sleep(0.05)
    again = await flow.complete("l", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert again is not None and [x.text for x in again.suggestions] == ["total(values)"]


async def test_a_keystroke_cancels_the_pause_run_and_its_answer_never_reaches_the_new_version():
    flow, engine, _records = _pause_flow(lambda _r: None)
    engine.reply = lambda r: None if r.tier is Tier.PAUSE else ["]"]
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///c.py")
    asked = asyncio.ensure_future(flow.complete("c", doc, len(UNSURE_TEXT), Kind.INLINE, version=1))
    await asyncio.sleep(0.05)
    pause_job = engine.jobs[-1]
    flow.changed("c")  # the user typed on
    assert pause_job.token.cancelled
    await asyncio.sleep(0)
    answer = await asyncio.wait_for(asyncio.shield(asked), 5)
    assert answer is not None and answer.stats.source is Source.MODEL and answer.stats.extra["pause"] == "cancelled"
    typed = doc.with_text(UNSURE_TEXT + "x")
    again = await flow.complete("c", typed, len(typed.text), Kind.INLINE, version=2)
    assert again is not None and again.stats.source is not Source.PAUSE


async def test_no_pause_tier_gives_todays_answer():
    flow, engine, _records = _pause_flow(lambda _r: ["total(values)"])
    engine.pause = None
    engine.reply = lambda r: ["]"]
    doc = SyntaxDocument(UNSURE_TEXT, "python", "file:///n.py")
    answer = await flow.complete("n", doc, len(UNSURE_TEXT), Kind.INLINE, version=1)
    assert answer is not None and answer.suggestions == [] and answer.stats.source is Source.MODEL
    assert [r.tier for r in engine.requests] == [Tier.KEYSTROKE] and "pause" not in answer.stats.extra
