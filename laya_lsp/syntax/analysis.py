"""Names that exist at a position: what the decoder may be steered towards (monitor-guided decoding).

    site = names_at(SyntaxDocument(text, "python", uri), offset, others=[text of other buffers])
`site.trigger` says what kind of name comes at the cursor (`after_dot`, `arguments`, `expression`, `statement`,
or `none`), `site.names` the names that may start there (None: the analysis cannot see, so nothing is
constrained), `site.members` the names after a receiver the model may write (`self.`, `this.`).

Python asks jedi (attributes of the object before the dot, names in scope with builtins and keywords, keyword
arguments, installed modules' members); an unresolved receiver gives no completions and so no constraint. Every
other grammar language takes the identifiers written in the file and in the other buffers, with the grammar's
keywords: names that exist, not a type analysis (the orchestrator's policy only biases towards them).

Runs off the keystroke path (the orchestrator calls it on its own thread, once per document version and
cursor); it parses its own copy of the text, so the request's document is never touched from two threads.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import cache
from urllib.parse import unquote, urlparse

import tree_sitter

from .context import cursor_context
from .document import SyntaxDocument

log = logging.getLogger(__name__)

TRIGGERS = ("after_dot", "arguments", "expression", "statement", "none")
_TYPED = re.compile(r"[A-Za-z_$][\w$]*$")
_WORD_BEFORE = re.compile(r"([A-Za-z_]\w*)$")
# Words after which an expression starts (a name that must exist); `def`, `class`, `as`, `for`, `import` name
# something new or a module, so they are no trigger.
_EXPRESSION_WORDS = frozenset({"return", "if", "elif", "while", "in", "not", "and", "or", "yield", "await", "assert",
                               "else", "is", "del", "raise", "case", "match", "throw", "new", "typeof", "delete",
                               "void", "instanceof", "go", "defer"})
_EXPRESSION_AFTER = tuple("=+-*/%<>!&|^~[{:?")
_IDENT_NODES = frozenset({"identifier", "type_identifier", "field_identifier", "property_identifier",
                          "shorthand_property_identifier", "shorthand_property_identifier_pattern",
                          "private_property_identifier", "package_identifier", "namespace_identifier"})
_CLASS_NODES = frozenset({"class_definition", "class_declaration", "class", "abstract_class_declaration",
                          "struct_item", "impl_item", "struct_specifier", "class_specifier"})
_SELF_NAMES = ("self", "this")
_MAX_NAMES = 5000  # beyond this a set steers little and costs a big trie


@dataclass(frozen=True)
class NameSite:
    """What the analysis knows at one cursor (see the module docstring)."""

    trigger: str
    typed: str = ""  # identifier characters typed before the cursor
    names: frozenset[str] | None = None
    members: dict[str, frozenset[str]] = field(default_factory=dict)
    exact: bool = False  # names from a type analysis (jedi), not only the names written somewhere
    scope: frozenset[str] | None = None  # names in scope on the cursor's line (for expressions the model writes)
    line: str = ""  # the cursor's line before `typed`


def trigger_at(doc: SyntaxDocument, offset: int) -> tuple[str, str]:
    """(trigger kind, identifier typed before the cursor) at `offset`, from the line before the cursor."""
    ctx = cursor_context(doc, offset)
    line = ctx.line_prefix
    m = _TYPED.search(line)
    typed = m.group(0) if m else ""
    if ctx.in_comment or (ctx.in_string is not None and not ctx.in_interpolation) or (typed and typed[0].isdigit()):
        return "none", typed
    before = line[: len(line) - len(typed)]
    code = before.rstrip()
    if code.endswith(("->", "::")) or (code.endswith(".") and not code.endswith("..")):
        return ("after_dot" if before == code else "none"), typed
    if not code:
        return "statement", typed
    if code.endswith(("(", ",")) and ctx.in_brackets:
        return "arguments", typed
    word = _WORD_BEFORE.search(code)
    if word is not None:
        return ("expression" if word.group(1) in _EXPRESSION_WORDS and before != code else "none"), typed
    if code.endswith(_EXPRESSION_AFTER) or code.endswith(("(", ",")):
        return "expression", typed
    return "none", typed


def names_at(doc: SyntaxDocument, offset: int, others: list[str] | tuple[str, ...] = (), uri: str = "") -> NameSite:
    """The names that may come at `offset` of `doc` (a copy owned by the caller's thread) and after `self.`;
    `others`: texts of other buffers, `uri`: the document's (jedi resolves imports relative to its path)."""
    trigger, typed = trigger_at(doc, offset)
    ctx = cursor_context(doc, offset)
    line = ctx.line_prefix[: len(ctx.line_prefix) - len(typed)]
    members = _self_members(doc, offset)
    if doc.spec.name == "python":
        return _python_site(doc, offset, trigger, typed, line, members, uri)
    if doc.tree is None:
        return NameSite(trigger, typed, None, members, line=line)
    keywords = _keywords(doc.spec.name)
    written = set(_written_names(doc)) | keywords
    for text in others:
        written |= _written_names(SyntaxDocument(text, doc.spec.language_ids[0]))
    scope = frozenset(written) if len(written) <= _MAX_NAMES else None
    names = {n for n in written if n not in keywords} if trigger == "after_dot" else written
    found = frozenset(n for n in names if n.startswith(typed))
    first = found if 0 < len(found) <= _MAX_NAMES and trigger != "none" else None
    return NameSite(trigger, typed, first, members, scope=scope, line=line)


def _python_site(doc: SyntaxDocument, offset: int, trigger: str, typed: str, line: str,
                 members: dict[str, frozenset[str]], uri: str) -> NameSite:
    """jedi's names at the cursor and, for the line the model writes, in scope there. At the start of a
    statement they are asked at the indentation the new line will have (a blank line's column 0 is the module's
    scope, not the function's)."""
    text = doc.text
    ctx = cursor_context(doc, offset)
    if not ctx.line_prefix.strip() and ctx.expected_indent.startswith(ctx.line_prefix):
        extra = ctx.expected_indent[len(ctx.line_prefix):]
        text, offset, line = text[:offset] + extra + text[offset:], offset + len(extra), ctx.expected_indent
    names = _jedi_names(text, offset, typed, uri) if trigger != "none" else None
    if trigger in ("statement", "expression", "arguments"):
        scope = _jedi_names(text, offset - len(typed), "", uri)
    else:  # (after a dot the cursor's completions are attributes: ask at the start of the line)
        start = text.rfind("\n", 0, offset) + 1
        indent = start + len(text[start:offset]) - len(text[start:offset].lstrip(" \t"))
        scope = _jedi_names(text, indent, "", uri)
    # A new statement may define a name (the line to infill often defines one the code below reads): the names
    # written anywhere in the file join it and the scope (a bias, by the policy, never a mask).
    written = _written_names(doc)
    if trigger == "statement":
        names = frozenset(n for n in (names or frozenset()) | written if n.startswith(typed)) or None
    scope = (scope or frozenset()) | written or None
    return NameSite(trigger, typed, names, members, exact=True, scope=scope, line=line)


def _jedi_names(text: str, offset: int, typed: str, uri: str) -> frozenset[str] | None:
    """jedi's completions at `offset` of `text` as bare names (keyword arguments without their `=`); None when
    it finds none (an unresolved receiver) or fails."""
    import jedi  # a heavy import, paid on the analysis thread at its warm-up

    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1)
    path = _path(uri)
    try:
        completions = jedi.Script(text, path=path).complete(line, column)
    except Exception:
        log.debug("jedi failed at %s:%d:%d", path, line, column, exc_info=True)
        return None
    names = frozenset(c.name.rstrip("=") for c in completions if c.name.rstrip("=").startswith(typed))
    return names or None


