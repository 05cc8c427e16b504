"""The pause tier: where the keystroke model's ghost text is unsure (nothing passed the checks, or it was cut
short or withheld below `minConfidence`: `unsure`), the engine's pause-tier model answers the same position at the
same document version, in the same response. Completion lists never wait for it: the editor asks for them at
every keystroke, and their keystroke latency stays what it was.

The request waits for it up to `pause.deadlineMs`. Its answer is cleaned by the same post-processing and syntax
checks, cut under the pause model's own calibration (confidence.json by its weights' fingerprint) at
`pause.minConfidence` (below 0: that calibration's threshold, else the `minConfidence` default), and shown only
if some of it passes that cut; otherwise, or past the deadline, the keystroke answer stands. A run that ends after
its deadline is kept, like the hand-off's answer, and serves the next request at the same text (`early`). The
next keystroke (`changed`), a closed document or the request's own cancellation ($/cancelRequest) cancels the
run; a run cancelled by another document's keystroke job (the pause tier yields to every one: engine tiers.py)
is asked again, keeping what it prefilled. A confident keystroke answer never asks. Each run books its own
record (kind `pause`, its engine cost); the request it answered is booked with source `pause`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...config import Settings
from ...engine import CompletionResult, Engine, Job, PauseState, Status, Tier
from ...syntax import CompletionPlan
from ...text_enum import TextEnum
from ..answers import Cleaned, Completion, clean
from ..confidence import Calibration, calibration_for
from ..records import Kind, Records, Source
from ..waiting import Caller, wait_job
from .background import RequestFor
from .base import Ask, LatencyStrategy, Opinion, Ticket
from .handoff import unsure
from .typed_through import TypedThrough

log = logging.getLogger(__name__)

# A run cancelled by other documents' keystroke jobs is asked again this often at most (each keeps its prefill).
RETRIES = 8
DEFAULT_THRESHOLD = Settings().min_confidence  # the `minConfidence` default, for a pause model never calibrated


class Outcome(TextEnum):
    """What became of a pause-tier run (in the request's record, `extra.pause`)."""

    ANSWERED = "answered"  # its answer is shown
    UNSURE = "unsure"  # its answer did not pass the syntax checks or its confidence cut: the keystroke one stands
    LATE = "late"  # past `pause.deadlineMs`: the keystroke answer stands; the run goes on for the next request
    FAILED = "failed"  # no pause-tier model, or its run failed
    CANCELLED = "cancelled"


def pause_threshold(s: Settings, calibration: Calibration | None) -> float:
    """Where the pause tier's answers are cut (0 with post-processing off: raw lines are never cut)."""
    if not s.postprocess:
        return 0.0
    if s.pause.min_confidence >= 0:
        return s.pause.min_confidence
    return calibration.threshold if calibration is not None else DEFAULT_THRESHOLD


@dataclass
class _Run:
    """A pause-tier run for one document version: its task, its engine job and, once it arrived, its answer."""

    prefix: str
    suffix: str
    version: int | None
    task: asyncio.Task | None = None
    job: Job | None = None
    answer: Cleaned | None = None
    outcome: Outcome | None = None

    def at(self, ask: Ask) -> bool:
        same_version = self.version is None or ask.version is None or self.version == ask.version
        return same_version and (self.prefix, self.suffix) == (ask.prefix, ask.suffix)


class PauseTier(LatencyStrategy):
    """Keeps per document the one pause-tier run asked for its latest version, and its answer once it arrived."""

    def __init__(self, settings: Callable[[], Settings], engine: Engine, records: Records, request_for: RequestFor,
                 shown: TypedThrough, spawn: Callable[..., asyncio.Task]) -> None:
        self.settings = settings
        self.engine = engine
        self.records = records
        self.request_for = request_for
        self.shown = shown
        self.spawn = spawn
        self.runs: dict[str, _Run] = {}

    def calibration(self) -> Calibration | None:
        """The pause model's own calibration (by its weights' fingerprint; None: never calibrated, or none)."""
        info = self.engine.pause_info()
        return calibration_for(info.name, info.path or None) if info is not None else None

    def early(self, ask: Ask) -> Ticket | None:
        entry = self.runs.get(ask.doc_id)
        if entry is None:
            return None
        if not entry.at(ask):  # another text: what was asked for the old one is of no use
            self._drop(ask.doc_id)
            return None
        if entry.answer is None:
            return None
        plan = entry.answer.plan
        st = self.records.plain(ask.doc_id, ask.kind, Source.PAUSE, plan.reason)
        answer = Completion(list(entry.answer.suggestions), st, plan)
        if ask.remember:  # now shown: typing along it is typed-through's to answer
            self.shown.show(ask.doc_id, ask.prefix, ask.suffix, answer)
        return Ticket(plan, immediate=answer)

    async def second_opinion(self, ask: Ask, answer: Cleaned) -> Opinion | None:
        s = self.settings()
        if self.engine.pause_state() not in (PauseState.QUEUED, PauseState.LOADED) or not answer.plan.complete:
            return None
        if ask.kind is not Kind.INLINE or not ask.current():
            return None  # ghost text only: the completion list is asked at every keystroke and never waits
        if not unsure(answer.suggestions, ask.kind, s):
            return None  # a confident keystroke answer never waits
        entry = self.runs.get(ask.doc_id)
        if entry is None or not entry.at(ask):
            self._drop(ask.doc_id)
            entry = _Run(ask.prefix, ask.suffix, ask.version)
            entry.task = self.spawn(self._run(ask, entry, answer.plan))
            self.runs[ask.doc_id] = entry
        assert entry.task is not None
        try:
            done, _ = await asyncio.wait({entry.task}, timeout=s.pause.deadline_ms / 1000)
        except asyncio.CancelledError:  # the request was cancelled ($/cancelRequest): so is its run
            self._drop(ask.doc_id)
            raise
        if not done:
            return Opinion(None, Source.PAUSE, {"pause": Outcome.LATE.value})
        if entry.answer is not None and self.runs.get(ask.doc_id) is entry and ask.current():
            return Opinion(entry.answer, Source.PAUSE, {"pause": Outcome.ANSWERED.value})
        return Opinion(None, Source.PAUSE, {"pause": (entry.outcome or Outcome.CANCELLED).value})

    async def _run(self, ask: Ask, entry: _Run, plan: CompletionPlan) -> None:
        """Run the pause tier at `ask`'s position, clean and cut its answer, and keep it if it passes its cut and
        the document is still at the version asked for."""
        doc = ask.doc.with_text(ask.doc.text)  # the document changes as the user types on: a snapshot
        request = replace(self.request_for(ask.doc_id, doc, ask.offset, ask.kind, plan, ask.version, debounce=False,
                                           background=True, source=Source.PAUSE.value, candidates=ask.wanted),
                          tier=Tier.PAUSE)
        result: CompletionResult | None = None
        for _attempt in range(RETRIES):
            entry.job = self.engine.complete(request)
            try:
                result = await wait_job(self.engine, entry.job, Caller(), cancel=True)
            except asyncio.CancelledError:  # a keystroke or a close: the job is cancelled, its record booked as it ends
                self.records.when_done(entry.job, ask.doc_id, Kind.PAUSE, Source.PAUSE, plan.reason)
                raise
            except Exception as exc:  # noqa: BLE001 - the keystroke answer stands; booked as the error it was
                log.warning("pause tier failed, the keystroke answer stands: %s", exc)
                self.records.failed(ask.doc_id, Kind.PAUSE, plan.reason, exc, own=True)
                entry.outcome = Outcome.FAILED
                return
            again = result.timings.status is Status.CANCELLED and self.runs.get(ask.doc_id) is entry and ask.current()
            if not again:
                break
            self.records.answered(ask.doc_id, Kind.PAUSE, Source.PAUSE, result, plan.reason, own=True)
            # A keystroke job of another document took the worker; this one waits for it to be idle again.
        assert result is not None
        s, cal = self.settings(), self.calibration()
        threshold = pause_threshold(s, cal)
        cleaned = clean(doc, ask.offset, plan, result, s.syntax() if s.postprocess else None, threshold, cal)
        self.records.answered(ask.doc_id, Kind.PAUSE, Source.PAUSE, result, plan.reason, own=True,
                              postprocess_ms=cleaned.postprocess_ms,
                              extra={**cleaned.cleaning(), "threshold": round(threshold, 4)})
        status = result.timings.status
        if status is not Status.OK:
            entry.outcome = Outcome.FAILED if status is Status.ERROR else Outcome.CANCELLED
            if status is Status.ERROR:
                log.warning("pause tier: %s; the keystroke answer stands", result.timings.error)
            return
        sure = [replace(x, confidence=1.0) for x in cleaned.suggestions if x.confidence >= threshold]
        if not sure:
            entry.outcome = Outcome.UNSURE
            return
        if self.runs.get(ask.doc_id) is entry and ask.current():
            # Shown as sure: they passed the pause model's own cut (each keeps where ghost text is cut).
            entry.answer, entry.outcome = replace(cleaned, suggestions=sure), Outcome.ANSWERED
        else:
            entry.outcome = Outcome.CANCELLED

    def changed(self, doc_id: str) -> None:
        self._drop(doc_id)

    def _drop(self, doc_id: str) -> None:
        entry = self.runs.pop(doc_id, None)
        if entry is None:
            return
        if entry.job is not None:
            self.engine.cancel(entry.job)  # latest wins: its job stops at its next check
        if entry.task is not None and not entry.task.done():
            entry.task.cancel()

    def closed(self, doc_id: str) -> None:
        self._drop(doc_id)

    def held(self) -> set[str]:
        return set(self.runs)
