"""Code actions, the cheap half: which actions a position offers, read from the tree-sitter tree only.

Listing never touches the model: each offer carries, in `data`, everything its resolve needs (kind, document
version, str offsets), and `resolve.py` does the model work later. Offsets are `str` indices into the document
text of that version; a resolve for any other version returns no edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tree_sitter

from ..syntax import SyntaxDocument
from .decide import DEFAULT_THRESHOLD

COMPLETE_BLOCK = "completeBlock"
IMPLEMENT_COMMENT = "implementComment"
ADD_DOCSTRING = "addDocstring"
FIX_SYNTAX = "fixSyntax"  # rank fixes for an error line (model work at resolve)
APPLY_FIX = "applyFix"  # one already-ranked fix (no model work at resolve)

LSP_KINDS = {
    COMPLETE_BLOCK: "refactor.rewrite.laya.completeBlock",
    IMPLEMENT_COMMENT: "refactor.rewrite.laya.implementComment",
    ADD_DOCSTRING: "refactor.rewrite.laya.addDocstring",
    FIX_SYNTAX: "quickfix.laya.fixSyntax",
    APPLY_FIX: "quickfix.laya.fixSyntax",
}

FUNCTION_TYPES = {
    "python": ("function_definition",),
    "javascript": ("function_declaration", "method_definition", "generator_function_declaration"),
    "typescript": ("function_declaration", "method_definition", "generator_function_declaration"),
    "tsx": ("function_declaration", "method_definition", "generator_function_declaration"),
    "go": ("function_declaration", "method_declaration"),
    "rust": ("function_item",),
    "c": ("function_definition",),
    "cpp": ("function_definition",),
    "java": ("method_declaration", "constructor_declaration"),
}


@dataclass
class Offer:
    kind: str
    title: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def lsp_kind(self) -> str:
        return LSP_KINDS[self.kind]


@dataclass
class Edit:
    """Replace text[start:end] with `text` (str offsets in the version the action was computed for)."""

    start: int
    end: int
    text: str


@dataclass
class FixCandidate:
    label: str
    edit: Edit
    confidence: float = 0.0


def line_bounds(text: str, offset: int) -> tuple[int, int]:
    """(start, end) of the line holding `offset`; end excludes the newline."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, len(text) if end < 0 else end


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _node_at(doc: SyntaxDocument, offset: int) -> tree_sitter.Node | None:
    if doc.tree is None:
        return None
    b = doc.byte_offset(offset)
    return doc.tree.root_node.descendant_for_byte_range(b, b)


def comment_line(doc: SyntaxDocument, offset: int) -> tuple[int, int] | None:
    """The line at `offset` when it holds only a line comment (a description of code to write), else None."""
    start, end = line_bounds(doc.text, offset)
    marker = doc.spec.line_comment
    stripped = doc.text[start:end].strip()
    if not marker or not stripped.startswith(marker) or len(stripped) <= len(marker):
        return None
    if doc.language == "python" and stripped.startswith("#!"):
        return None
    return start, end


def enclosing_function(doc: SyntaxDocument, offset: int) -> tree_sitter.Node | None:
    types = FUNCTION_TYPES.get(doc.language or "", ())
    node = _node_at(doc, offset)
    while node is not None and node.type not in types:
        node = node.parent
    return node


def has_doc(doc: SyntaxDocument, fn: tree_sitter.Node) -> bool:
    """A Python docstring as the body's first statement, or a comment right above the function elsewhere."""
    if doc.language == "python":
        body = fn.child_by_field_name("body")
        first = body.named_children[0] if body is not None and body.named_children else None
        return bool(first is not None and first.type == "expression_statement" and first.named_children
                    and first.named_children[0].type == "string")
    prev = fn.prev_named_sibling
    return bool(prev is not None and "comment" in prev.type and prev.end_point[0] >= fn.start_point[0] - 1)


