"""The one position model every front uses: (line, column) <-> `str` index, with LSP's line rules.

Lines end at `\\n`, `\\r\\n` or `\\r` only (LSP 3.17 §Text Documents; not at `\\f`, `\\v` or the other breaks
`str.splitlines` knows). Columns count in a position encoding: `utf-16` (LSP's default), `utf-8`, or `utf-32`
(code points: what the HTTP API and `laya-lsp complete` take). The LSP side clamps a position past the end of a
line or of the text, as the spec says; `strict_offset` refuses one instead, with a message naming the limits, for
the fronts where a person typed the position.
"""

from __future__ import annotations

import re
from bisect import bisect_right

EOL = re.compile(r"\r\n|\r|\n")


class PositionError(ValueError):
    """A line or column outside the text (the message says which and the valid range)."""


def line_starts(text: str) -> list[int]:
    """Index of each line's first character; line 0 starts at 0."""
    return [0] + [m.end() for m in EOL.finditer(text)]


def width(char: str, encoding: str) -> int:
    """Columns one character takes in a position encoding (`utf-16`, `utf-8` or `utf-32`)."""
    code = ord(char)
    if encoding == "utf-8":
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    if encoding == "utf-32":
        return 1
    return 2 if code > 0xFFFF else 1


def column_to_index(line: str, column: int, encoding: str = "utf-16") -> int:
    """Index in `line` of a column; past the end clamps, inside a character rounds down."""
    if column <= 0:
        return 0
    if line.isascii() or encoding == "utf-32":
        return min(column, len(line))
    units = 0
    for index, char in enumerate(line):
        units += width(char, encoding)
        if units > column:
            return index
    return len(line)


def line_body(text: str, starts: list[int], line: int) -> tuple[int, str]:
    """(start index, text without its line ending) of an existing line."""
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    return start, text[start:end].rstrip("\r\n")


def offset_at(text: str, starts: list[int], line: int, column: int, encoding: str = "utf-16") -> int:
    """`str` index of a position; past the end of a line or of the text clamps (as LSP says)."""
    if line < 0:
        return 0
    if line >= len(starts):
        return len(text)
    start, body = line_body(text, starts, line)
    return start + column_to_index(body, column, encoding)


def position_at(text: str, starts: list[int], offset: int, encoding: str = "utf-16") -> tuple[int, int]:
    """(line, column) of a `str` index, columns in `encoding`."""
    offset = max(0, min(offset, len(text)))
    line = bisect_right(starts, offset) - 1
    prefix = text[starts[line]:offset]
    if prefix.isascii() or encoding == "utf-32":
        return line, len(prefix)
    return line, sum(width(c, encoding) for c in prefix)


def strict_offset(text: str, line: int, column: int, encoding: str = "utf-32", base: int = 0) -> int:
    """`str` index of a position that must lie in the text (a column may be the end of its line); `base` 1
    counts lines and columns from 1 (as `file:line:col` does). Raises PositionError otherwise."""
    starts = line_starts(text)
    row, col = line - base, column - base
    if not 0 <= row < len(starts):
        raise PositionError(f"line {line} is outside the text ({base}..{len(starts) - 1 + base})")
    start, body = line_body(text, starts, row)
    length = sum(width(c, encoding) for c in body) if encoding != "utf-32" else len(body)
    if not 0 <= col <= length:
        raise PositionError(f"column {column} is outside line {line} ({base}..{length + base})")
    return start + column_to_index(body, col, encoding)
