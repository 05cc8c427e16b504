"""Text rules applied to each raw candidate. Each takes the candidate and returns it changed or unchanged.

The candidate is the text to insert at the cursor; `CursorContext` holds what surrounds it. Rules never parse:
validation (validate.py) runs once the text rules are done.
"""

from __future__ import annotations

import re
from functools import reduce
from math import gcd

from .brackets import CLOSE_TO_OPEN, balance, scan_brackets
from .context import CursorContext, leading_ws, width
from .languages import LanguageSpec

_REMOVABLE_TAIL = frozenset(";,:")
_REPEAT_LINES = 4  # how many following lines a repeat is compared against


def _line_starts(text: str) -> list[int]:
    starts = [0]
    index = text.find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def fix_first_line_indent(text: str, ctx: CursorContext) -> str:
    """Drop indentation the model repeated: the cursor already stands after the line's indentation."""
    if not ctx.prefix_blank or not text or text[0] not in " \t" or ctx.in_brackets:
        return text
    previous = (ctx.prev_line or "").rstrip()
    if previous.endswith((",", "(", "[", "{", "\\")):
        return text  # a continuation line: its alignment is free
    expected = width(ctx.expected_indent)
    following = ctx.line_prefix + ctx.line_suffix if ctx.line_suffix.strip() else (ctx.next_lines or [""])[0]
    if following.strip():
        expected = max(expected, width(leading_ws(following)))
    have = width(ctx.line_prefix)
    lead = leading_ws(text.split("\n", 1)[0])
    if have + width(lead) <= expected or have > expected:
        return text
    missing = expected - have
    pad = "\t" * (missing // 4) if ctx.indent_unit == "\t" else " " * missing
    return pad + text[len(lead):]


def normalize_indent_chars(text: str, ctx: CursorContext) -> str:
    """Indent lines with the document's character (tabs vs spaces): the lines after the first, and the first
    when only indentation precedes the cursor (Python rejects a mix of the two)."""
    lines = text.split("\n")
    first = 0 if ctx.prefix_blank and ctx.line_prefix + leading_ws(lines[0]) else 1
    if len(lines) == first:
        return text
    uses_tabs = ctx.indent_unit == "\t"
    space_indents = [width(leading_ws(ln)) for ln in lines[1:] if ln.strip() and leading_ws(ln).startswith(" ")]
    model_unit = min(reduce(gcd, space_indents, 0) or 4, 4)  # 8 and 12 → 4; a lone 8 is two levels of 4
    out = lines[:first]
    for line in lines[first:]:
        lead = leading_ws(line)
        if uses_tabs and lead and "\t" not in lead:
            levels, rest = divmod(len(lead), model_unit)
            lead = "\t" * levels + " " * rest
        elif not uses_tabs and "\t" in lead:
            lead = lead.replace("\t", ctx.indent_unit)
        out.append(lead + line.lstrip(" \t"))
    return "\n".join(out)


def _starts_with_continuation(line: str, spec: LanguageSpec) -> bool:
    stripped = line.strip().lstrip("}) ")
    return any(stripped == w or stripped.startswith((w + " ", w + ":", w + "{", w + "(")) for w in
               spec.continuation_words)


def cut_at_block_end(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Multi-line candidate: stop where the block around the cursor ends.

    Brackets: the first closer of a bracket opened before the cursor ends the block; if the document already
    closes it, cut before it, otherwise keep that closing line and stop after it. Indentation: a line indented
    less than the block body (outside brackets the candidate opened, and not `else`/`catch`…) ends it too.
    """
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    starts = _line_starts(text)
    scan = scan_brackets(text, spec, ctx.in_string)
    cut = len(text)
    last_line = len(lines)
    closer = scan.first_outer_closer
    if closer is not None and closer >= starts[1]:
        line_no = max(i for i, s in enumerate(starts) if s <= closer)
        line_start = starts[line_no]
        if not ctx.enclosing_closed:
            newline = text.find("\n", closer)
            cut = len(text) if newline < 0 else newline
        elif text[line_start:closer].strip() or ctx.line_suffix.strip():
            cut = closer
        else:
            cut = line_start - 1
        last_line = line_no

    opener_on_line = ctx.opener_before is not None and not ctx.prefix_blank
    first_body = next((ln for ln in lines[1:] if ln.strip()), None)
    if ctx.prefix_blank and lines[0].strip():
        body = width(ctx.line_prefix + leading_ws(lines[0]))
    elif opener_on_line or not lines[0].strip() and ctx.prefix_blank:
        body = width(leading_ws(first_body)) if first_body is not None else 0
    else:
        body = width(ctx.line_indent)
    floor = width(ctx.line_indent) if opener_on_line else body
    for line_no in range(1, min(last_line, len(lines))):
        line = lines[line_no]
        if not line.strip() or scan.line_depths[line_no] > 0 or line.lstrip()[0] in CLOSE_TO_OPEN:
            continue
        indent = width(leading_ws(line))
        if indent >= body or (indent >= floor and _starts_with_continuation(line, spec)):
            continue
        cut = min(cut, starts[line_no] - 1)
        break
    return text[:cut]


def cut_after_statement(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """One-statement plan (after a decorator): keep the first statement with its decorators and its deeper
    body; stop at the next line back at the first line's indentation."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return text
    base = width((ctx.line_prefix if first == 0 else "") + leading_ws(lines[first]))
    in_decorators = lines[first].lstrip().startswith("@")
    depths = scan_brackets(text, spec, ctx.in_string).line_depths
    for index in range(first + 1, len(lines)):
        line = lines[index]
        if not line.strip() or depths[index] > 0:
            continue
        if width(leading_ws(line)) > base:
            in_decorators = False
        elif in_decorators:  # more decorators, then the definition they decorate
            in_decorators = line.lstrip().startswith("@")
        else:
            return "\n".join(lines[:index]).rstrip()
    return text


def cut_repeated_next_lines(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Stop where the candidate starts repeating the lines that already follow the cursor (including the code
    after the cursor when only indentation precedes it)."""
    rest_of_line = [ctx.line_suffix] if ctx.prefix_blank and ctx.line_suffix.strip() else []
    following = [ln.strip() for ln in [*rest_of_line, *ctx.next_lines]][:_REPEAT_LINES]
    if not following:
        return text
    lines = text.split("\n")
    depths = scan_brackets(text, spec, ctx.in_string).line_depths
    for index, line in enumerate(lines):
        if index == 0 and not ctx.prefix_blank:
            continue
        if not line.strip() or depths[index] > 0 or line.strip() != following[0]:
            continue
        rest = [ln.strip() for ln in lines[index:] if ln.strip()]
        pairs = list(zip(rest, following))
        # The candidate's last line may stop mid-way (token budget): a prefix of the line it repeats counts.
        if all(a == b for a, b in pairs[:-1]) and (pairs[-1][1].startswith(pairs[-1][0])
                                                   if len(rest) <= len(following) else pairs[-1][0] == pairs[-1][1]):
            kept = "\n".join(lines[:index])
            return kept.rstrip(" \t\n") if index else ""
    return text


def cut_repetition(text: str, min_repeats: int = 3) -> str:
    """A small model stuck in a loop repeats a block of 1-4 lines to the end of its budget: keep one copy."""
    lines = [line.strip() for line in text.split("\n")]
    end = len(lines)
    for size in range(1, 5):
        unit = lines[end - size:end]
        count = 1
        while end - size * (count + 1) >= 0 and lines[end - size * (count + 1):end - size * count] == unit:
            count += 1
        if count >= min_repeats and any(len(line) > 2 for line in unit):  # a run of `}` lines is no loop
            return "\n".join(text.split("\n")[:end - size * (count - 1)])
    return text


def remove_suffix_overlap(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Drop the candidate's tail where it retypes the closers already after the cursor (`foo(█)` + `a)`)."""
    suffix = "".join(ctx.line_suffix.split())
    trimmed = text.rstrip(" \t")
    if not suffix or not trimmed:
        return text
    scan = scan_brackets(trimmed, spec, ctx.in_string)
    outer = {index for index, _ in scan.outer_closers}
    closing_quotes = set(scan.stray_quotes)
    for size in range(min(len(suffix), len(trimmed)), 0, -1):
        segment = suffix[:size]
        if not trimmed.endswith(segment):
            continue
        base = len(trimmed) - size

        def removable(pos: int, char: str) -> bool:
            if char in _REMOVABLE_TAIL:
                return True
            if char in CLOSE_TO_OPEN:
                return pos in outer
            if char == ">":  # a generic's closing angle: only if the candidate has more `>` than `<`
                return trimmed.count(">") > trimmed.count("<")
            if char in spec.quotes or char in "\"'`":
                return pos in closing_quotes or pos == scan.open_quote_at  # closes the string around the cursor
            return False

        if all(removable(base + j, c) for j, c in enumerate(segment)):
            return trimmed[:base]
    return text


def drop_comment_before_code(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """A line comment at the candidate's end would comment out the code after the cursor: drop it."""
    if not ctx.line_suffix.strip() or ctx.in_comment:
        return text
    start = scan_brackets(text, spec, ctx.in_string).trailing_comment_at
    return text if start is None else text[:start].rstrip(" \t")


def trim_trailing(text: str, ctx: CursorContext) -> str:
    """Trailing whitespace: all of it at the end of a line, spaces only before text that follows on the line."""
    if not ctx.line_suffix.strip():
        return text.rstrip()
    last = text.rsplit("\n", 1)[-1]
    return text.rstrip(" \t") if last.strip() else text


def newline_before_closer(text: str, ctx: CursorContext) -> str:
    """A block typed between `{` and an auto-closed `}` ends with a newline so the `}` gets its own line."""
    closer = ctx.line_suffix.strip()[:1]
    if "\n" not in text or closer not in CLOSE_TO_OPEN or ctx.opener_before != CLOSE_TO_OPEN[closer]:
        return text
    last = text.rsplit("\n", 1)[-1]
    if not last.strip():
        return text
    return text + "\n" + ctx.line_indent


def cut_at_outer_closer(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Fix: stop at the first closer of a bracket opened before the cursor (the candidate ran past it)."""
    closer = scan_brackets(text, spec, ctx.in_string).first_outer_closer
    return text if closer is None else text[:closer].rstrip(" \t")


def drop_last_line(text: str) -> str:
    """Fix: drop the last line (usually a statement cut off mid-way by the token budget)."""
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[:-1]).rstrip() if len(lines) > 1 else ""


# Where a piece of a candidate can end whole: after a closer, a quoted string, or at the end of a line.
_PIECE_END = re.compile(r"[)\]}]|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|[^\n](?=\n)")


def complete_prefixes(text: str, spec: LanguageSpec) -> list[str]:
    """Fix of last resort: `text` cut back to the end of one of its bracketed expressions, strings or lines
    (not the whole text), longest first, each with the brackets it leaves open closed."""
    out: list[str] = []
    for end in sorted({m.end() for m in _PIECE_END.finditer(text)}, reverse=True):
        piece = balance(text[:end].rstrip(), spec) if end < len(text) else ""
        if any(c.isalnum() for c in piece) and piece not in out and piece != text:
            out.append(piece)
    return out


def balance_brackets(text: str, spec: LanguageSpec) -> str:
    """Fix: close brackets the candidate opened itself (see brackets.balance)."""
    return balance(text, spec)
