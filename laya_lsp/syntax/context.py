"""What surrounds the cursor: the facts both the completion plan and the post-processing rules read.

Computed once per (document version, offset) and cached on the document, from local text only (a few lines
around the cursor) plus a handful of tree lookups, so a request never walks the whole file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import tree_sitter

from .brackets import CLOSE_TO_OPEN, OPEN_TO_CLOSE, outside_quotes, scan_brackets
from .document import SyntaxDocument
from .languages import LanguageSpec

_STRING_TYPES = frozenset({"string", "string_literal", "template_string", "raw_string_literal",
                           "interpreted_string_literal", "char_literal", "character_literal", "rune_literal",
                           "string_content", "string_fragment", "template_literal"})
_FIRST_WORD = re.compile(r"[A-Za-z_]+")  # `if(x):` starts with `if`
_CODE_IN_STRING = frozenset({"template_substitution", "interpolation", "string_interpolation"})
_PY_COMPOUND = frozenset({"def", "class", "if", "elif", "else", "for", "while", "try", "except", "finally",
                          "with", "async", "match", "case"})
_SCAN_LINES = 24  # lines either side of the cursor used to guess the indentation unit
_TEXT_SCAN_CHARS = 3000  # how far the text fallback looks for a closing bracket
_LEVEL_SCAN_CHARS = 20000  # how far up the text fallback looks for the enclosing blocks of a broken tree


def leading_ws(line: str) -> str:
    """The indentation of a line."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def width(indent: str) -> int:
    """Display width of an indentation string (tabs count 4)."""
    return len(indent.expandtabs(4))


@dataclass(frozen=True)
class CursorContext:
    """The cursor's surroundings, as plain strings and flags."""

    offset: int
    line_prefix: str  # text of the cursor line before the cursor
    line_suffix: str  # text of the cursor line after the cursor, without the line ending
    eol: str  # the document's line ending ("\n" or "\r\n")
    line_indent: str  # indentation of the cursor line
    prev_line: str | None  # nearest line of code above the cursor line (blank and comment-only lines skipped)
    next_lines: tuple[str, ...]  # up to eight non-blank lines below the cursor line
    indent_unit: str  # one level of indentation in this document
    in_comment: bool
    in_string: str | None  # the quote of the string literal the cursor is in (`"`, `\"\"\"`…), if any
    opener_before: str | None  # the block/bracket opener ending the code right before the cursor
    enclosing_closed: bool  # the bracket enclosing the cursor is already closed later in the document
    empty_block: bool  # the syntax block around the cursor has no statements yet
    in_brackets: bool = False  # inside a call/list/dict: continuation lines align freely
    in_interpolation: bool = False  # code inside a string (`${…}`, f-string `{…}`): its quote follows
    code_above: tuple[tuple[int, str], ...] = ()  # (indent width, stripped text) of non-blank lines above
    indent_levels: tuple[int, ...] = ()  # Python: indentation widths of the blocks open here, outermost first

    @property
    def prefix_blank(self) -> bool:
        """True when only indentation precedes the cursor on its line."""
        return not self.line_prefix.strip()

    @property
    def expected_indent(self) -> str:
        """Indentation a new statement at the cursor should have."""
        if not self.prefix_blank:
            return self.line_indent
        base = leading_ws(self.prev_line) if self.prev_line is not None else ""
        return base + self.indent_unit if self.opener_before else base


def _last_code_end(text: str, line_start: int) -> int | None:
    """Index just after the last code above the line starting at `line_start` (blank and `#` lines skipped)."""
    end = line_start
    while end > 0:
        start = max(text.rfind("\n", 0, end - 1), text.rfind("\r", 0, end - 1)) + 1
        body = text[start:end].strip()
        if body and not body.startswith("#"):
            return start + len(text[start:end].rstrip())
        end = start
    return None


def _levels_from_tree(doc: SyntaxDocument, code_end: int) -> tuple[int, ...] | None:
    """Python: the indentation of every block enclosing the code that ends at `code_end`, from the tree
    (continuation lines and string contents, whose indentation is free, do not count); None unless the file
    parses cleanly from column 0 (error recovery, or a file cut out of a larger one, misplaces blocks)."""
    assert doc.tree is not None
    root = doc.tree.root_node
    first_statement = next((c for c in root.children if not _is_comment(c)), None)
    if root.has_error or (first_statement is not None and first_statement.start_point.column != 0):
        return None
    data = doc.data
    byte = doc.byte_offset(code_end) - 1
    node: tree_sitter.Node | None = root.descendant_for_byte_range(byte, byte)
    levels = {0}
    while node is not None:
        if node.type == "block":
            first = next((c for c in node.children if not _is_comment(c)), None)
            if first is not None:
                line_start = data.rfind(b"\n", 0, first.start_byte) + 1
                lead = data[line_start:first.start_byte]
                if not lead.strip():  # not a one-line body (`if x: y`), which opens no indentation level
                    levels.add(width(lead.decode("utf-8", "replace")))
        node = node.parent
    return tuple(sorted(levels))


