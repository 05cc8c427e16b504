"""Where a completion's lines end: the one rule the engine's stop and post-processing share.

An answer of N lines ends at the N-th line break that follows visible text. Line breaks and blanks before its
first visible character do not count, so a completion may start on the next line (after `def f():`, say).
An answer that closes a bracket opened before it (`uuid.uuid4())` after `str(`, the `}` of the function body it
was asked to fill) has finished what it was inside: it ends at the line break after that closer, whatever its
line count. Which brackets count is the caller's: `first_outer_close` counts every bracket character; where
the language is known, syntax/answer_brackets.py counts only the brackets that are code (not in a string or a
comment), and the engine's stop and post-processing are given that one.
The engine applies the rule to tokens as they come (`ends_answer`: a token holding a line break is one break,
a token of blanks is blank), so it stops decoding as soon as the answer is complete; post-processing applies
it to the text (`cut_lines`), exactly, whatever the tokens were. A single-line plan is stricter about what
may come before its line (`cut_single_line`). Pure Python: engine/, syntax/ and the orchestrator all use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

P = TypeVar("P")
OPENERS, CLOSERS = "([{", ")]}"


def bracket_depths(text: str) -> tuple[int, int, int]:
    """(net bracket depth change over `text`, the lowest depth reached, the lowest depth reached before its last
    line break), from depth 0; a piece's share of the rule that an answer ends after closing an outer bracket."""
    depth = low = before = 0
    last_break = text.rfind("\n")
    for i, char in enumerate(text):
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
            low = min(low, depth)
            if i < last_break:
                before = min(before, depth)
    return depth, low, before


def closes_outer(pieces: Iterable[P], piece: P, depths: Callable[[P], tuple[int, int, int]]) -> bool:
    """Whether an outer bracket (opened before the answer) was closed before `piece`'s last line break."""
    depth = 0
    for p in pieces:
        delta, low, _ = depths(p)
        if depth + low < 0:
            return True
        depth += delta
    return depth + depths(piece)[2] < 0


def breaks_after_text(pieces: Iterable[P], is_break: Callable[[P], bool],
                      is_blank: Callable[[P], bool]) -> tuple[int, bool]:
    """(how many of `pieces` are line breaks after visible text, whether visible text came): the lines an
    answer has finished so far. A piece is a token or a character."""
    lines, visible = 0, False
    for piece in pieces:
        lines += is_break(piece) and visible
        visible = visible or not is_blank(piece)
    return lines, visible


def ends_answer(pieces: Sequence[P], piece: P, max_lines: int, is_break: Callable[[P], bool],
                is_blank: Callable[[P], bool], depths: Callable[[P], tuple[int, int, int]] | None = None) -> bool:
    """Whether `piece`, coming after `pieces`, ends an answer of `max_lines` lines (it breaks the last one, or
    the line that closed an outer bracket; `depths`: a piece's `bracket_depths`, None: brackets not counted)."""
    if not is_break(piece):
        return False  # line breaks are rare: count only when one comes
    lines, visible = breaks_after_text(pieces, is_break, is_blank)
    if visible and lines + 1 >= max_lines:
        return True
    return depths is not None and closes_outer(pieces, piece, depths)


def first_outer_close(text: str) -> int:
    """Index of the first closer of a bracket opened before `text` (-1: none), every bracket character counted."""
    depth = 0
    for i, char in enumerate(text):
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
            if depth < 0:
                return i
    return -1


def cut_lines(text: str, max_lines: int, outer_close: Callable[[str], int] = first_outer_close) -> str:
    """`text` up to the line break that ends its `max_lines`-th line, or the line where it closes a bracket
    opened before it (that break excluded; `outer_close`: where it does, -1: nowhere); the text itself when it
    has no more lines, or no visible character."""
    start = len(text) - len(text.lstrip())  # the first visible character
    if start == len(text):
        return text
    closed = outer_close(text) if max_lines > 1 else -1  # one line ends at its break anyway
    if closed >= 0:
        end = text.find("\n", closed)
        text = text if end < 0 else text[:end]
    for _ in range(max(1, max_lines)):
        end = text.find("\n", start)
        if end < 0:
            return text
        start = end + 1
    return text[:end]


def closed_before_break(text: str, outer_close: Callable[[str], int]) -> bool:
    """Whether `text` closed a bracket opened before it before its last line break (the engine's question when
    a token with a break comes)."""
    closed = outer_close(text)
    return 0 <= closed < text.rfind("\n")


def cut_single_line(text: str) -> str:
    """A single-line plan's cut: `cut_lines(text, 1)`, but only empty lines may come before the line; a first
    line of blanks ends the answer there (nothing, after a line break)."""
    lead = len(text) - len(text.lstrip("\n"))
    end = text.find("\n", lead)
    if end >= 0 and not text[lead:end].strip():
        return "" if lead else text[:end]
    return cut_lines(text, 1)
