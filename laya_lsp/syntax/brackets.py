"""A small bracket lexer for candidate text: which brackets it opens, closes, or leaves unbalanced.

Candidates are fragments (they start mid-line and may end mid-statement), so a full parse of the fragment alone
says little; a lexer that skips strings and comments answers the bracket questions directly and also works for
languages without a grammar.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .languages import LanguageSpec

OPEN_TO_CLOSE = {"(": ")", "[": "]", "{": "}"}
CLOSE_TO_OPEN = {v: k for k, v in OPEN_TO_CLOSE.items()}


@dataclass
class BracketScan:
    """Result of scanning a fragment: unclosed openers, closers of brackets opened before it, open quotes."""

    unclosed: list[tuple[int, str]] = field(default_factory=list)  # (index, opener) still open at the end
    outer_closers: list[tuple[int, str]] = field(default_factory=list)  # closers with no opener in the text
    line_depths: list[int] = field(default_factory=list)  # bracket depth at the start of each line
    open_quote: str | None = None  # a string opened in the fragment and never closed
    stray_quotes: list[int] = field(default_factory=list)  # quote indices that close a string opened earlier

    @property
    def first_outer_closer(self) -> int | None:
        """Index of the first closer that belongs to a bracket opened before the fragment."""
        return self.outer_closers[0][0] if self.outer_closers else None


def _skip_string(text: str, i: int, quote: str, spec: LanguageSpec) -> tuple[int, bool]:
    """Index after the string starting at `i`, and whether it was terminated."""
    delim = quote * 3 if spec.triple_quotes and text.startswith(quote * 3, i) else quote
    j, n = i + len(delim), len(text)
    multiline = len(delim) == 3 or quote == "`"
    while j < n:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        if text.startswith(delim, j):
            return j + len(delim), True
        if ch == "\n" and not multiline:
            return j, False
        j += 1
    return n, False


def scan_brackets(text: str, spec: LanguageSpec, in_string: str | None = None) -> BracketScan:
    """Scan `text` for brackets outside strings and comments.

    `in_string` names the quote of a string the fragment starts inside (the cursor was in a string literal), so
    the first matching quote closes it rather than opening a new one.
    """
    scan = BracketScan(line_depths=[0])
    stack: list[tuple[int, str]] = []
    i, n = 0, len(text)
    if in_string:
        end = text.find(in_string)
        if end < 0:
            scan.line_depths.extend(0 for _ in range(text.count("\n")))
            return scan
        scan.line_depths.extend(0 for _ in range(text.count("\n", 0, end)))
        scan.stray_quotes.append(end)
        i = end + 1
    line_comment, block_comment = spec.line_comment, spec.block_comment
    while i < n:
        ch = text[i]
        if ch == "\n":
            scan.line_depths.append(len(stack))
            i += 1
        elif line_comment and text.startswith(line_comment, i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
        elif block_comment and text.startswith(block_comment[0], i):
            end = text.find(block_comment[1], i + len(block_comment[0]))
            stop = n if end < 0 else end + len(block_comment[1])
            scan.line_depths.extend(len(stack) for _ in range(text.count("\n", i, stop)))
            i = stop
        elif ch in spec.quotes:
            stop, closed = _skip_string(text, i, ch, spec)
            scan.line_depths.extend(len(stack) for _ in range(text.count("\n", i, stop)))
            if not closed:
                scan.open_quote = ch
            i = stop
        elif ch in OPEN_TO_CLOSE:
            stack.append((i, ch))
            i += 1
        elif ch in CLOSE_TO_OPEN:
            if stack and stack[-1][1] == CLOSE_TO_OPEN[ch]:
                stack.pop()
            elif not stack:
                scan.outer_closers.append((i, ch))
            i += 1
        else:
            i += 1
    scan.unclosed = stack
    return scan


def balance(text: str, spec: LanguageSpec) -> str:
    """Close the brackets `text` itself opened and left open, innermost first (`foo(a, [b` → `foo(a, [b])`)."""
    scan = scan_brackets(text, spec)
    if not scan.unclosed:
        return text
    closers = "".join(OPEN_TO_CLOSE[ch] for _, ch in reversed(scan.unclosed))
    body = text.rstrip(" \t")
    head = body.rstrip(";,")  # `f(g(1);` → `f(g(1));`: closers go before the statement's terminator
    return head + closers + body[len(head):]
