"""The smallest piece of a document around the cursor that parses on its own: what candidate checks reparse.

Top-level children of the root always parse standalone. Inside them the search descends into bodies: a
Python block becomes standalone under synthetic `if 1:` headers that reproduce each enclosing indentation
level; a brace-language block or class body under a synthetic wrapper (`function _w() {` … `}`). The window
is then only the statements around the cursor, a few hundred bytes, whatever the file size. Where errors have
broken the tree's structure, indentation finds the enclosing statement or block instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter

from .document import SyntaxDocument

SMALL_WINDOW_BYTES = 200  # windows this small are not worth descending further
MAX_WINDOW_BYTES = 6000  # above this, reparsing the whole document incrementally is cheaper

_FN = (b"function _w() {\n", b"\n}")
_CLASS = (b"class _w {\n", b"\n}")
# Synthetic wrappers that make the inside of a closed `{ … }` node parse as it does in place.
WRAPPERS: dict[str, dict[str, tuple[bytes, bytes]]] = {
    "javascript": {"statement_block": _FN, "class_body": _CLASS},
    "typescript": {"statement_block": _FN, "class_body": _CLASS, "interface_body": (b"interface _w {\n", b"\n}")},
    "tsx": {"statement_block": _FN, "class_body": _CLASS},
    "java": {"block": (b"class _w { void _w() {\n", b"\n}}"), "constructor_body": (b"class _w { _w() {\n", b"\n}}"),
             "class_body": _CLASS, "interface_body": (b"interface _w {\n", b"\n}")},
    "c": {"compound_statement": (b"void _w(void) {\n", b"\n}")},
    "cpp": {"compound_statement": (b"void _w() {\n", b"\n}"), "field_declaration_list": (b"struct _w {\n", b"\n};"),
            "declaration_list": (b"namespace _w {\n", b"\n}")},
    "go": {"block": (b"func _w() {\n", b"\n}")},
    "rust": {"block": (b"fn _w() {\n", b"\n}"), "declaration_list": (b"impl _w {\n", b"\n}")},
}


@dataclass(frozen=True)
class Window:
    """Document bytes [start, end) that parse on their own between `header` and `footer`."""

    start: int
    end: int
    header: bytes = b""
    footer: bytes = b""

    def text(self, data: bytes, at: int, inserted: bytes) -> bytes:
        """The window with `inserted` placed at document byte `at`."""
        # A final newline where the document has one (or after a synthetic footer): Go wants one after a
        # top-level declaration, and at the real end of a file its absence must count.
        newline = b"\n" if self.footer or data[self.end:self.end + 1] in (b"\n", b"\r") else b""
        return self.header + data[self.start:at] + inserted + data[at:self.end] + self.footer + newline

    def position(self, at: int) -> int:
        """Where document byte `at` lands in the window text."""
        return len(self.header) + at - self.start


_CONTINUABLE = ("if", "try", "for", "while")  # statements an `else`/`catch`/`finally` clause may extend
_PUNCTUATION = (";", ":", ",")


def _line_start(data: bytes, byte: int) -> int:
    return data.rfind(b"\n", 0, byte) + 1


class _Children:
    """A node's children, without its own enclosing braces, read by index: materialising every child of a
    large node (a module, a class body) cost more than the rest of the window search."""

    def __init__(self, node: tree_sitter.Node) -> None:
        count = node.child_count
        first = node.child(0) if count else None
        last = node.child(count - 1) if count else None
        braced = count >= 2 and first is not None and last is not None and first.type == "{" and last.type == "}"
        self.node, self.offset, self.count = node, int(braced), count - 2 * int(braced)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> tree_sitter.Node:
        child = self.node.child(self.offset + (index if index >= 0 else self.count + index))
        assert child is not None
        return child

    def starting_by(self, byte: int) -> int:
        """How many children start at or before `byte` (binary search)."""
        low, high = 0, self.count
        while low < high:
            middle = (low + high) // 2
            if self[middle].start_byte <= byte:
                low = middle + 1
            else:
                high = middle
        return low


def _pick(children: _Children, byte: int) -> tuple[int, int, tree_sitter.Node | None]:
    """Range of the statements around `byte`, and the child holding it (or the last one before it).

    The range covers that child and the one after it (text at the cursor may join it: a Rust tail
    expression, a missing `;`), and the one before it when a clause could extend that (`else:`, `catch`).
    """
    if not len(children):
        return byte, byte, None
    index = children.starting_by(byte) - 1
    holder = children[index] if index >= 0 else None
    start = max(index, 0)
    while start >= 1 and children[start].type in _PUNCTUATION:
        start -= 1  # a bare `;`/`:`/`,` token (`public:`, `name: string;`) belongs with the node before it
    previous = children[start - 1] if start >= 1 else None
    while previous is not None and previous.type in _PUNCTUATION and start >= 2:
        start -= 1
        previous = children[start - 1]
    if previous is not None and not any(word in previous.type for word in _CONTINUABLE):
        previous = None
    first = (previous or children[start]).start_byte if holder is not None else byte
    last = min(index + 1, len(children) - 1)
    if last + 1 < len(children) and children[last + 1].type in _PUNCTUATION:
        last += 1  # `struct s { … };` is a specifier child plus a separate `;` child
    return first, max(children[last].end_byte, byte), holder


def _inner_children(node: tree_sitter.Node) -> _Children:
    """Children without the node's own enclosing brackets."""
    return _Children(node)


