"""Where a completion's lines end: the one rule the engine's stop and post-processing share.

An answer of N lines ends at the N-th line break that follows visible text. Line breaks and blanks before its
first visible character do not count, so a completion may start on the next line (after `def f():`, say).
The engine applies the rule to tokens as they come (`ends_answer`: a token holding a line break is one break,
a token of blanks is blank), so it stops decoding as soon as the answer is complete; post-processing applies
it to the text (`cut_lines`), exactly, whatever the tokens were. A single-line plan is stricter about what
may come before its line (`cut_single_line`). Pure Python: engine/, syntax/ and the orchestrator all use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

P = TypeVar("P")


def breaks_after_text(pieces: Iterable[P], is_break: Callable[[P], bool],
                      is_blank: Callable[[P], bool]) -> tuple[int, bool]:
    """(how many of `pieces` are line breaks after visible text, whether visible text came): the lines an
    answer has finished so far. A piece is a token or a character."""
    lines, visible = 0, False
    for piece in pieces:
        lines += is_break(piece) and visible
        visible = visible or not is_blank(piece)
    return lines, visible


def ends_answer(pieces: Iterable[P], piece: P, max_lines: int, is_break: Callable[[P], bool],
                is_blank: Callable[[P], bool]) -> bool:
    """Whether `piece`, coming after `pieces`, ends an answer of `max_lines` lines (it breaks the last one)."""
    if not is_break(piece):
        return False  # line breaks are rare: count only when one comes
    lines, visible = breaks_after_text(pieces, is_break, is_blank)
    return visible and lines + 1 >= max_lines


def cut_lines(text: str, max_lines: int) -> str:
    """`text` up to the line break that ends its `max_lines`-th line (that break excluded); the text itself when
    it has no more lines, or no visible character."""
    start = len(text) - len(text.lstrip())  # the first visible character
    if start == len(text):
        return text
    for _ in range(max(1, max_lines)):
        end = text.find("\n", start)
        if end < 0:
            return text
        start = end + 1
    return text[:end]


def cut_single_line(text: str) -> str:
    """A single-line plan's cut: `cut_lines(text, 1)`, but only empty lines may come before the line; a first
    line of blanks ends the answer there (nothing, after a line break)."""
    lead = len(text) - len(text.lstrip("\n"))
    end = text.find("\n", lead)
    if end >= 0 and not text[lead:end].strip():
        return "" if lead else text[:end]
    return cut_lines(text, 1)