def _levels_from_text(doc: SyntaxDocument, line_start: int) -> tuple[int, ...]:
    """Python, when the tree is broken: each lower indentation met going up from the cursor line, down to a
    line at column 0; () when none is met within `_LEVEL_SCAN_CHARS` (the levels are then unknown). Lines the
    tree puts inside a string do not count (their indentation is free)."""
    text = doc.text
    root = doc.tree.root_node if doc.tree is not None else None
    levels: list[int] = []
    position = line_start
    for line in reversed(text[max(0, line_start - _LEVEL_SCAN_CHARS):line_start].splitlines(keepends=True)):
        position -= len(line)
        content = line.rstrip("\r\n")
        body = content.lstrip(" \t")
        if not body or body.startswith("#"):
            continue
        level = width(content[: len(content) - len(body)])
        if levels and level >= levels[0]:
            continue
        if root is not None:
            byte = doc.byte_offset(position + len(content) - len(body))
            string = _ancestor(root.descendant_for_byte_range(byte, byte), _is_string)
            if string is not None and string.start_byte < byte:  # the line starts inside an earlier string
                continue
        levels.insert(0, level)
        if level == 0:
            return tuple(levels)
    return (0,) if not text[:line_start].strip() else ()


def _indent_levels(doc: SyntaxDocument, line_start: int) -> tuple[int, ...]:
    """Python: the indentation widths of the blocks open at the cursor line, outermost first (every enclosing
    block of the code above, however far up it starts); () when they cannot be known."""
    code_end = _last_code_end(doc.text, line_start)
    if code_end is None:
        return (0,)
    levels = _levels_from_tree(doc, code_end) if doc.tree is not None else None
    return levels if levels is not None else _levels_from_text(doc, line_start)


def _lines_around(text: str, offset: int) -> tuple[int, int]:
    """Start of the cursor line and end of its content (before the line ending)."""
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    end = len(text)
    for sep in ("\n", "\r"):
        found = text.find(sep, offset)
        if found >= 0:
            end = min(end, found)
    return start, end


def _indent_unit(lines: list[str], default: str) -> str:
    """Most common positive indentation step between neighbouring lines; tabs if lines start with tabs."""
    steps: Counter[int] = Counter()
    tabs = spaces = 0
    previous = 0
    for line in lines:
        body = line.lstrip(" \t")
        if not body:
            continue
        first = line[0]
        tabs += first == "\t"
        spaces += first == " "
        current = len(line) - len(body) if first != "\t" else width(line[: len(line) - len(body)])
        if current > previous:
            steps[current - previous] += 1
        previous = current
    if tabs > spaces:
        return "\t"
    return " " * steps.most_common(1)[0][0] if steps else default


def _ancestor(node: tree_sitter.Node | None, test: object) -> tree_sitter.Node | None:
    while node is not None:
        if test(node):  # type: ignore[operator]
            return node
        node = node.parent
    return None


def _is_comment(node: tree_sitter.Node) -> bool:
    return "comment" in node.type


def _is_string(node: tree_sitter.Node) -> bool:
    return node.type in _STRING_TYPES