def _python_block(holder: tree_sitter.Node, byte: int, data: bytes) -> tree_sitter.Node | None:
    """The block (of the holder or its `else`/`except`… clauses) the cursor is in, by position and indentation."""
    if holder.type == "decorated_definition":
        definition = holder.child_by_field_name("definition")
        holder = definition if definition is not None else holder
    blocks = [c for c in holder.children if c.type == "block"]
    blocks += [b for c in holder.children if c.type.endswith("_clause") for b in c.children if b.type == "block"]
    # A cursor in the indentation before a block's first statement is in that block.
    blocks = [b for b in blocks if _line_start(data, b.start_byte) <= byte and b.child_count]
    if not blocks:
        return None
    block = max(blocks, key=lambda b: b.start_byte)
    if byte > block.end_byte:
        # A blank line after the block's last statement belongs to it when indented at least as deep.
        gap = data[block.end_byte:byte]
        line = data[_line_start(data, byte):byte]
        if gap.strip() or len(line) < block.start_point.column:
            return None
    return block


def _brace_block(holder: tree_sitter.Node, byte: int, wrappers: dict[str, tuple[bytes, bytes]]
                 ) -> tree_sitter.Node | None:
    """The outermost closed wrappable `{ … }` node inside `holder` whose braces enclose the cursor."""
    node: tree_sitter.Node | None = holder
    while node is not None:
        if node.type in wrappers:
            children = node.children
            if (len(children) >= 2 and children[0].type == "{" and children[0].end_byte <= byte
                    and children[-1].type == "}" and not children[-1].is_missing
                    and children[-1].start_byte >= byte):
                return node
        node = next((c for c in node.children if c.start_byte < byte < c.end_byte), None)
    return None


