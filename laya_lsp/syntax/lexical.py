"""Checks the grammars' error recovery lets through, replayed from the languages' own lexical rules.

Python's indentation and line continuation (tree-sitter-python accepts a dedent to no open level, an indent
without a `:` line, and joins `x =` with the next line), and in every language a last line left open by an
operator, which the code below would be glued onto.
"""

from __future__ import annotations

import re

from .brackets import outside_quotes, scan_brackets
from .context import CursorContext, leading_ws, width
from .languages import LanguageSpec


def cut_at_inconsistent_indent(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Python: stop at a line whose indentation matches no open block (a dedent to nowhere, or an indent
    without a `:` line before it), and at the last statement after which the code below still fits (a block
    typed above code may run on past the header that code needs). Python rejects such a file;
    tree-sitter-python quietly accepts it."""
    if not spec.indentation_syntax or not ctx.indent_levels or ctx.in_brackets or ctx.in_comment:
        return text
    if ctx.in_string is not None or '"""' in text or "\'\'\'" in text:
        return text  # string contents have free indentation
    if (ctx.prev_line or "").rstrip().endswith((",", "(", "[", "{", "\\")):
        return text  # the cursor line continues a bracket or a backslash line: its indentation is free
    if _opens_bracket(ctx, spec):
        return text
    lines = text.split("\n")
    depths = scan_brackets(text, spec).line_depths
    stack = list(ctx.indent_levels)
    opens = ctx.opener_before == ":"
    first = 0
    if not ctx.prefix_blank:  # the first line continues the cursor line, whose indentation is given
        cursor_indent = width(ctx.line_indent)
        while len(stack) > 1 and stack[-1] > cursor_indent:
            stack.pop()
        if cursor_indent > stack[-1]:
            stack.append(cursor_indent)
        opens, first = _code_of(ctx.line_prefix + lines[0], spec).endswith(":"), 1
    # Lines above, nearest last, as (indent, code): an `else:`/`except:` needs its statement right above.
    above = list(ctx.code_above)
    if not ctx.prefix_blank:
        above.append((width(ctx.line_indent), (ctx.line_prefix + lines[0]).strip()))
    # Where the candidate may end (after a whole statement) and the levels open there: (lines kept, stack, opens).
    ends = [(first, list(stack), opens)]
    for index in range(first, len(lines)):
        line = lines[index]
        body = line.strip()
        if not body or body.startswith("#") or depths[index] > 0:
            continue
        indent = width((ctx.line_prefix if index == 0 else "") + leading_ws(line))
        if not _indent_fits(stack, indent, opens) or not _clause_has_owner(body, indent, above):
            lines = lines[:index]
            break
        above.append((indent, body))
        # Opens a block: ends in `:` outside brackets and comments (`(# x:` then more lines does not).
        end_depth = depths[index + 1] if index + 1 < len(depths) else len(scan_brackets(text, spec).unclosed)
        opens = end_depth == 0 and _code_of(body, spec).endswith(":")
        if end_depth == 0:
            ends.append((index + 1, list(stack), opens))
    last_end, levels, opened = ends[-1]
    if not any(line.strip() and not line.strip().startswith("#") for line in lines[last_end:]):
        ends[-1] = (len(lines), levels, opened)  # blank lines and comments after the last statement stay
    if len(lines) == len(depths) and (scan_brackets(text, spec).unclosed or text.rstrip().endswith("\\")):
        return text  # what follows continues an open bracket or line: its indentation is free
    # The code that follows must still fit after it: the longest candidate that leaves it fitting is kept.
    for keep, levels, opened in reversed(ends):
        if _following_fits(levels, opened, ctx, spec):
            return text if keep == len(depths) else "\n".join(lines[:keep]).rstrip()
    return ""


def _following_fits(stack: list[int], opens: bool, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Does the code after the candidate still fit, line by line, until it is back at the cursor line's
    level? The rest of the cursor line when the candidate pushes it down, then the next lines. (Even a one-line
    candidate matters: `except E:█` + `x` makes a one-liner, and the indented body below then fails.)"""
    pushed = [ctx.line_prefix + ctx.line_suffix] if ctx.prefix_blank and ctx.line_suffix.strip() else []
    base = width(ctx.line_prefix if ctx.prefix_blank else ctx.line_indent)
    following = [*pushed, *ctx.next_lines]
    after = scan_brackets("\n".join(following), spec)
    for line, depth, end_depth in zip(following, after.line_depths, [*after.line_depths[1:], len(after.unclosed)]):
        body = line.strip()
        if body.startswith("#"):
            continue
        if depth == 0:  # a continuation line inside brackets has free indentation
            indent = width(leading_ws(line))
            if not _indent_fits(stack, indent, opens):
                return False
            if indent <= base or '"""' in body or "\'\'\'" in body:
                break  # back at the cursor's level; or a multi-line string, whose inside has free indentation
        if end_depth == 0:  # a statement spanning lines opens a block where its last line ends in `:`
            opens = _code_of(body, spec).endswith(":")
    return True


_BRACE_OPEN_END = ("=", "+", "-", "*", "%", "&", "|", "^", "!", "?", ".", "<", "=>", "->")


def last_line_left_open(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Any language: the candidate's last line ends with an operator (`x =`, `a &&`) outside brackets, so the
    code that follows would be glued onto it. (Inside the document's brackets a continuation is normal.)"""
    if spec.indentation_syntax or ctx.in_brackets or ctx.in_comment or ctx.in_string is not None:
        return False
    scan = scan_brackets(text, spec)
    if scan.unclosed or scan.trailing_comment_at is not None or scan.open_quote:
        return False
    code = text.rstrip().rsplit("\n", 1)[-1].rstrip()
    return code.endswith(_BRACE_OPEN_END) and not code.endswith(("++", "--"))


_PY_OPEN_END = ("=", "+", "-", "*", "/", "%", "&", "|", "^", "<", ">", ".", "@", "~", " and", " or", " not")


def _code_of(line: str, spec: LanguageSpec) -> str:
    """The line without its trailing comment (`def f():  # why` opens a block; a `#` in a string stays)."""
    comment = scan_brackets(line, spec).trailing_comment_at if spec.line_comment and spec.line_comment in line \
        else None
    return (line if comment is None else line[:comment]).rstrip()


def _opens_bracket(ctx: CursorContext, spec: LanguageSpec) -> bool:
    """The cursor line itself leaves a bracket open (`d = {█` where the tree, broken, could not tell)."""
    return bool(ctx.line_prefix.strip() and scan_brackets(ctx.line_prefix, spec).unclosed)


_BAD_ESCAPE = re.compile(
    r"(?<!\\)(?:\\\\)*\\(?:x(?![0-9a-fA-F]{2})|u(?![0-9a-fA-F]{4})|U(?![0-9a-fA-F]{8})|N(?!\{))")


def python_bad_escape(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Python: inside a string, `\\x`, `\\u`, `\\U`, `\\N` must be complete escapes (tree-sitter does not
    check them)."""
    return spec.indentation_syntax and ctx.in_string is not None and _BAD_ESCAPE.search(text) is not None


# A decimal literal with a leading zero (`01`, `007`), not preceded by a name, number or dot; `0`, `00`, `0.5`,
# `0x1f` and `0o7` are fine.
_LEADING_ZERO = re.compile(r"(?<![\w.])0+[1-9]\d*(?![\w.])")


def python_leading_zero(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Python: the candidate joined with the code around it makes `01` (tree-sitter-python accepts it)."""
    if not spec.indentation_syntax or ctx.in_comment or ctx.in_string is not None:
        return False
    first, _, rest = text.partition("\n")
    last = (rest or first).split("\n")[-1]
    around = [ctx.line_prefix + first + (ctx.line_suffix if not rest else "")]
    if rest:
        around.append(last + ctx.line_suffix)
    return any(_LEADING_ZERO.search(_strip_strings(line, spec)) for line in around)


def _strip_strings(line: str, spec: LanguageSpec) -> str:
    code = _code_of(line, spec)
    return re.sub(r"(\"[^\"]*\"|'[^']*')", '""', code)


def breaks_one_line_string(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Any language but Rust: a line break inside a one-line string literal (`"…"`, `'…'`) ends it there."""
    quote = ctx.in_string
    return (quote is not None and len(quote) == 1 and quote != "`" and spec.name != "rust"
            and "\n" in text.split(quote, 1)[0])


def python_line_left_open(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Python: a line of the candidate that Python rejects and tree-sitter-python lets through: one ending
    with an operator outside any bracket (`x =`, `a and`; tree-sitter joins it with the next line), a `:` that
    opens no block (`foo:`, `for x in y: z:`), or a final backslash that glues the following code on."""
    if not spec.indentation_syntax or ctx.in_brackets or ctx.in_comment or ctx.in_string is not None:
        return False
    if _opens_bracket(ctx, spec):
        return False
    if text.rstrip().endswith("\\"):
        return True
    lines = text.split("\n")
    lines[0] = ctx.line_prefix + lines[0]  # the first line completes the cursor line
    scan = scan_brackets(text, spec)
    depths = [*scan.line_depths[1:], len(scan.unclosed)]  # bracket depth at the end of each line
    for line, depth in zip(lines, depths):
        code = _code_of(line, spec)
        if depth or not code:
            continue
        if code.endswith(_PY_OPEN_END) and not code.endswith(("->", "**", "...")):  # `...` is Ellipsis
            if code.endswith(".") and code[-2:-1].isdigit():
                continue  # a float literal (`1.`), not an attribute access
            return True
        if code.endswith(":") and not _opens_block(code.strip()):
            return True
    return False


_PY_HEADERS = frozenset({"def", "class", "if", "elif", "else", "for", "while", "with", "try", "except",
                         "finally", "async", "match", "case"})
_WORD = re.compile(r"[A-Za-z_]+")


def _opens_block(code: str) -> bool:
    """A line ending in `:` is a block header: a compound keyword first, and no other top-level colon."""
    word = _WORD.match(code)
    if word is None or word.group() not in _PY_HEADERS:
        return False
    depth, colons = 0, 0
    for index in outside_quotes(code, "\"'")[0]:
        char = code[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ":" and depth == 0 and code[index + 1:index + 2] != "=":  # `:=` is the walrus
            colons += 1
    return colons == 1


# The clause → what the line starting its statement's previous part may begin with.
_OWNERS = {
    "elif": frozenset({"if", "elif"}),
    "else": frozenset({"if", "elif", "for", "while", "except", "async"}),
    "except": frozenset({"try", "except"}),
    "finally": frozenset({"try", "except", "else"}),
}


def _clause_has_owner(body: str, indent: int, above: list[tuple[int, str]]) -> bool:
    """`elif`/`else`/`except`/`finally` must continue a compound statement at its own indentation: the
    nearest line above that is not more indented must be at that level and start with `if`, `try`, … .
    Where the lines seen above hold none (a body longer than they reach), the owner is unknown: it fits."""
    word = _WORD.match(body)
    if word is None or word.group() not in _OWNERS:
        return True
    for level, code in reversed(above):
        if code.startswith("#") or level > indent:
            continue
        owner = _WORD.match(code)
        return level == indent and owner is not None and owner.group() in _OWNERS[word.group()]
    return True


def _indent_fits(stack: list[int], indent: int, opens: bool) -> bool:
    """Python's tokenizer rule: deeper only right after a `:` line (and then it must be deeper), else back to
    an open level. Updates `stack` like the tokenizer's INDENT/DEDENT."""
    if opens or indent > stack[-1]:
        if not opens or indent <= stack[-1]:
            return False
        stack.append(indent)
        return True
    while len(stack) > 1 and stack[-1] > indent:
        stack.pop()
    return stack[-1] == indent
