"""Typed-through: while the user types characters a shown answer predicted, answer from it at once, trimmed,
with no model run."""

from __future__ import annotations

from collections.abc import Callable

from ...config import Settings
from ..answers import Completion
from ..records import Records, Source
from .base import AnswerStore, Ask, LatencyStrategy, Remembered, Ticket


class TypedThrough(LatencyStrategy):
    """Remembers the last answer shown per document; serves the rest of it while the user types along it."""

    def __init__(self, settings: Callable[[], Settings], records: Records) -> None:
        self.settings = settings
        self.shown = AnswerStore(Source.TYPED_THROUGH, records)

    def early(self, ask: Ask) -> Ticket | None:
        return self.shown.ticket(ask) if self.settings().typed_through else None

    def answered(self, ask: Ask, answer: Completion, ticket: Ticket) -> None:
        self.shown.by_doc[ask.doc_id] = Remembered(ask.prefix, ask.suffix, answer)

    def at(self, doc_id: str) -> tuple[str, str] | None:
        """The (prefix, suffix) the document's shown answer was computed for."""
        entry = self.shown.by_doc.get(doc_id)
        return (entry.prefix, entry.suffix) if entry else None

    def replace(self, doc_id: str, answer: Completion) -> None:
        """Serve `answer` instead of the shown one, at the same text (a block replacing its first line)."""
        entry = self.shown.by_doc[doc_id]
        self.shown.by_doc[doc_id] = Remembered(entry.prefix, entry.suffix, answer)

    def show(self, doc_id: str, prefix: str, suffix: str, answer: Completion) -> None:
        """`answer` was shown at (prefix, suffix) (a serving engine's, handed to a later request)."""
        self.shown.by_doc[doc_id] = Remembered(prefix, suffix, answer)

    def closed(self, doc_id: str) -> None:
        self.shown.by_doc.pop(doc_id, None)

    def held(self) -> set[str]:
        return set(self.shown.by_doc)
