"""Warm-up: a document's cache is prefilled in the background (no decoding) when it is opened or focused, so
the first keystroke pays only for its new tokens; while a model loads, once it has loaded. The pause tier's cache
is prefilled too, after the keystroke model's (both are background work, which every keystroke job stops): its
first answer at a pause then pays for the new tokens only, not for the whole prompt (a cold 1,000-token prompt
takes the 35M pause model seconds on a CPU, past `pause.deadlineMs`); once the pause model is loaded (its load
waits for an idle worker or the first pause-tier answer: a warm-up does not start it)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from ...config import Settings
from ...engine import Engine, PauseState, Tier
from ...syntax import CompletionPlan, SyntaxDocument
from ..records import Kind, Records, Source
from ..waiting import ModelGate
from .background import Background
from .base import LatencyStrategy


class WarmUp(LatencyStrategy):
    """Prefills on open (cursor at the top) and on `warm` (the focused position); keeps only the warm-ups
    waiting for a model load, per document."""

    def __init__(self, settings: Callable[[], Settings], engine: Engine, gate: ModelGate, records: Records,
                 background: Background) -> None:
        self.settings = settings
        self.engine = engine
        self.gate = gate
        self.records = records
        self.background = background
        self.waiting: dict[str, set[asyncio.Task]] = {}

    def opened(self, doc_id: str, doc: SyntaxDocument) -> None:
        self.warm(doc_id, doc, 0)

    def warm(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        """Prefill the document's cache for a cursor at `offset` in the background."""
        if not self.settings().warm_up:
            return
        if self.gate.busy:
            task = self.background.spawn(self._after_load(doc_id, doc, offset))
            self.waiting.setdefault(doc_id, set()).add(task)
            task.add_done_callback(lambda t: self._done_waiting(doc_id, t))
        elif self.engine.model_info() is not None:
            self._prefill(doc_id, doc, offset)

    async def _after_load(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        if await self.gate.wait(bound=None) is None:
            self._prefill(doc_id, doc, min(offset, len(doc.text)))

    def _done_waiting(self, doc_id: str, task: asyncio.Task) -> None:
        tasks = self.waiting.get(doc_id)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self.waiting[doc_id]

    def _prefill(self, doc_id: str, doc: SyntaxDocument, offset: int) -> None:
        plan = CompletionPlan(True, "warm-up")
        request = self.background.request_for(doc_id, doc, offset, Kind.WARM_UP, plan, None, debounce=False,
                                              background=True, source="warm-up")
        self.records.when_done(self.engine.prefill(request), doc_id, Kind.WARM_UP, Source.WARM_UP, plan.reason)
        if self.engine.pause_state() is PauseState.LOADED:  # a queued load is not started by a warm-up
            paused = replace(request, tier=Tier.PAUSE)
            self.records.when_done(self.engine.prefill(paused), doc_id, Kind.WARM_UP, Source.WARM_UP, plan.reason)

    def closed(self, doc_id: str) -> None:
        for task in self.waiting.pop(doc_id, set()):
            task.cancel()  # closed before the model loaded: nothing to warm

    def held(self) -> set[str]:
        return set(self.waiting)