def _comment_or_string(doc: SyntaxDocument, byte: int) -> tuple[bool, str | None]:
    """Whether the byte offset lies inside a comment, or inside a string (and with which quote)."""
    assert doc.tree is not None
    root = doc.tree.root_node
    node = root.descendant_for_byte_range(max(byte - 1, 0), byte)
    comment = _ancestor(node, _is_comment)
    if comment is not None and comment.start_byte < byte:
        closed_block = doc.spec.block_comment and doc.data[:comment.end_byte].endswith(
            doc.spec.block_comment[1].encode())
        if byte < comment.end_byte or not closed_block:
            return True, None
    # Code inside a string (`${x}` in a template, `{x}` in an f-string) is code, not string.
    string = _ancestor(node, lambda n: _is_string(n) or n.type in _CODE_IN_STRING)
    if string is not None and string.type in _CODE_IN_STRING:
        return False, None
    while string is not None and string.parent is not None and _is_string(string.parent):
        string = string.parent
    if string is not None and string.start_byte < byte:
        last = string.children[-1] if string.child_count else None
        if byte < string.end_byte or (last is not None and last.is_missing):
            raw = doc.data[string.start_byte:string.start_byte + 8].decode("utf-8", "ignore")
            at = next((i for i, c in enumerate(raw) if c in "\"'`"), None)
            if at is None:
                return False, '"'
            quote = raw[at]
            return False, quote * 3 if raw.startswith(quote * 3, at) else quote  # `\"\"\"` for a triple-quoted one
    return False, None


def _in_interpolation(doc: SyntaxDocument, byte: int) -> bool:
    """True inside `${…}` of a template or `{…}` of an f-string."""
    if doc.tree is None:
        return False
    node = doc.tree.root_node.descendant_for_byte_range(max(byte - 1, 0), byte)
    return _ancestor(node, lambda n: n.type in _CODE_IN_STRING) is not None


def _text_comment_or_string(prefix: str, spec: LanguageSpec) -> tuple[bool, str | None]:
    """Fallback (no grammar): quotes and comment markers on the cursor line decide."""
    outside, open_quote = outside_quotes(prefix, spec.quotes)
    marker = spec.line_comment
    if marker and any(prefix.startswith(marker, i) for i in outside):
        return True, None  # (the first marker outside a string starts the comment; quotes after it are text)
    return False, open_quote


def _header_colon(doc: SyntaxDocument, index: int) -> bool:
    """Python: the `:` at `index` ends a compound statement's header spanning lines (`) -> None:`), as the
    tree says (its first line holds the keyword)."""
    if doc.tree is None:
        return False
    byte = doc.byte_offset(index)
    node = doc.tree.root_node.descendant_for_byte_range(byte, byte + 1)
    parent = node.parent if node is not None and node.type == ":" else None
    return parent is not None and parent.type.endswith(("_definition", "_statement", "_clause"))


def _opener_before(doc: SyntaxDocument, code: str, code_end: int) -> str | None:
    """The opener (`{`, `(`, `[`, or `:` in Python) ending `code` (before a trailing comment), unless it is
    inside a comment or string."""
    stripped = code.rstrip()
    if not stripped:
        return None
    if doc.tree is not None:  # `def f():  # why` still opens a block
        start = code_end - len(code)
        byte = doc.byte_offset(start + len(stripped) - 1)
        comment = _ancestor(doc.tree.root_node.descendant_for_byte_range(byte, byte + 1), _is_comment)
        if comment is not None and comment.start_byte > doc.byte_offset(start):
            code_end = doc.index_of_byte(comment.start_byte)
            code = doc.text[start:code_end]
            stripped = code.rstrip()
            if not stripped:
                return None
    last = stripped[-1]
    spec = doc.spec
    if last == ":" and ":" in spec.block_openers:
        first_word = _FIRST_WORD.match(stripped.lstrip())
        if spec.indentation_syntax and (first_word is None or first_word.group() not in _PY_COMPOUND) \
                and not _header_colon(doc, code_end - (len(code) - len(stripped)) - 1):
            return None  # a slice, a dict entry or an annotation, not a block
    elif last not in OPEN_TO_CLOSE:
        return None
    if doc.tree is not None:
        byte = doc.byte_offset(code_end - (len(code) - len(stripped)) - 1)
        node = doc.tree.root_node.descendant_for_byte_range(byte, byte + 1)
        if _ancestor(node, lambda n: _is_comment(n) or _is_string(n)) is not None:
            return None
    return last


def _closed_by_text(text: str, offset: int, opener: str | None, spec: LanguageSpec) -> bool:
    """Fallback when the tree cannot tell: does a closer for `opener` follow the cursor (nearby)?"""
    if opener not in OPEN_TO_CLOSE:
        return True
    scan = scan_brackets(text[offset:offset + _TEXT_SCAN_CHARS], spec)
    return bool(scan.outer_closers) and scan.outer_closers[0][1] == OPEN_TO_CLOSE[opener]


