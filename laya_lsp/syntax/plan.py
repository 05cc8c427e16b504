"""Per request: complete at all, and one line or a block? The answer feeds the engine's stop rules and budget."""

from __future__ import annotations

from dataclasses import dataclass

from .context import CursorContext, cursor_context, leading_ws, width
from .document import SyntaxDocument

# What may follow the cursor on its line and still allow a completion: closers the editor auto-inserted.
_ALLOWED_AFTER = frozenset(")]}>\"'`;,: \t")


@dataclass(frozen=True)
class SyntaxSettings:
    """The syntax layer's knobs. The server sets the first four from its `laya` settings (config.py:
    `completeInComments`, `completeInStrings`, `inlineMaxLines`), whose defaults are these; the rest are fixed."""

    complete_in_comments: bool = True  # comments are prose the model writes well; single line there
    complete_in_strings: bool = True  # string contents (messages, SQL, paths) are often predictable
    multiline: bool = True  # allow block completions at all
    max_lines: int = 8  # cap for a block completion
    single_line_max_tokens: int = 64
    multi_line_max_tokens: int = 256
    reject_new_errors: bool = True  # drop candidates that add syntax errors (grammar languages only)
    complete_before_code: bool = True  # cursor in a line's indentation, code after it: insert a line above


@dataclass(frozen=True)
class CompletionPlan:
    """The decision for one request.

    `stop_at_newline`: the engine may stop decoding at the first newline that follows non-blank output (a
    leading newline is allowed so a completion can start on the next line). `max_tokens` is the token budget.
    """

    complete: bool
    reason: str
    multiline: bool = False
    max_lines: int = 1
    stop_at_newline: bool = True
    max_tokens: int = 64
    indent: str = ""  # indentation new code at the cursor should have
    in_comment: bool = False
    in_string: bool = False
    # Cursor in the indentation of a line with code: the completion is whole lines inserted above that code;
    # post-processing ends it with a line break and the indentation so the code keeps its place.
    before_code: bool = False
    # The completion is one statement with its body (a decorated `def`/`class`): it ends where that body does.
    one_statement: bool = False


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char in "_$"


def _body_is_empty(ctx: CursorContext) -> bool:
    """True when nothing deeper than the opener line follows it (the block has no statements yet)."""
    opener_line = ctx.line_prefix if not ctx.prefix_blank else (ctx.prev_line or "")
    if not ctx.next_lines:
        return True
    return width(leading_ws(ctx.next_lines[0])) <= width(leading_ws(opener_line))


_DECORATED = ("def ", "async ", "class ", "@")


def _decorates_nothing_yet(ctx: CursorContext) -> bool:
    """Python: the line above is a decorator and no definition follows it yet (a header alone, without its
    body, would not parse: the definition has to come whole)."""
    if not ctx.prefix_blank or ctx.prev_line is None or not ctx.prev_line.lstrip().startswith("@"):
        return False
    return not ctx.next_lines or not ctx.next_lines[0].lstrip().startswith(_DECORATED)


def _needs_opener(ctx: CursorContext, doc: SyntaxDocument) -> bool:
    """Python: the code after the cursor is indented deeper than the code above, and nothing above opens a
    block: the lines to insert must open one (a single line could only be a header, often not enough)."""
    if not doc.spec.indentation_syntax or ctx.prev_line is None or ctx.in_brackets:
        return False
    return width(ctx.line_prefix + leading_ws(ctx.line_suffix)) > width(leading_ws(ctx.prev_line))


def _skip(reason: str, ctx: CursorContext) -> CompletionPlan:
    return CompletionPlan(False, reason, in_comment=ctx.in_comment, in_string=ctx.in_string is not None)


