"""Per-request records and aggregates (what `laya/stats` and `laya-lsp complete` report).

The engine measures a job in a `Meter` and hands up frozen `Timings` with its result; the orchestrator adds what
it knows (source, candidates, post-processing) and books one `RequestStats` per request, once (`StatsBook.book`).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any


class _Word(str, Enum):
    """An enum whose members read as their strings: in f-strings, comparisons and JSON alike."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Status(_Word):
    """How a request ended (the `status` of its record)."""

    OK = "ok"
    SKIPPED = "skipped"  # the syntax layer declined to complete here
    SUPERSEDED = "superseded"  # a newer request for the same document replaced it
    CANCELLED = "cancelled"
    DROPPED = "dropped"  # the scheduler's queue was full
    LOADING = "loading"  # no model yet: it still loads
    ERROR = "error"


class Source(_Word):
    """Where a request's answer came from."""

    MODEL = "model"
    TYPED_THROUGH = "typed-through"
    SPECULATIVE = "speculative"
    WARM_UP = "warm-up"
    BLOCK = "block"  # the block decoded after its first line was answered (first line first)
    HANDOFF = "handoff"  # a serving engine's answer where the local one was unsure
    NONE = "none"


class Kind(_Word):
    """What a request asked for."""

    COMPLETION = "completion"
    INLINE = "inline"
    SPECULATIVE = "speculative"
    WARM_UP = "warm-up"
    BLOCK = "block"
    HANDOFF = "handoff"
    DECIDE = "decide"
    STRUCTURED = "structured"
    ACTION = "action"
    CALIBRATE = "calibrate"


# How the scheduler's reasons for ending a job early read as statuses (anything else: cancelled).
ENDED = {"cancelled": Status.CANCELLED, "superseded": Status.SUPERSEDED, "dropped": Status.DROPPED}


@dataclass(frozen=True)
class Timings:
    """What the engine hands up with a job's result: how it ended and what it cost. Never changed after."""

    status: Status = Status.OK
    error: str | None = None
    queue_ms: float = 0.0
    debounce_ms: float = 0.0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prefill_ms: float = 0.0
    decode_tokens: int = 0
    decode_ms: float = 0.0
    decode_steps: int = 0  # forward steps after the first token (fewer than tokens when drafts were accepted)
    draft_tokens: int = 0  # tokens drafted for verification (prompt lookup)
    accepted_tokens: int = 0  # of them, the ones the model agreed with
    shared_steps: int = 0  # model steps computed together with other documents' requests
    total_ms: float = 0.0  # from queueing to the result
    prompt_hash: str = ""  # identifies the exact prompt (same ids, same hash) within one server process


class Meter:
    """What the engine measures while a job runs (on the worker only): a Timings value, replaced as it grows."""

    def __init__(self) -> None:
        self.now = Timings()

    def set(self, **values: Any) -> None:
        self.now = replace(self.now, **values)

    def add(self, **deltas: float) -> None:
        self.now = replace(self.now, **{k: getattr(self.now, k) + v for k, v in deltas.items()})

    def timings(self, status: Status = Status.OK, error: str | None = None, **values: Any) -> Timings:
        """The job's timings as it ends with `status`."""
        return replace(self.now, status=status, error=error, **values)


@dataclass(frozen=True)
class RequestStats:
    """One request's record, built and booked once by the orchestrator (`StatsBook.book`)."""

    id: int
    doc: str
    kind: Kind | str
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
        d: dict[str, object] = {"id": self.id, "doc": self.doc, "kind": str(getattr(self.kind, "value", self.kind)),
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

    def book(self, doc: str, kind: Kind | str, source: Source, timings: Timings | None = None, *,
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
