"""HTTP sessions: a client's `session` id is the HTTP analogue of an open document (its own KV cache).

A session keeps the syntax document of the text last posted for it; the engine keeps its KV cache, under the
same LRU byte budget as every document. Requests without a session get a one-off document whose cache is
dropped when they end. Documents are never edited in place: a request that waits keeps the snapshot it was
planned on while a newer request for the same session brings new text.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass

from ..orchestrator import CompletionFlow
from ..syntax import SyntaxDocument

SESSION_PREFIX = "session:"


@dataclass
class Opened:
    doc_id: str
    doc: SyntaxDocument
    ephemeral: bool  # no session: forget it when the request ends


class Sessions:
    """Syntax snapshots per session, least recently used first out beyond `max_sessions`."""

    def __init__(self, completions: CompletionFlow, max_sessions: int) -> None:
        self.completions = completions
        self.max_sessions = max(1, max_sessions)
        # doc id -> (document, language, filename) as last posted
        self._docs: OrderedDict[str, tuple[SyntaxDocument, str, str]] = OrderedDict()
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        return len(self._docs)

    def open(self, session: str | None, text: str, language: str = "", filename: str = "") -> Opened:
        """The document for this request: the session's (reparsed when the text changed) or a one-off one."""
        if session is None:
            doc_id = f"http:{next(self._ids)}"
            return Opened(doc_id, SyntaxDocument(text, language, filename), True)
        doc_id = SESSION_PREFIX + session
        entry = self._docs.get(doc_id)
        if entry is None or entry[0].text != text or entry[1:] != (language, filename):
            entry = (SyntaxDocument(text, language, filename), language, filename)
        self._docs[doc_id] = entry
        self._docs.move_to_end(doc_id)
        while len(self._docs) > self.max_sessions:
            old, _ = self._docs.popitem(last=False)
            self.forget(old)
        return Opened(doc_id, entry[0], False)

    def forget(self, doc_id: str) -> None:
        """Drop a document's state and its KV cache (on the worker, after any running job)."""
        self._docs.pop(doc_id, None)
        self.completions.closed(doc_id)