def plan_completion(doc: SyntaxDocument, offset: int, settings: SyntaxSettings | None = None) -> CompletionPlan:
    """Decide whether to complete at `offset` (a `str` index) and whether to ask for one line or a block.

    Reasons when `complete` is False: `in_comment`, `in_string` (disabled by settings), `mid_word` (a word
    character right after the cursor), `code_after_cursor` (code other than closing brackets, quotes, `;`, `,`
    follows on the line). When True: `in_comment`, `in_string`, `line_before_code` / `block_before_code` (only
    indentation before the cursor, code after it: whole lines are inserted above), `empty_document`, `empty_block`,
    `after_block_opener`, `after_bracket`, `after_decorator` (these last five are multi-line) or `single_line`.
    """
    settings = settings or SyntaxSettings()
    ctx = cursor_context(doc, offset)
    if ctx.in_comment and not settings.complete_in_comments:
        return _skip("in_comment", ctx)
    if ctx.in_string is not None and not settings.complete_in_strings:
        return _skip("in_string", ctx)
    suffix = ctx.line_suffix
    rest = suffix.strip()
    closes_comment = ctx.in_comment and doc.spec.block_comment is not None and rest == doc.spec.block_comment[1]
    # A quote after the cursor closes the string the cursor is in; outside a string it opens one: code.
    quoted = ctx.in_string is not None or ctx.in_interpolation
    allowed = _ALLOWED_AFTER if quoted else _ALLOWED_AFTER - set("\"'`")
    code_after = not closes_comment and any(char not in allowed for char in rest)
    in_text = ctx.in_comment or ctx.in_string is not None
    if code_after and ctx.prefix_blank and not in_text and settings.complete_before_code:
        # Only indentation before the cursor: new whole lines go above the code (infilling between lines);
        # a block if the line above opens one, as anywhere else, or if the code needs one opened.
        if (ctx.opener_before is not None or _needs_opener(ctx, doc)) and settings.multiline:
            return CompletionPlan(
                True, "block_before_code", multiline=True, max_lines=settings.max_lines, stop_at_newline=False,
                max_tokens=settings.multi_line_max_tokens, indent=ctx.expected_indent, before_code=True,
            )
        return CompletionPlan(
            True, "line_before_code", max_tokens=settings.single_line_max_tokens, indent=ctx.expected_indent,
            before_code=True,
        )
    if suffix and _is_word_char(suffix[0]):
        return _skip("mid_word", ctx)
    if code_after:
        return _skip("code_after_cursor", ctx)

    single = CompletionPlan(
        True, "single_line", max_tokens=settings.single_line_max_tokens, indent=ctx.expected_indent,
        in_comment=ctx.in_comment, in_string=ctx.in_string is not None,
    )
    if ctx.in_comment or ctx.in_string is not None:
        return CompletionPlan(**{**single.__dict__, "reason": "in_comment" if ctx.in_comment else "in_string"})
    if not settings.multiline:
        return single
    return _block_or(single, doc, ctx, settings)


def _block_or(single: CompletionPlan, doc: SyntaxDocument, ctx: CursorContext,
              settings: SyntaxSettings) -> CompletionPlan:
    """A block plan where the cursor starts one (after a decorator, in an empty document or block, after an
    opener whose body is empty), else `single`."""
    reason: str | None = None
    if doc.spec.indentation_syntax and _decorates_nothing_yet(ctx):
        return CompletionPlan(
            True, "after_decorator", multiline=True, max_lines=settings.max_lines, stop_at_newline=False,
            max_tokens=settings.multi_line_max_tokens, indent=ctx.expected_indent, one_statement=True,
        )
    if not doc.text.strip():
        reason = "empty_document"
    elif ctx.empty_block:
        reason = "empty_block"
    elif ctx.opener_before is not None and _body_is_empty(ctx) and not (
            ctx.opener_before in "([" and ctx.line_suffix.strip()):  # `foo(█)`: arguments fit on the line
        bracket = ctx.opener_before in "([" or (ctx.opener_before == "{" and doc.spec.indentation_syntax)
        reason = "after_bracket" if bracket else "after_block_opener"
    if reason is None:
        return single
    return CompletionPlan(
        True, reason, multiline=True, max_lines=settings.max_lines, stop_at_newline=False,
        max_tokens=settings.multi_line_max_tokens, indent=ctx.expected_indent,
    )