def _path(uri: str) -> str | None:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" and parsed.path.endswith(".py") else None


def _written_names(doc: SyntaxDocument) -> set[str]:
    """Every identifier written in `doc` (declared or used: a name written once exists somewhere)."""
    if doc.tree is None:
        return set()
    out: set[str] = set()
    data = doc.data
    cursor = doc.tree.walk()
    while True:
        node = cursor.node
        if node is not None and node.type in _IDENT_NODES and node.child_count == 0:
            out.add(data[node.start_byte : node.end_byte].decode("utf-8", "replace"))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return out


@cache
def _keywords(language: str) -> frozenset[str]:
    """The grammar's keywords: its anonymous nodes spelled as words (`return`, `new`, `true`)."""
    doc = SyntaxDocument("", language)
    lang = doc.parser.language if doc.parser is not None else None
    if lang is None:
        return frozenset()
    words = (lang.node_kind_for_id(i) for i in range(lang.node_kind_count)
             if not lang.node_kind_is_named(i) and lang.node_kind_is_visible(i))
    return frozenset(w for w in words if w and re.fullmatch(r"[A-Za-z_]\w*", w))


def _self_members(doc: SyntaxDocument, offset: int) -> dict[str, frozenset[str]]:
    """{"self" or "this": the members of the class around the cursor}: its methods, fields and the attributes
    its code assigns or reads through self/this (empty outside a class)."""
    if doc.tree is None:
        return {}
    byte = doc.byte_offset(offset)
    node: tree_sitter.Node | None = doc.tree.root_node.descendant_for_byte_range(max(0, byte - 1), max(0, byte - 1))
    while node is not None and node.type not in _CLASS_NODES:
        node = node.parent
    if node is None:
        return {}
    data = doc.data
    names: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        stack.extend(n.children)
        if n.type in ("function_definition", "method_definition", "method_declaration", "function_item",
                      "field_declaration", "public_field_definition", "field_definition"):
            name = n.child_by_field_name("name") or n.child_by_field_name("property") \
                or n.child_by_field_name("declarator")
            if name is not None and name.type in _IDENT_NODES | {"identifier"}:
                names.add(data[name.start_byte : name.end_byte].decode("utf-8", "replace"))
        elif n.type in ("attribute", "member_expression", "field_expression"):
            obj = n.child_by_field_name("object") or n.child_by_field_name("argument")
            attr = n.child_by_field_name("attribute") or n.child_by_field_name("property") \
                or n.child_by_field_name("field")
            if obj is not None and attr is not None and attr.end_byte != byte \
                    and data[obj.start_byte : obj.end_byte].decode() in _SELF_NAMES:  # (not the one being typed)
                names.add(data[attr.start_byte : attr.end_byte].decode("utf-8", "replace"))
    names = {n for n in names if re.fullmatch(r"[A-Za-z_$][\w$]*", n)}
    if not names:
        return {}
    frozen = frozenset(names)
    return {"self": frozen} if doc.spec.name == "python" else {"this": frozen}


def warm_up() -> None:
    """Load jedi and its view of the builtins once (its first completion takes most of a second)."""
    try:
        import jedi

        jedi.Script("import os\nos.pa").complete(2, 5)
        jedi.Script("x = [1]\nx.").complete(2, 2)
    except Exception:
        log.warning("jedi failed to warm up: Python completions are not steered", exc_info=True)
