"""The orchestrator: one request's life, the same for every front (LSP, HTTP, `laya-lsp complete`).

    orchestrator = Orchestrator(engine, lambda: settings)
    orchestrator.loading(load_future)                     # requests wait for a model that is loading
    answer = await orchestrator.completions.complete(doc_id, syntax_doc, offset, Kind.COMPLETION)
    decision, stats = await orchestrator.decisions.decide(request)
    report = await orchestrator.report(recent=50)

Document state → context → prompt → engine → post-processing → candidates + one stats record. The fronts
translate their protocol's types and call these functions; nothing here knows LSP, HTTP or MLX.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from ..config import PAUSE_OFF, Settings
from ..engine import Engine, Status
from .answers import Completion, Suggestion
from .completion_flow import CompletionFlow
from .decision_flow import DecisionFlow
from .records import Kind, Records, RequestStats, Source, StatsBook
from .report import CACHE_WAIT_S, engine_report
from .waiting import MODEL_LOADING, POLL_S, Caller, ClientGone, ModelFailed, ModelGate, NotReady, Superseded

__all__ = [
    "MODEL_LOADING",
    "POLL_S",
    "Caller",
    "ClientGone",
    "Completion",
    "CompletionFlow",
    "Kind",
    "ModelFailed",
    "NotReady",
    "Orchestrator",
    "RequestStats",
    "Source",
    "StatsBook",
    "Status",
    "Suggestion",
    "Superseded",
]


class Orchestrator:
    """The engine, the settings in force, and the completion and decision flows that share them."""

    def __init__(self, engine: Engine, settings: Callable[[], Settings]) -> None:
        self.engine = engine
        self.settings = settings
        self.book = StatsBook()  # one record per request, booked by the flows (records.py)
        records = Records(self.book)
        self.gate = ModelGate(engine, records)
        self.completions = CompletionFlow(engine, settings, self.gate, records)
        self.decisions = DecisionFlow(engine, settings, self.gate, records)
        self._last_report: dict[str, Any] = {}

    def loading(self, load: Future) -> None:
        """A model load started (or will: `load` resolves when it is done); requests wait for it, bounded."""
        self.gate.loading(load)

    def sizes(self) -> dict[str, int]:
        """How much per-request state is kept (for the memory report: each of these must stay bounded)."""
        return {"statsKept": len(self.book.recent()), "crossFileChunks": len(self.completions.context.ring),
                "trackedDocuments": self.completions.tracked()}

    async def report(self, recent: int = 50, reset: bool = False,
                     cache_wait_s: float | None = CACHE_WAIT_S) -> dict[str, Any]:
        """The `laya/stats` report (see report.engine_report). While a model loads (on the worker) the cache
        sizes are not waited for: the last snapshot is reported."""
        budget = int(self.settings().cache_budget_mb * 2**20)
        wait = 0.0 if self.gate.busy else cache_wait_s
        off = self.settings().pause.model == PAUSE_OFF
        return await engine_report(self.engine, self.book, budget, recent, reset, self._last_report, wait, off)
