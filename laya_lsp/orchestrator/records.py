"""One record per request, booked once: the engine's immutable timings plus what the orchestrator knows.

The engine measures its jobs and hands up `Timings` with each result; it books nothing. Every request the
orchestrator answers gets exactly one `RequestStats`, built here when the answer is known (after
post-processing) and never changed after: every flow books through `Records`, which keeps them in the
`StatsBook` that `laya/stats` reports. A job shared by requests typing along it is accounted once: its
engine cost goes to the request that started it; the others are booked as typed-through with no engine cost.
A request that stops waiting (its client left, its text changed) still accounts for the job it started: its
record is booked when the job ends (`when_done`).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, fields
from typing import Any

from ..engine import CompletionResult, Job, Status, Timings, WorkResult
from ..text_enum import TextEnum

log = logging.getLogger(__name__)


class Source(TextEnum):
    """Where a request's answer came from."""

    MODEL = "model"
    TYPED_THROUGH = "typed-through"
    SPECULATIVE = "speculative"
    WARM_UP = "warm-up"
    BLOCK = "block"  # the block decoded after its first line was answered (first line first)
    HANDOFF = "handoff"  # a serving engine's answer where the local one was unsure
    PAUSE = "pause"  # the pause tier's answer where the keystroke model's was unsure (engine Tier.PAUSE)
    WIDER = "wider"  # a keystroke's wider run, decoded after its blank answer (every candidate was rejected)
    NONE = "none"


class Kind(TextEnum):
    """What a request asked for."""

    COMPLETION = "completion"
    INLINE = "inline"
    SPECULATIVE = "speculative"
    WARM_UP = "warm-up"
    BLOCK = "block"
    HANDOFF = "handoff"
    PAUSE = "pause"  # a pause-tier run (its own record: its engine cost), for a request whose answer was unsure
    WIDER = "wider"
    DECIDE = "decide"
    STRUCTURED = "structured"
    ACTION = "action"
    CALIBRATE = "calibrate"


@dataclass(frozen=True)
class RequestStats:
    """One request's record, built and booked once by the orchestrator (`StatsBook.book`)."""

    id: int
    doc: str
    kind: Kind
    source: Source
    timings: Timings  # the engine's part (zeros for a request answered without engine work)
    status: Status
    error: str | None = None
    postprocess_ms: float = 0.0
    total_ms: float = 0.0  # the engine's total plus post-processing
    candidates: int = 0
    extra: Mapping[str, object] = field(default_factory=dict)

    @property
    def cancelled(self) -> bool:
        return self.status in (Status.CANCELLED, Status.DROPPED)

    @property
    def superseded(self) -> bool:
        return self.status is Status.SUPERSEDED

    def to_dict(self) -> dict[str, object]:
        """The record as `laya/stats` lists it: flat, enums as their strings."""
        d: dict[str, object] = {"id": self.id, "doc": self.doc, "kind": self.kind.value,
                                "status": self.status.value, "source": self.source.value}
        d.update((f.name, getattr(self.timings, f.name)) for f in fields(Timings) if f.name not in ("status", "error"))
        d.update(postprocess_ms=self.postprocess_ms, total_ms=self.total_ms, candidates=self.candidates,
                 error=self.error, extra=dict(self.extra), cancelled=self.cancelled, superseded=self.superseded)
        return d


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    idx = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[idx]


MAX_ERROR_CAUSES = 32  # distinct error messages counted one by one; the rest count under OTHER_ERRORS
OTHER_ERRORS = "(other errors)"