def _header_window(holder: tree_sitter.Node, byte: int, window: Window, python: bool,
                   wrappers: dict[str, tuple[bytes, bytes]]) -> Window:
    """Cursor in a big definition's header (`class A:█`): the header plus the body's first statement will do.

    Not for `try`: cut after its body's first statement it lacks its `except`/`catch` and parses broken.
    """
    if "try" in holder.type:
        return window
    if holder.type == "decorated_definition":
        holder = holder.child_by_field_name("definition") or holder
    body = holder.child_by_field_name("body")  # the field name for bodies in all nine grammars
    if body is None or body.start_byte < byte:
        return window
    inner = _inner_children(body)
    if not inner:
        return window
    if python:
        if body.type != "block":
            return window
        return Window(window.start, max(window.start, inner[0].end_byte, byte), window.header, window.footer)
    if body.type not in wrappers or body.children[0].type != "{":
        return window
    closer = b"\n};" if body.type == "field_declaration_list" else b"\n}"
    end = inner[1].end_byte if len(inner) > 1 and inner[1].type in (";", ":") else inner[0].end_byte
    return Window(window.start, max(end, byte), window.header, closer + window.footer)


_PY_COMPOUND = frozenset({b"def", b"async", b"class", b"if", b"for", b"while", b"with", b"try", b"match"})
_PY_CONTINUATIONS = frozenset({b"elif", b"else", b"except", b"finally", b"case"})
_TEXT_SCAN_LINES = 300


