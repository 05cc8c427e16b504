"""The interface every latency trick implements, and what the tricks and the flow exchange.

A trick is a strategy beside `CompletionFlow`: the flow reads straight through (plan, run, clean, book) and
asks its strategies at fixed points; each strategy keeps its own per-document state and drops it on `closed`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ...engine import Job
from ...syntax import CompletionPlan, SyntaxDocument
from ..answers import Cleaned, Completion
from ..records import Kind, Records, Source


@dataclass(frozen=True, eq=False)
class Ask:
    """One completion request as the strategies see it (one attempt: a wider retry asks for more). An `Ask` is
    what was asked; the `Ticket` below is how it will be answered."""

    doc_id: str
    doc: SyntaxDocument
    offset: int
    kind: Kind
    remember: bool  # its answer may serve later requests (an open document, a session)
    typing: bool  # asked while the user types, not invoked explicitly
    wanted: int  # candidates a model run for it asks for
    version: int | None = None  # the document version it was made against (None: the front has none)
    current: Callable[[], bool] = lambda: True  # whether the document is still at that version

    @property
    def prefix(self) -> str:
        return self.doc.text[: self.offset]

    @property
    def suffix(self) -> str:
        return self.doc.text[self.offset :]


@dataclass
class Ticket:
    """How a request is answered: at once (`immediate`), by a job to wait for, or not at all (neither): what
    the request holds while it waits, as a ticket."""

    plan: CompletionPlan
    job: Job | None = None
    immediate: Completion | None = None
    typed: str = ""  # characters typed through the job's candidates (trim them from its raw text)
    # The job belongs to an earlier request that this one types through: a fresh job is needed if none of
    # its candidates match what was typed.
    shared: bool = False
    block: bool = False  # the job decodes fewer lines than the plan allows; the block follows in the background


@dataclass(frozen=True)
class Opinion:
    """A strategy's answer for a request whose model answer was unsure, in the same response: `answer` (None: the
    model's answer stands) booked as `source`; `note` goes into the request's record (why, and from where)."""

    answer: Cleaned | None
    source: Source
    note: dict[str, object]


class LatencyStrategy:
    """A latency trick beside the flow. The flow calls each hook on every strategy, in the strategies' order;
    a strategy overrides the hooks it needs (the others do nothing)."""

    def opened(self, doc_id: str, doc: SyntaxDocument) -> None:
        """A document was opened."""

    def early(self, ask: Ask) -> Ticket | None:
        """Answer `ask` (or share a running job) early, i.e. before it is planned; None: the flow goes on."""
        return None

    def lines(self, ask: Ask, plan: CompletionPlan) -> int | None:
        """The line count a model run for `ask` decodes (None: the plan's)."""
        return None

    def started(self, ask: Ask, ticket: Ticket) -> None:
        """A model run for `ask` was queued (`ticket.job`)."""

    def answered(self, ask: Ask, answer: Completion, ticket: Ticket) -> None:
        """`ask`, which remembers, got `answer` (with suggestions) from a model run."""

    async def second_opinion(self, ask: Ask, answer: Cleaned) -> Opinion | None:
        """`ask`'s model answer (cleaned, not booked yet) is unsure: another answer for the same response, or
        None (this strategy has none to give). The flow waits for it: a strategy bounds its own wait."""
        return None

    def settled(self, ask: Ask, answer: Completion) -> None:
        """`ask`, which remembers, is answered with `answer` from a model run (suggestions or none)."""

    def changed(self, doc_id: str) -> None:
        """The document's text changed (a keystroke): what was asked for an older version is stale."""

    def closed(self, doc_id: str) -> None:
        """Drop everything kept for the document."""

    def held(self) -> set[str]:
        """The documents it holds state for (each must be dropped by `closed`; the memory report counts them)."""
        return set()


def typed_since(old_prefix: str, old_suffix: str, prefix: str, suffix: str) -> str | None:
    """What was typed at the cursor since (old_prefix, old_suffix), or None if the text changed otherwise."""
    if suffix != old_suffix or not prefix.startswith(old_prefix):
        return None
    return prefix[len(old_prefix) :]


class _Text(Protocol):
    """Something with a `text` that can lose its start, its token trace with it (a candidate, a suggestion)."""

    text: str

    def trimmed(self, n: int) -> Any: ...


T = TypeVar("T", bound=_Text)


def typed_along(items: Sequence[T], typed: str) -> list[T]:
    """The items that `typed` is the start of, with it cut off (`trimmed`); those it ends drop."""
    return [x.trimmed(len(typed)) for x in items if x.text.startswith(typed) and x.text[len(typed) :].strip()]


@dataclass
class Remembered:
    """An answer for a document, at the text it was computed for."""

    prefix: str
    suffix: str
    answer: Completion


class AnswerStore:
    """One remembered answer per document, served to a request that only typed along it (booked as `source`)."""

    def __init__(self, source: Source, records: Records) -> None:
        self.source = source
        self.records = records
        self.by_doc: dict[str, Remembered] = {}

    def ticket(self, ask: Ask) -> Ticket | None:
        """The part of the document's answer still ahead of the cursor, answered at once; None if none is."""
        entry = self.by_doc.get(ask.doc_id)
        typed = typed_since(entry.prefix, entry.suffix, ask.prefix, ask.suffix) if entry else None
        if entry is None or typed is None:
            return None
        rest = typed_along(entry.answer.suggestions, typed)
        if not rest:
            return None
        plan = entry.answer.plan or CompletionPlan(True, self.source.value)
        st = self.records.plain(ask.doc_id, ask.kind, self.source, plan.reason)
        return Ticket(plan, immediate=Completion(rest, st, plan))
