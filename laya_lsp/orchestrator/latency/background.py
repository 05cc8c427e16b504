"""Low-priority model runs the strategies start (speculation, the block after its first line, warm-up)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ...engine import CompletionRequest, CompletionResult, Engine, Job
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Cleaned, Completion
from ..records import Kind, Records, Source
from ..waiting import Caller, wait_job


class RequestFor(Protocol):
    """`CompletionFlow.request_for`: the engine request for a completion at `offset` under `plan`."""

    def __call__(self, doc_id: str, doc: SyntaxDocument, offset: int, kind: Kind, plan: CompletionPlan,
                 version: int | None, debounce: bool, background: bool = False, source: str = "model",
                 candidates: int | None = None, lines: int | None = None) -> CompletionRequest: ...


Clean = Callable[[SyntaxDocument, int, CompletionPlan, CompletionResult], Cleaned]


class Background:
    """Starts background runs, keeps their tasks from the GC, and cleans and books what they answer."""

    def __init__(self, engine: Engine, records: Records, request_for: RequestFor, clean: Clean) -> None:
        self.engine = engine
        self.records = records
        self.request_for = request_for
        self.clean = clean
        self.tasks: set[asyncio.Task] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task:
        """Run `work` on the event loop, kept until it ends."""
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def complete(self, source: Source, doc_id: str, doc: SyntaxDocument, offset: int, plan: CompletionPlan,
                 candidates: int | None = None) -> Job:
        """Queue a background completion of `source`'s kind (it yields to every real request)."""
        return self.engine.complete(
            self.request_for(
                doc_id,
                doc,
                offset,
                Kind(source.value),
                plan,
                None,
                debounce=False,
                background=True,
                source=source.value,
                candidates=candidates,
            )
        )

    async def answer(self, source: Source, job: Job, doc_id: str, doc: SyntaxDocument, offset: int,
                     plan: CompletionPlan) -> Completion | None:
        """The job's cleaned answer (None: it failed or found nothing), its record booked; a failure is only a
        missed shortcut. Cleaned here, on the event loop: the inference worker goes on to real work."""
        kind = Kind(source.value)  # background requests are of their source's kind: speculative, block
        try:
            result: CompletionResult = await wait_job(self.engine, job, Caller(), cancel=False)
        except Exception as exc:  # noqa: BLE001 - booked as the error it was
            self.records.failed(doc_id, kind, plan.reason, exc, own=True)
            return None
        cleaned = self.clean(doc, offset, plan, result) if result.candidates else None
        stats = self.records.answered(doc_id, kind, source, result, plan.reason, own=True,
                                      postprocess_ms=cleaned.postprocess_ms if cleaned else 0.0)
        return cleaned.booked(stats) if cleaned else None