class StatsBook:
    """Keeps the last `keep` request records and running totals; safe to use from any thread.

    Every error is also counted by its cause (`by_error`), so a long run tells what failed after its records
    have left the recent window."""

    def __init__(self, keep: int = 256) -> None:
        self._lock = threading.Lock()
        self._recent: deque[RequestStats] = deque(maxlen=keep)
        self._next_id = 1
        self.totals: dict[str, float] = {
            "requests": 0,
            "prompt_tokens": 0,
            "reused_tokens": 0,
            "decode_tokens": 0,
            "decode_ms": 0.0,
            "prefill_ms": 0.0,
            "decode_steps": 0,
            "draft_tokens": 0,
            "accepted_tokens": 0,
        }
        self.by_status: dict[str, int] = {}
        self.by_source: dict[str, int] = {}
        self.by_error: dict[str, int] = {}

    def book(self, doc: str, kind: Kind, source: Source, timings: Timings | None = None, *,
             status: Status | None = None, error: str | None = None, candidates: int = 0,
             postprocess_ms: float = 0.0, extra: Mapping[str, object] | None = None) -> RequestStats:
        """Build a request's record from the engine's timings (none: no engine work) and what the caller adds,
        keep it, and return it. `status`/`error` override the timings' own."""
        t = timings or Timings()
        with self._lock:
            rid = self._next_id
            self._next_id += 1
        st = RequestStats(id=rid, doc=doc, kind=kind, source=source, timings=t, status=status or t.status,
                          error=error or t.error, postprocess_ms=postprocess_ms, total_ms=t.total_ms + postprocess_ms,
                          candidates=candidates, extra=dict(extra or {}))
        self._record(st)
        return st

    def _record(self, st: RequestStats) -> None:
        with self._lock:
            self._recent.append(st)
            t = self.totals
            for key in t:
                t[key] += 1 if key == "requests" else getattr(st.timings, key)
            self.by_status[st.status.value] = self.by_status.get(st.status.value, 0) + 1
            self.by_source[st.source.value] = self.by_source.get(st.source.value, 0) + 1
            if st.status is Status.ERROR:
                cause = st.error or "unknown"
                cause = cause if cause in self.by_error or len(self.by_error) < MAX_ERROR_CAUSES else OTHER_ERRORS
                self.by_error[cause] = self.by_error.get(cause, 0) + 1

    def recent(self, n: int | None = None) -> list[RequestStats]:
        with self._lock:
            items = list(self._recent)
        return items[-n:] if n else items

    def summary(self) -> dict[str, object]:
        recent = self.recent()
        ok = [r.total_ms for r in recent if r.status is Status.OK]
        t = dict(self.totals)
        return {
            **t,
            "reuse_ratio": (t["reused_tokens"] / t["prompt_tokens"]) if t["prompt_tokens"] else 0.0,
            "decode_ms_per_token": (t["decode_ms"] / t["decode_tokens"]) if t["decode_tokens"] else 0.0,
            "draft_acceptance": (t["accepted_tokens"] / t["draft_tokens"]) if t["draft_tokens"] else 0.0,
            "p50_total_ms": percentile(ok, 50),
            "p95_total_ms": percentile(ok, 95),
            # Keys as identifiers (typed_through, warm_up): some clients turn results into named tuples.
            "by_status": {k.replace("-", "_"): v for k, v in self.by_status.items()},
            "by_source": {k.replace("-", "_"): v for k, v in self.by_source.items()},
            "by_error": dict(self.by_error),
        }

    def reset(self) -> None:
        with self._lock:
            self._recent.clear()
            for k in self.totals:
                self.totals[k] = 0
            self.by_status.clear()
            self.by_source.clear()
            self.by_error.clear()


class Records:
    """Books the orchestrator's records into `book` (the `laya/stats` report reads it)."""

    def __init__(self, book: StatsBook) -> None:
        self.book = book

    def plain(self, doc_id: str, kind: Kind, source: Source, reason: str,
              status: Status = Status.OK, error: str | None = None) -> RequestStats:
        """A plain record: a request answered without engine work of its own (typed-through, skipped, refused)."""
        return self.book.book(doc_id, kind, source, status=status, error=error, extra=_plan(reason))

    def answered(self, doc_id: str, kind: Kind, source: Source, result: CompletionResult, reason: str, *,
                 own: bool, postprocess_ms: float = 0.0, extra: Mapping[str, object] | None = None) -> RequestStats:
        """A request answered from an engine job: with the job's cost when it started the job (`own`)."""
        timings = result.timings if own else Timings(status=result.timings.status)
        more = {**_plan(reason), **(result.extra if own else {}), **(extra or {})}
        return self.book.book(doc_id, kind, source, timings, candidates=len(result.candidates) if own else 0,
                              postprocess_ms=postprocess_ms, extra=more)

    def worked(self, doc_id: str, kind: Kind, result: WorkResult[Any], *, candidates: int = 0,
               extra: Mapping[str, object] | None = None) -> RequestStats:
        """A request answered by model work of its own (a decision, structured output, a code action); its
        status is the work's (cancelled or superseded work answers nothing)."""
        return self.book.book(doc_id, kind, Source.MODEL, result.timings, candidates=candidates, extra=extra)

    def failed(self, doc_id: str, kind: Kind, reason: str, exc: BaseException, own: bool) -> RequestStats:
        """A request whose engine job raised (`JobFailed`/`WorkFailed` carry the job's timings)."""
        timings = getattr(exc, "timings", None)
        cause = str(exc) if timings is not None else f"{type(exc).__name__}: {exc}"
        return self.book.book(doc_id, kind, Source.NONE, timings if own else None, status=Status.ERROR,
                              error=cause, extra=_plan(reason))

    def when_done(self, job: Job, doc_id: str, kind: Kind, source: Source, reason: str) -> None:
        """Book the job's record when it ends: for work nobody waits on (warm-up) or a request that left (a
        completion job's or model work's)."""

        def done(fut: Future) -> None:
            try:
                result = fut.result()
            except Exception as exc:  # noqa: BLE001 - booked as the error it was
                self.failed(doc_id, kind, reason, exc, own=True)
                return
            if isinstance(result, WorkResult):
                self.worked(doc_id, kind, result)
            else:
                self.answered(doc_id, kind, source, result, reason, own=True)

        job.future.add_done_callback(done)


def _plan(reason: str) -> dict[str, object]:
    """The plan's reason in a record's extra fields (model work has no plan)."""
    return {"plan": reason} if reason else {}
