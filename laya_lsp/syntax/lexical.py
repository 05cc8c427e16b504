"""Checks the grammars' error recovery lets through, replayed from the languages' own lexical rules.

Python's indentation and line continuation (tree-sitter-python accepts a dedent to no open level, an indent
without a `:` line, and joins `x =` with the next line), and in every language a last line left open by an
operator, which the code below would be glued onto.
"""

from __future__ import annotations

from .brackets import scan_brackets
from .context import CursorContext, leading_ws, width
from .languages import LanguageSpec


def cut_at_inconsistent_indent(text: str, ctx: CursorContext, spec: LanguageSpec) -> str:
    """Python: stop at a line whose indentation matches no open block (a dedent to nowhere, or an indent
    without a `:` line before it). Python rejects such a file; tree-sitter-python quietly accepts it."""
    if not spec.indentation_syntax or not ctx.indent_levels or ctx.in_brackets or ctx.in_comment:
        return text
    if ctx.in_string is not None or '"""' in text or "\'\'\'" in text:
        return text  # string contents have free indentation
    if (ctx.prev_line or "").rstrip().endswith((",", "(", "[", "{", "\\")):
        return text  # the cursor line continues a bracket or a backslash line: its indentation is free
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
        opens, first = (ctx.line_prefix + lines[0]).rstrip().endswith(":"), 1
    for index in range(first, len(lines)):
        line = lines[index]
        body = line.strip()
        if not body or body.startswith("#") or depths[index] > 0:
            continue
        indent = width((ctx.line_prefix if index == 0 else "") + leading_ws(line))
        if not _indent_fits(stack, indent, opens):
            return "\n".join(lines[:index]).rstrip() if index else ""
        opens = body.endswith(":")
    scan = scan_brackets(text, spec)
    # The code that follows must still fit: the rest of the cursor line when the candidate pushes it down,
    # else the next line (unless the candidate leaves a bracket or a backslash line open).
    if ctx.prefix_blank and ctx.line_suffix.strip():
        following: str | None = ctx.line_prefix + ctx.line_suffix
    else:  # even on one line: `except E:█` + `x` turns the clause into a one-liner, the body below then fails
        following = ctx.next_lines[0] if ctx.next_lines else None
    if (following is not None and not scan.unclosed and not text.rstrip().endswith("\\")
            and not following.lstrip().startswith("#")
            and not _indent_fits(stack, width(leading_ws(following)), opens)):
        return ""
    return text


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


def python_line_left_open(text: str, ctx: CursorContext, spec: LanguageSpec) -> bool:
    """Python: a line of the candidate ends with an operator outside any bracket (`x =`, `a and`). Python
    rejects it; tree-sitter-python quietly joins it with the next line."""
    if not spec.indentation_syntax or ctx.in_brackets or ctx.in_comment or ctx.in_string is not None:
        return False
    lines = text.split("\n")
    scan = scan_brackets(text, spec)
    depths = [*scan.line_depths[1:], len(scan.unclosed)]  # bracket depth at the end of each line
    for line, depth in zip(lines, depths):
        code = line.split("#", 1)[0].rstrip() if "#" in line and "'" not in line and '"' not in line else line.rstrip()
        if depth == 0 and code and code.endswith(_PY_OPEN_END) and not code.endswith(("->", "**")):
            if code.endswith(".") and code[-2:-1].isdigit():
                continue  # a float literal (`1.`), not an attribute access
            return True
    return False


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
