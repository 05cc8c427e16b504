"""Speculative next: after answering, compute in the background the answer needed if the first line of what the
editor shows (ghost text: the top suggestion as far as it is sure) is accepted; a request at that text is answered
from it at once."""

from __future__ import annotations

from collections.abc import Callable

from ...config import Settings
from ...engine import Job
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Completion, shown_for
from ..records import Kind, Records, Source
from .background import Background
from .base import AnswerStore, Ask, LatencyStrategy, Remembered, Ticket

Plan = Callable[[SyntaxDocument, int], CompletionPlan]


def accepted_line(top: str) -> str:
    """What accepting a suggestion's first line inserts: its leading line breaks and first line."""
    lead = len(top) - len(top.lstrip("\n"))
    return top[: lead + (top[lead:] + "\n").index("\n")]


class Speculation(LatencyStrategy):
    """Keeps one speculative answer per document, for the text with the shown answer's top line accepted."""

    def __init__(self, settings: Callable[[], Settings], records: Records, background: Background,
                 plan: Plan) -> None:
        self.settings = settings
        self.background = background
        self.plan = plan
        self.store = AnswerStore(Source.SPECULATIVE, records)
        self.running: dict[str, Job] = {}  # the last speculation started per document, until it ends

    def early(self, ask: Ask) -> Ticket | None:
        return self.store.ticket(ask) if self.settings().typed_through else None

    def answered(self, ask: Ask, answer: Completion, ticket: Ticket) -> None:
        if not ticket.typed and not ticket.block:  # after a first line, the block speculates when it comes
            self.start(ask.doc_id, ask.doc, ask.offset, answer, ask.kind)

    def start(self, doc_id: str, doc: SyntaxDocument, offset: int, answer: Completion, kind: Kind) -> None:
        """Compute, at low priority, the answer for the text as it would be with the first line of what a `kind`
        request shows accepted (ghost text cut for confidence: its cut part; nothing shown: no speculation)."""
        s = self.settings()
        if not s.speculative:
            return
        shown, _ = shown_for(answer.suggestions, kind, s.min_confidence if s.postprocess else 0.0)
        if not shown:
            return
        accepted = accepted_line(shown[0].text)
        hyp = doc.with_text(doc.text[:offset] + accepted + doc.text[offset:])
        hyp_offset = offset + len(accepted)
        plan = self.plan(hyp, hyp_offset)
        if not plan.complete:
            return
        job = self.background.complete(Source.SPECULATIVE, doc_id, hyp, hyp_offset, plan)
        self.running[doc_id] = job
        self.background.spawn(self._keep(doc_id, job, hyp, hyp_offset, plan))

    async def _keep(self, doc_id: str, job: Job, hyp: SyntaxDocument, offset: int, plan: CompletionPlan) -> None:
        spec = await self.background.answer(Source.SPECULATIVE, job, doc_id, hyp, offset, plan)
        latest = self.running.get(doc_id)
        if latest is None:
            return  # the document was closed meanwhile: nothing to keep
        if latest is job:
            del self.running[doc_id]
        if spec is not None and spec.suggestions:
            self.store.by_doc[doc_id] = Remembered(hyp.text[:offset], hyp.text[offset:], spec)

    def closed(self, doc_id: str) -> None:
        self.store.by_doc.pop(doc_id, None)
        self.running.pop(doc_id, None)

    def held(self) -> set[str]:
        return set(self.store.by_doc) | set(self.running)
