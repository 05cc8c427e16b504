"""First line first: while typing, where the plan allows a block, answer as soon as the first line is complete
and decode the whole block in the background into the typed-through store (the block run's drafts make the
line it already has nearly free, engine/decoding/draft.py), so asking again or accepting the line gets the
block with no model run."""

from __future__ import annotations

from ...engine import Job
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Completion
from ..records import Kind, Source
from .after_answer import AfterAnswer
from .base import Ask, Ticket


class FirstLineFirst(AfterAnswer):
    """Cuts a typing request's run to one line and decodes the block after answering. It keeps nothing per
    document: the block lands in `shown` only while the shown answer is still the first line's."""

    def lines(self, ask: Ask, plan: CompletionPlan) -> int | None:
        s = self.settings()
        first = ask.typing and ask.remember and s.first_line_first and s.typed_through
        return 1 if first and plan.multiline and plan.max_lines > 1 else None

    def answered(self, ask: Ask, answer: Completion, ticket: Ticket) -> None:
        if not ticket.block or ticket.typed:
            return
        snapshot = ask.doc.with_text(ask.doc.text)  # the document changes as the user types on
        candidates = max(1, len(answer.result.candidates) if answer.result else 1)
        job = self.background.complete(Source.BLOCK, ask.doc_id, snapshot, ask.offset, ticket.plan, candidates)
        self.background.spawn(self._keep(ask.doc_id, job, snapshot, ask.offset, ticket.plan, ask.kind))

    async def _keep(self, doc_id: str, job: Job, doc: SyntaxDocument, offset: int, plan: CompletionPlan,
                    kind: Kind) -> None:
        """The block replaces its first line in the typed-through store, if the user has not moved on; then the
        speculation for its top line accepted starts from it."""
        block = await self.background.answer(Source.BLOCK, job, doc_id, doc, offset, plan)
        if block is None or not block.suggestions or self.shown.at(doc_id) != (doc.text[:offset], doc.text[offset:]):
            return
        self.shown.replace(doc_id, block)
        self.speculation.start(doc_id, doc, offset, block, kind)
