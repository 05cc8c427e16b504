"""A small bracket lexer for candidate text: which brackets it opens, closes, or leaves unbalanced.

Candidates are fragments (they start mid-line and may end mid-statement), so a full parse of the fragment alone
says little; a lexer that skips strings and comments answers the bracket questions directly and also works for
languages without a grammar.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

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
    open_quote_at: int | None = None  # where that string starts
    trailing_comment_at: int | None = None  # a line comment running to the end of the text starts here
    stray_quotes: list[int] = field(default_factory=list)  # quote indices that close a string opened earlier

    @property
    def first_outer_closer(self) -> int | None:
        """Index of the first closer that belongs to a bracket opened before the fragment."""
        return self.outer_closers[0][0] if self.outer_closers else None


def outside_quotes(line: str, quotes: str) -> tuple[list[int], str | None]:
    """Indices of `line`'s characters outside single-line string literals (a backslash escapes the next
    character inside one), and the quote of a string still open at the end (None if none)."""
    outside: list[int] = []
    quote: str | None = None
    i = 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in quotes:
            quote = char
        else:
            outside.append(i)
        i += 1
    return outside, quote


@lru_cache(maxsize=64)
def _string_stops(delim: str, multiline: bool) -> re.Pattern[str]:
    """Where a string body can change state: an escape, its closing delimiter, or a line end."""
    return re.compile(r"\\.|" + re.escape(delim) + ("" if multiline else r"|\n"), re.DOTALL)


def _skip_string(text: str, i: int, quote: str, spec: LanguageSpec) -> tuple[int, bool]:
    """Index after the string starting at `i`, and whether it was terminated."""
    delim = quote * 3 if spec.triple_quotes and text.startswith(quote * 3, i) else quote
    pattern = _string_stops(delim, len(delim) == 3 or quote == "`")
    j = i + len(delim)
    while True:
        match = pattern.search(text, j)
        if match is None:
            return len(text), False
        token = match.group()
        if token == "\n":
            return match.start(), False
        if token == delim:
            return match.end(), True
        j = match.end()  # an escape: skip the escaped character


@lru_cache(maxsize=32)
def _token_pattern(spec: LanguageSpec) -> re.Pattern[str]:
    """Everything the scanner stops at: comment starts, quotes, brackets, newlines."""
    parts = []
    if spec.line_comment:
        parts.append(re.escape(spec.line_comment))
    if spec.block_comment:
        parts.append(re.escape(spec.block_comment[0]))
    parts.append("[" + re.escape(spec.quotes + "()[]{}") + "\n]")
    return re.compile("|".join(parts))


@lru_cache(maxsize=256)
def scan_brackets(text: str, spec: LanguageSpec, in_string: str | None = None) -> BracketScan:
    """Scan `text` for brackets outside strings and comments (cached: several rules ask about one candidate;
    treat the result as read-only).

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
    pattern = _token_pattern(spec)
    block_comment = spec.block_comment
    while i < n:
        match = pattern.search(text, i)
        if match is None:
            break
        token, i = match.group(), match.start()
        if token == "\n":
            scan.line_depths.append(len(stack))
            i += 1
        elif token == spec.line_comment:
            nl = text.find("\n", i)
            if nl < 0:
                scan.trailing_comment_at = i
            i = n if nl < 0 else nl
        elif block_comment and token == block_comment[0]:
            end = text.find(block_comment[1], i + len(token))
            stop = n if end < 0 else end + len(block_comment[1])
            scan.line_depths.extend(len(stack) for _ in range(text.count("\n", i, stop)))
            i = stop
        elif token in spec.quotes:
            stop, closed = _skip_string(text, i, token, spec)
            scan.line_depths.extend(len(stack) for _ in range(text.count("\n", i, stop)))
            if not closed:
                scan.open_quote, scan.open_quote_at = token, i
            i = stop
        elif token in OPEN_TO_CLOSE:
            stack.append((i, token))
            i += 1
        else:
            if stack and stack[-1][1] == CLOSE_TO_OPEN[token]:
                stack.pop()
            elif not stack:
                scan.outer_closers.append((i, token))
            i += 1
    scan.unclosed = stack
    return scan


def balance(text: str, spec: LanguageSpec) -> str:
    """Close the brackets `text` itself opened and left open, innermost first (`foo(a, [b` → `foo(a, [b])`)."""
    scan = scan_brackets(text, spec)
    if not scan.unclosed:
        return text
    closers = "".join(OPEN_TO_CLOSE[ch] for _, ch in reversed(scan.unclosed))
    body = text.rstrip()
    head = body.rstrip(";")  # `f(g(1);` → `f(g(1));`: closers go before the statement's terminator
    return head + closers + body[len(head):] + text[len(body):]


def stops_inside(text: str, spec: LanguageSpec) -> bool:
    """Does `text` (a cut candidate) stop inside a string it opened, or inside a bracket it opened after which it
    already wrote something (`f(a, 'x` or `f(a, b`, not `f(`)? Such a cut cannot be right as shown."""
    scan = scan_brackets(text, spec)
    if scan.open_quote is not None:
        return True
    return bool(scan.unclosed) and bool(text[scan.unclosed[-1][0] + 1 :].strip())