def docstring_site(doc: SyntaxDocument, fn: tree_sitter.Node) -> dict[str, Any] | None:
    """Where the doc goes: after the header line (Python) or above the function (others)."""
    text = doc.text
    if doc.language == "python":
        body = fn.child_by_field_name("body")
        if body is None or body.start_point[0] == fn.start_point[0]:
            return None  # one-line def: no room for a docstring without reformatting
        header_end = line_bounds(text, doc.index_of_byte(body.start_byte))[0] - 1
        body_start = doc.index_of_byte(body.start_byte)
        bline = line_bounds(text, body_start)
        return {"insertAt": header_end, "indent": indent_of(text[bline[0] : bline[1]]), "style": "python"}
    start = doc.index_of_byte(fn.start_byte)
    ls, le = line_bounds(text, start)
    style = {"rust": "rust", "go": "go"}.get(doc.language or "", "block")
    name_node = fn.child_by_field_name("name")
    name = doc.data[name_node.start_byte : name_node.end_byte].decode("utf-8", "replace") if name_node else ""
    return {"insertAt": ls, "indent": indent_of(text[ls:le]), "style": style, "name": name}


def _error_nodes(root: tree_sitter.Node, limit: int = 64) -> tuple[list[tree_sitter.Node], list[tree_sitter.Node]]:
    """(innermost ERROR and MISSING nodes, every ERROR node): the innermost ones point at the broken line, the
    outer ones say which lines a parse error may have swallowed."""
    leaves: list[tree_sitter.Node] = []
    errors: list[tree_sitter.Node] = []
    stack = [root]
    while stack and len(leaves) < limit:
        node = stack.pop()
        if node.is_missing:
            leaves.append(node)
            continue
        if node.is_error:
            errors.append(node)
            inner = [c for c in node.children if c.is_error or c.is_missing or c.has_error]
            if not inner:
                leaves.append(node)
            stack.extend(inner)
        elif node.has_error:
            stack.extend(node.children)
    return leaves, errors


def error_lines(doc: SyntaxDocument, lo: int, hi: int, limit: int = 2) -> list[int]:
    """Line numbers (0-based) in the range [lo, hi] (whole lines) worth a fix: lines where an innermost error
    starts, and the range's first line when it lies inside an error (the user points at the broken line)."""
    if doc.tree is None or not doc.tree.root_node.has_error:
        return []
    first = doc.text.count("\n", 0, line_bounds(doc.text, lo)[0])
    last = doc.text.count("\n", 0, hi)
    leaves, errors = _error_nodes(doc.tree.root_node)
    out: list[int] = []
    for node in sorted(leaves, key=lambda n: n.start_byte):
        line = node.start_point[0]
        if first <= line <= last and line not in out:
            out.append(line)
    if first not in out and any(n.start_point[0] <= first <= n.end_point[0] for n in errors + leaves):
        out.append(first)
    return out[:limit]


