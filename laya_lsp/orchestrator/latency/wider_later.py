"""The wider run after the answer: when every candidate of a keystroke's ghost-text run fails the syntax checks,
the keystroke is answered (blank) at once and the wider run (`widerCandidates`, orchestrator/name_analysis.py
`wider_run`) decodes in the background into the typed-through store, as first line first does for blocks: asking
again at that text, or typing along what it found, gets its answer with no model run. The next keystroke's run
cancels it (background work yields to every real request). An explicit invocation, and a completion list (which
shows unsure suggestions too), still wait for it: only for ghost text was the rule measured to add nothing a
person sees without asking again (docs/benchmarks.md, "Every first answer, part 4")."""

from __future__ import annotations

from ...engine import Job
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Completion
from ..records import Kind, Source
from .after_answer import AfterAnswer
from .base import Ask, Remembered


class WiderLater(AfterAnswer):
    """Moves a typing request's wider run behind its answer. It keeps nothing per document: the wider answer
    lands in `shown` only while no newer answer has been shown there."""

    def takes(self, ask: Ask, answer: Completion, wanted: int) -> bool:
        """Start the wider run of `wanted` candidates for `ask` in the background, if `ask` is a keystroke's
        ghost text whose answer can be served later (True: answer `answer` now, without waiting for it)."""
        if not (ask.typing and ask.kind == Kind.INLINE and ask.remember and self.settings().typed_through):
            return False
        if answer.plan is None:
            return False
        snapshot = ask.doc.with_text(ask.doc.text)  # the document changes as the user types on
        before = self.shown.shown.by_doc.get(ask.doc_id)
        job = self.background.complete(Source.WIDER, ask.doc_id, snapshot, ask.offset, answer.plan, wanted)
        self.background.spawn(self._keep(ask.doc_id, job, snapshot, ask.offset, answer.plan, ask.kind, before))
        return True

    async def _keep(self, doc_id: str, job: Job, doc: SyntaxDocument, offset: int, plan: CompletionPlan,
                    kind: Kind, before: Remembered | None) -> None:
        """The wider answer becomes the shown one at the text it was asked for, unless a newer answer was shown
        meanwhile; then the speculation for its top line accepted starts from it."""
        wider = await self.background.answer(Source.WIDER, job, doc_id, doc, offset, plan)
        if wider is None or not wider.suggestions or self.shown.shown.by_doc.get(doc_id) is not before:
            return
        self.shown.show(doc_id, doc.text[:offset], doc.text[offset:], wider)
        self.speculation.start(doc_id, doc, offset, wider, kind)
