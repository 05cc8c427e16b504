"""What the engine hands up with each job: how it ended (`Status`) and what it cost (`Timings`), measured while it
runs in a `Meter`. The orchestrator turns them into its one record per request (orchestrator/records.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..text_enum import TextEnum


class Status(TextEnum):
    """How a request ended (the `status` of its record)."""

    OK = "ok"
    SKIPPED = "skipped"  # the syntax layer declined to complete here
    SUPERSEDED = "superseded"  # a newer request for the same document replaced it
    CANCELLED = "cancelled"
    DROPPED = "dropped"  # the scheduler's queue was full
    LOADING = "loading"  # no model yet: it still loads
    ERROR = "error"


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