def list_offers(
    doc: SyntaxDocument,
    version: int,
    uri: str,
    lo: int,
    hi: int,
    ranked: dict[int, list[FixCandidate]] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[Offer]:
    """Every action the range offers, from the tree alone (no model). `ranked` holds fixes already scored for
    this version (line → candidates): those are offered one by one, with their confidence in the title."""
    base = {"uri": uri, "version": version}
    offers: list[Offer] = []
    for line in error_lines(doc, lo, hi):
        done = (ranked or {}).get(line)
        if done is None:
            offers.append(Offer(FIX_SYNTAX, f"laya: fix the syntax error on line {line + 1}",
                                {**base, "laya": FIX_SYNTAX, "line": line}))
            continue
        for cand in done:
            if cand.confidence >= threshold:
                e = cand.edit
                offers.append(Offer(APPLY_FIX, f"laya: {cand.label} ({cand.confidence:.0%})",
                                    {**base, "laya": APPLY_FIX, "line": line, "start": e.start, "end": e.end,
                                     "text": e.text, "confidence": cand.confidence}))
    com = comment_line(doc, lo)
    if com is not None:
        offers.append(Offer(IMPLEMENT_COMMENT, "laya: implement this comment",
                            {**base, "laya": IMPLEMENT_COMMENT, "at": com[1]}))
    fn = enclosing_function(doc, lo)
    if fn is not None and not has_doc(doc, fn):
        site = docstring_site(doc, fn)
        if site is not None:
            what = "docstring" if doc.language == "python" else "doc comment"
            offers.append(Offer(ADD_DOCSTRING, f"laya: add a {what}", {**base, "laya": ADD_DOCSTRING, **site}))
    offers.append(Offer(COMPLETE_BLOCK, "laya: complete this block", {**base, "laya": COMPLETE_BLOCK, "at": hi}))
    return offers


class RankedFixes:
    """Fixes already ranked for a document version (line → candidates): listed by later requests for free."""

    KEEP_DOCUMENTS = 64

    def __init__(self) -> None:
        self._by_uri: dict[str, tuple[int, dict[int, list[FixCandidate]]]] = {}

    def get(self, uri: str, version: int) -> dict[int, list[FixCandidate]]:
        entry = self._by_uri.get(uri)
        return entry[1] if entry is not None and entry[0] == version else {}

    def put(self, uri: str, version: int, line: int, cands: list[FixCandidate]) -> None:
        entry = self._by_uri.pop(uri, None)
        if entry is None or entry[0] != version:
            entry = (version, {})
        self._by_uri[uri] = entry  # most recent last
        entry[1][line] = cands
        while len(self._by_uri) > self.KEEP_DOCUMENTS:
            del self._by_uri[next(iter(self._by_uri))]


# -- syntax-error fix candidates (rules; the model adds its own at resolve) --------------------------------

_OPEN, _CLOSE = "([{", ")]}"
_PY_HEADERS = ("def ", "class ", "if ", "elif ", "else", "for ", "while ", "try", "except", "finally", "with ",
               "async def ", "async for ", "async with ", "match ", "case ")


def _unclosed(line: str, quotes: str) -> str:
    """Closers for brackets the line opens and does not close (strings skipped)."""
    stack: list[str] = []
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and line[i - 1] != "\\":
                quote = None
        elif ch in quotes:
            quote = ch
        elif ch in _OPEN:
            stack.append(_CLOSE[_OPEN.index(ch)])
        elif ch in _CLOSE and stack and stack[-1] == ch:
            stack.pop()
    return "".join(reversed(stack))


def rule_fixes(doc: SyntaxDocument, line_no: int) -> list[FixCandidate]:
    """Cheap candidate edits for an error line: insert what tree-sitter says is missing, close brackets, add a
    block colon (Python), delete a short stray ERROR token."""
    text = doc.text
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    if line_no >= len(starts):
        return []
    ls, le = line_bounds(text, starts[line_no])
    line = text[ls:le]
    code = line.rstrip()
    out: list[FixCandidate] = []
    seen: set[tuple[int, int, str]] = set()

    def add(label: str, start: int, end: int, new: str) -> None:
        if (start, end, new) not in seen and (start != end or new):
            seen.add((start, end, new))
            out.append(FixCandidate(label, Edit(start, end, new)))

    if doc.tree is not None:
        from ..syntax.validate import error_spans

        for b0, b1 in error_spans(doc.tree.root_node):
            s, e = doc.index_of_byte(b0), doc.index_of_byte(b1)
            if not ls <= s <= le:
                continue
            node = doc.tree.root_node.descendant_for_byte_range(b0, b1)
            if node is not None and node.is_missing and not node.is_named:
                add(f"insert '{node.type}'", s, s, node.type)
            elif node is not None and node.is_error and node.child_count:
                # A stray token is one of the ERROR node's own tokens: offer deleting each short one.
                for child in node.children:
                    cs, ce = doc.index_of_byte(child.start_byte), doc.index_of_byte(child.end_byte)
                    if ls <= cs < ce <= le and child.child_count == 0 and ce - cs <= 3:
                        add(f"delete '{text[cs:ce]}'", cs, ce, "")
            elif e > s and e <= le and e - s <= 24 and text[s:e].strip():
                add(f"delete '{text[s:e].strip()}'", s, e, "")
    closers = _unclosed(code, doc.spec.quotes)
    if closers:
        add(f"close with '{closers}'", ls + len(code), ls + len(code), closers)
    stripped = code.lstrip()
    if doc.language == "python" and stripped.startswith(_PY_HEADERS) and not code.endswith(":"):
        add("add ':'", ls + len(code), ls + len(code), (closers or "") + ":")
    return out
