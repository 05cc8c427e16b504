"""One record per request, booked once: the engine's immutable timings plus what the orchestrator knows.

The engine measures its jobs and hands up `Timings` with each result; it books nothing. Every request the
orchestrator answers gets exactly one `RequestStats`, built here when the answer is known (after
post-processing) and never changed after. A job shared by requests typing along it is accounted once: its
engine cost goes to the request that started it; the others are booked as typed-through with no engine cost.
A request that stops waiting (its client left, its text changed) still accounts for the job it started: its
record is booked when the job ends (`when_done`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Future

from ..engine import CompletionResult, Job, Kind, RequestStats, Source, StatsBook, Status, Timings

log = logging.getLogger(__name__)


class Records:
    """Books the orchestrator's records into `book` (the `laya/stats` report reads it)."""

    def __init__(self, book: StatsBook) -> None:
        self.book = book

    def plain(self, doc_id: str, kind: Kind | str, source: Source, reason: str,
              status: Status = Status.OK, error: str | None = None) -> RequestStats:
        """A request answered without engine work of its own (typed-through, skipped, refused)."""
        return self.book.book(doc_id, kind, source, status=status, error=error, extra={"plan": reason})

    def answered(self, doc_id: str, kind: Kind | str, source: Source, result: CompletionResult, reason: str, *,
                 own: bool, postprocess_ms: float = 0.0, extra: Mapping[str, object] | None = None) -> RequestStats:
        """A request answered from an engine job: with the job's cost when it started the job (`own`)."""
        timings = result.timings if own else Timings(status=result.timings.status)
        more = {"plan": reason, **(result.extra if own else {}), **(extra or {})}
        return self.book.book(doc_id, kind, source, timings, candidates=len(result.candidates) if own else 0,
                              postprocess_ms=postprocess_ms, extra=more)

    def failed(self, doc_id: str, kind: Kind | str, reason: str, exc: BaseException, own: bool) -> RequestStats:
        """A request whose engine job raised (`JobFailed`/`WorkFailed` carry the job's timings)."""
        timings = getattr(exc, "timings", None)
        cause = str(exc) if timings is not None else f"{type(exc).__name__}: {exc}"
        return self.book.book(doc_id, kind, Source.NONE, timings if own else None, status=Status.ERROR,
                              error=cause, extra={"plan": reason})

    def when_done(self, job: Job, doc_id: str, kind: Kind | str, source: Source, reason: str) -> None:
        """Book the job's record when it ends: for work nobody waits on (warm-up) or a request that left."""

        def done(fut: Future) -> None:
            try:
                result = fut.result()
            except Exception as exc:  # noqa: BLE001 - booked as the error it was
                self.failed(doc_id, kind, reason, exc, own=True)
                return
            self.answered(doc_id, kind, source, result, reason, own=True)

        job.future.add_done_callback(done)
