"""Sharing a running job: a request the user types along a still-running model run waits for that run instead
of cancelling it; its candidates are trimmed by what was typed (the flow falls back to a new run if none fit)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...config import Settings
from ...engine import Job
from ...syntax import CompletionPlan
from .base import Ask, LatencyStrategy, Ticket, typed_since


@dataclass
class _Running:
    prefix: str
    suffix: str
    plan: CompletionPlan
    job: Job
    candidates: int  # how many the running job was asked for
    block: bool  # it decodes the first line of a block; the rest follows in the background


class SharedJob(LatencyStrategy):
    """Remembers the last model run queued per document; a request typed along it shares it."""

    def __init__(self, settings: Callable[[], Settings]) -> None:
        self.settings = settings
        self.running: dict[str, _Running] = {}

    def early(self, ask: Ask) -> Ticket | None:
        running = self.running.get(ask.doc_id)
        if running is None or not self.settings().typed_through:
            return None
        typed = typed_since(running.prefix, running.suffix, ask.prefix, ask.suffix)
        if typed is None or running.job.future.done() or running.job.token.cancelled \
                or running.candidates < ask.wanted:
            return None
        return Ticket(running.plan, job=running.job, typed=typed, shared=True, block=running.block)

    def started(self, ask: Ask, ticket: Ticket) -> None:
        if ask.remember and ticket.job is not None:
            self.running[ask.doc_id] = _Running(ask.prefix, ask.suffix, ticket.plan, ticket.job, ask.wanted,
                                                ticket.block)

    def closed(self, doc_id: str) -> None:
        self.running.pop(doc_id, None)

    def held(self) -> set[str]:
        return set(self.running)