def _indent_of(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _first_word(stripped: bytes) -> bytes:
    return re.split(rb"[\s:(]", stripped, maxsplit=1)[0]


def python_text_window(data: bytes, byte: int) -> Window | None:
    """Python window found from indentation alone, for when errors have broken the tree's structure.

    From the nearest compound statement line (`for …:`, `def …:`; for `else:` its `if`) less indented than the
    cursor line, down to the next line indented no deeper than it that does not continue it.
    """
    cursor_start = _line_start(data, byte)
    line_end = data.find(b"\n", byte)
    line_end = len(data) if line_end < 0 else line_end
    cursor_line = data[cursor_start:line_end]
    limit = _indent_of(cursor_line) if cursor_line.strip() else byte - cursor_start
    start = None
    for pos, line in _lines_up(data, cursor_start):
        stripped = line.lstrip(b" \t")
        if not stripped or _indent_of(line) >= limit or not stripped.rstrip().endswith(b":"):
            continue
        word = _first_word(stripped)
        if word in _PY_CONTINUATIONS:
            limit = _indent_of(line) + 1  # keep looking for the statement this clause belongs to
            continue
        if word in _PY_COMPOUND or stripped.startswith(b"@"):
            start = pos
            break
    if start is None:
        return None
    depth = _indent_of(data[start:data.find(b"\n", start)])
    end = line_end
    for pos, line in _lines_down(data, line_end):
        stripped = line.lstrip(b" \t")
        if stripped and _indent_of(line) <= depth and not (
                _indent_of(line) == depth and _first_word(stripped) in _PY_CONTINUATIONS):
            break
        end = pos + len(line)
    else:
        if end < len(data):
            return None
    return Window(start, end, b"if 1:\n" if depth else b"")


_MEMBER_BLOCK = re.compile(rb"\b(class|interface|struct|enum|impl|trait|namespace|union)\b")
# Wrapper for the inside of a block found by text: (statement block, member block) node types.
_TEXT_WRAPPERS = {
    "javascript": ("statement_block", "class_body"), "typescript": ("statement_block", "class_body"),
    "tsx": ("statement_block", "class_body"), "java": ("block", "class_body"),
    "c": ("compound_statement", "compound_statement"), "cpp": ("compound_statement", "field_declaration_list"),
    "go": ("block", "block"), "rust": ("block", "declaration_list"),
}


def _lines_up(data: bytes, pos: int) -> Iterator[tuple[int, bytes]]:
    """(start, text) of the lines above the one starting at `pos`, nearest first."""
    for _ in range(_TEXT_SCAN_LINES):
        if pos == 0:
            return
        pos = _line_start(data, pos - 1)
        end = data.find(b"\n", pos)
        yield pos, data[pos:end if end >= 0 else len(data)]


def _lines_down(data: bytes, end: int) -> Iterator[tuple[int, bytes]]:
    """(start, text) of the lines below the line ending at `end`, nearest first."""
    for _ in range(_TEXT_SCAN_LINES):
        if end >= len(data):
            return
        start = end + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        yield start, data[start:end]


def brace_text_window(data: bytes, byte: int, language: str) -> Window | None:
    """Brace-language window found from indentation, for when errors have broken the tree's structure.

    The inside of the nearest block whose `{` ends a less indented line above the cursor, down to its `}`.
    """
    if language not in _TEXT_WRAPPERS:
        return None
    cursor_start = _line_start(data, byte)
    line_end = data.find(b"\n", byte)
    line_end = len(data) if line_end < 0 else line_end
    cursor_line = data[cursor_start:line_end]
    limit = _indent_of(cursor_line) if cursor_line.strip() else byte - cursor_start
    opener = next(((pos, line) for pos, line in _lines_up(data, cursor_start)
                   if line.strip() and _indent_of(line) < limit and line.rstrip().endswith(b"{")), None)
    if opener is None:
        return None
    depth = _indent_of(opener[1])
    closer = next(((pos, line) for pos, line in _lines_down(data, line_end)
                   if line.strip() and _indent_of(line) <= depth), None)
    if closer is None or not closer[1].lstrip().startswith(b"}"):
        return None
    statement, member = _TEXT_WRAPPERS[language]
    kind = member if _MEMBER_BLOCK.search(opener[1]) else statement
    header, footer = WRAPPERS[language].get(kind, WRAPPERS[language][statement])
    start = opener[0] + len(opener[1]) + 1
    return Window(start, max(closer[0] - 1, byte), header, footer)


def top_level_window(doc: SyntaxDocument, byte: int) -> Window:
    """The top-level statements around `byte` (no synthetic wrapper): wider and slower than choose_window."""
    assert doc.tree is not None
    data = doc.data
    lo, hi, _ = _pick(_Children(doc.tree.root_node), byte)
    line_end = data.find(b"\n", byte)
    line_end = len(data) if line_end < 0 else line_end
    start, end = _line_start(data, min(lo, byte)), max(hi, line_end)
    return Window(start, end)


def choose_window(doc: SyntaxDocument, byte: int) -> Window | None:
    """The smallest window around `byte` that parses standalone, or None to reparse the whole document."""
    assert doc.tree is not None
    data = doc.data
    python = doc.language == "python"
    wrappers = WRAPPERS.get(doc.language or "", {})
    line_end = data.find(b"\n", byte)
    line_end = len(data) if line_end < 0 else line_end
    node = doc.tree.root_node
    header, footer = b"", b""
    while True:
        lo, hi, holder = _pick(_inner_children(node), byte)
        if python:
            start, end = _line_start(data, min(lo, byte)), max(hi, line_end)
        else:
            start, end = min(lo, byte), max(hi, byte)
        window = Window(start, end, header, footer)
        if end - start <= SMALL_WINDOW_BYTES or holder is None:
            break
        if python:
            inner = _python_block(holder, byte, data)
            owner = inner.parent if inner is not None else None
            indent = data[_line_start(data, owner.start_byte):owner.start_byte] if owner is not None else b"x"
            if inner is None or indent.strip():
                window = _header_window(holder, byte, window, python, wrappers)
                break
            header += indent + b"if 1:\n"
        else:
            inner = _brace_block(holder, byte, wrappers)
            if inner is None:
                window = _header_window(holder, byte, window, python, wrappers)
                break
            header, footer = wrappers[inner.type]  # a block's inside parses alone in its own wrapper
        node = inner
    if window.end - window.start > SMALL_WINDOW_BYTES and doc.tree.root_node.has_error:
        # Errors may have broken the tree's structure; indentation may find a tighter window.
        by_text = python_text_window(data, byte) if python else brace_text_window(data, byte, doc.language or "")
        if by_text is not None and by_text.end - by_text.start < window.end - window.start:
            window = by_text
    return window if window.end - window.start <= MAX_WINDOW_BYTES else None
