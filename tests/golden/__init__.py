"""Golden cases for the syntax layer: (document with a cursor `█`, raw model output, expected completion).

Add a case by appending a `Case` to the table of its language file; `tests/test_syntax_golden.py` runs them all.
`expect=None` means every raw candidate must be rejected; a list means the accepted texts, best first.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

CURSOR = "█"


def src(text: str) -> str:
    """A document written as an indented triple-quoted block: dedent it and drop the first newline."""
    return textwrap.dedent(text).removeprefix("\n")


@dataclass(frozen=True)
class Case:
    """One golden case. `plan` is the expected plan reason; `rules` must all be among the applied rules."""

    name: str
    language: str  # LSP languageId
    document: str  # contains exactly one CURSOR
    raw: str | list[str]  # what the model produced (one candidate or several, model order)
    expect: str | list[str] | None  # accepted text (best first), or None = rejected
    plan: str | None = None
    rules: tuple[str, ...] = ()
    uri: str = ""

    def split(self) -> tuple[str, int]:
        """The document text without the cursor marker, and the cursor offset."""
        assert self.document.count(CURSOR) == 1, self.name
        return self.document.replace(CURSOR, ""), self.document.index(CURSOR)