def _enclosing_state(doc: SyntaxDocument, byte: int) -> tuple[bool | None, bool, bool]:
    """For the innermost bracket around `byte`: is it closed (None = unknown)? is it an empty block? is it an
    expression bracket (a call, list or dict rather than a block)?"""
    if doc.tree is None:
        return None, False, False
    root = doc.tree.root_node
    here, before = root.descendant_for_byte_range(byte, byte), root.descendant_for_byte_range(max(byte - 1, 0), byte)
    # At the end of a node (`{█` with a MISSING `}`) only the node of the character before reaches inside it.
    node: tree_sitter.Node | None = here
    if here is None or (before is not None and before.end_byte - before.start_byte < here.end_byte - here.start_byte):
        node = before
    closed: bool | None = None
    empty = expression = False
    while node is not None and closed is None:
        # child(i), not .children: the ancestors include the root, whose children may number hundreds.
        first = node.child(0) if node.child_count else None
        last = node.child(node.child_count - 1) if node.child_count > 1 else None
        has_closer = last is not None and last.type in CLOSE_TO_OPEN and not last.is_missing
        after_closer = has_closer and last is not None and last.start_byte < byte  # `f(x)█`: outside it
        if first is not None and first.type in OPEN_TO_CLOSE and first.start_byte < byte and not after_closer:
            closed = has_closer
            if node.type in doc.spec.block_types:
                empty = not any(c.is_named and not _is_comment(c) for c in node.children)
            else:
                expression = True
        node = node.parent
    return closed, empty, expression


def cursor_context(doc: SyntaxDocument, offset: int) -> CursorContext:
    """The cursor's surroundings for `offset` (a `str` index), cached per document version."""
    cached = doc.memo.get(("context", offset))
    if isinstance(cached, CursorContext):
        return cached
    text = doc.text
    offset = max(0, min(offset, len(text)))
    start, end = _lines_around(text, offset)
    eol = "\r\n" if text.find("\r\n", max(0, start - 2), end + 2) >= 0 or "\r\n" in text[:2000] else "\n"
    before = text[max(0, start - 2000):start].splitlines()[-_SCAN_LINES:]
    after = text[end:end + 1000].splitlines()[1:_SCAN_LINES // 2]
    comment = doc.spec.line_comment
    prev_line = next(
        (ln for ln in reversed(before) if ln.strip() and not (comment and ln.lstrip().startswith(comment))), None
    )
    next_lines = tuple(ln for ln in after if ln.strip())[:8]
    line_prefix, line_suffix = text[start:offset], text[offset:end]
    spec = doc.spec
    byte = doc.byte_offset(offset)
    if doc.tree is not None:
        in_comment, in_string = _comment_or_string(doc, byte)
    else:
        in_comment, in_string = _text_comment_or_string(line_prefix, spec)
    if line_prefix.strip():
        opener = _opener_before(doc, line_prefix, offset)
    elif prev_line is not None:
        prev_end = text.rfind(prev_line, 0, start) + len(prev_line)
        opener = _opener_before(doc, prev_line, prev_end)
    else:
        opener = None
    closed, empty, in_brackets = _enclosing_state(doc, byte)
    if not in_brackets and doc.tree is not None and doc.tree.root_node.has_error:
        # Error recovery may have lost the bracket around the cursor (`if (a and█` above its rest): the lines
        # from the statement's first line (the nearest one indented less than the cursor's) tell.
        depth = width(leading_ws(text[start:end]))
        first = next((i for i in range(len(before) - 1, -1, -1)
                      if before[i].strip() and width(leading_ws(before[i])) < depth), len(before))
        in_brackets = bool(scan_brackets("\n".join([*before[first:], line_prefix]), spec).unclosed)
    if closed is None:
        closed = _closed_by_text(text, offset, opener, spec)
    indented = spec.indentation_syntax
    context = CursorContext(
        offset=offset, line_prefix=line_prefix, line_suffix=line_suffix, eol=eol,
        line_indent=leading_ws(text[start:end]), prev_line=prev_line, next_lines=next_lines,
        indent_unit=_indent_unit(before[-12:] + [text[start:end]] + after[:6], spec.default_indent),
        in_comment=in_comment, in_string=in_string, opener_before=opener, enclosing_closed=closed, empty_block=empty,
        in_brackets=in_brackets,
        code_above=tuple((width(leading_ws(ln)), ln.strip()) for ln in before if ln.strip()) if indented else (),
        in_interpolation=any(q in line_suffix for q in "\"'`") and _in_interpolation(doc, byte),
        indent_levels=_indent_levels(doc, start) if indented else (),
    )
    doc.memo[("context", offset)] = context
    return context
