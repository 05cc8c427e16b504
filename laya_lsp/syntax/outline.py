"""A same-file outline: the imports, signatures and names a file defines above a point, as short code.

The prompt's prefix window holds only the code just above the cursor; the names a completion needs (an import,
a method of the class being written, an attribute set in `__init__`, a constant) are often further up. The
outline lists them in the file's own language with bodies elided, the entries nearest the point first when the
budget is short:

    import os
    class Cache(Base):
        def __init__(self, size: int) -> None:
            self.size = ...
        def get(self, key): ...

It is a pure function of the text it is given (parsed on its own, so an error typed further down cannot change
it): given the text above the prompt's window, it changes only when that text does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter

from .languages import new_parser


@dataclass(frozen=True)
class OutlineRules:
    """Which tree-sitter node types a language's outline keeps, and how it writes what it leaves out."""

    imports: frozenset[str]  # kept whole (their first MAX_LINES lines)
    definitions: dict[str, str]  # node type -> its body field, left out (functions, methods)
    containers: dict[str, str]  # node type -> its body field, whose members are outlined (classes)
    names: frozenset[str]  # kept whole when short (assignments, fields, type declarations)
    # A name node kept only when its first named child is one of these (an assignment, not a call statement).
    name_children: dict[str, frozenset[str]]
    wrappers: frozenset[str]  # outlined as the node they wrap, their own head kept (export, decorators)
    scopes: frozenset[str]  # statements whose blocks are searched at the same depth (try/if at module level)
    blocks: frozenset[str]  # statement lists (bodies): what a function value in a long name is cut before
    indent: str
    opener: str  # ends a header whose members follow
    elided: str  # ends a header whose body is left out
    closer: str = ""  # closes a container whose members were listed
    # The constructor's `receiver.name = ...` assignments are names too (`self.size`, `this.size`).
    receiver: str | None = None
    constructor: str | None = None

    @property
    def attribute_value(self) -> str:
        return " = ..." if not self.closer else " = ...;"


_PY_SCOPES = frozenset({"try_statement", "if_statement", "else_clause", "except_clause", "finally_clause",
                        "elif_clause", "with_statement", "block"})
_PYTHON = OutlineRules(
    imports=frozenset({"import_statement", "import_from_statement", "future_import_statement"}),
    definitions={"function_definition": "body"},
    containers={"class_definition": "body"},
    names=frozenset({"expression_statement", "type_alias_statement"}),
    name_children={"expression_statement": frozenset({"assignment"})},
    wrappers=frozenset({"decorated_definition"}),
    scopes=_PY_SCOPES,
    blocks=frozenset({"block"}),
    indent="    ", opener=":", elided=": ...", receiver="self", constructor="__init__",
)
_JS_DEFINITIONS = {"function_declaration": "body", "generator_function_declaration": "body",
                   "method_definition": "body"}
_JS_NAMES = frozenset({"lexical_declaration", "variable_declaration", "field_definition",
                       "public_field_definition", "expression_statement"})
_JS = OutlineRules(
    imports=frozenset({"import_statement"}),
    definitions=_JS_DEFINITIONS,
    containers={"class_declaration": "body"},
    names=_JS_NAMES,
    name_children={"expression_statement": frozenset({"assignment_expression"})},
    wrappers=frozenset({"export_statement"}),
    scopes=frozenset(),
    blocks=frozenset({"statement_block"}),
    indent="  ", opener=" {", elided=" { ... }", closer="}", receiver="this", constructor="constructor",
)
_TS = OutlineRules(
    imports=_JS.imports,
    definitions={**_JS_DEFINITIONS, "function_signature": "", "abstract_method_signature": ""},
    containers={**_JS.containers, "abstract_class_declaration": "body", "interface_declaration": "body",
                "internal_module": "body"},
    names=_JS_NAMES | {"type_alias_declaration", "enum_declaration", "property_signature", "method_signature",
                       "ambient_declaration"},
    name_children=_JS.name_children,
    wrappers=_JS.wrappers,
    scopes=frozenset(),
    blocks=_JS.blocks,
    indent="  ", opener=" {", elided=" { ... }", closer="}", receiver="this", constructor="constructor",
)
_GO = OutlineRules(
    imports=frozenset({"package_clause", "import_declaration"}),
    definitions={"function_declaration": "body", "method_declaration": "body"},
    containers={},
    names=frozenset({"type_declaration", "const_declaration", "var_declaration"}),
    name_children={},
    wrappers=frozenset(),
    scopes=frozenset(),
    blocks=frozenset({"block"}),
    indent="\t", opener=" {", elided=" { ... }",
)
_RUST = OutlineRules(
    imports=frozenset({"use_declaration", "extern_crate_declaration", "mod_item"}),
    definitions={"function_item": "body", "function_signature_item": ""},
    containers={"impl_item": "body", "trait_item": "body"},
    names=frozenset({"struct_item", "enum_item", "const_item", "static_item", "type_item"}),
    name_children={},
    wrappers=frozenset(),
    scopes=frozenset(),
    blocks=frozenset({"block"}),
    indent="    ", opener=" {", elided=" { ... }", closer="}",
)
_JAVA = OutlineRules(
    imports=frozenset({"package_declaration", "import_declaration"}),
    definitions={"method_declaration": "body", "constructor_declaration": "body"},
    containers={"class_declaration": "body", "interface_declaration": "body", "enum_declaration": "body",
                "record_declaration": "body"},
    names=frozenset({"field_declaration", "constant_declaration"}),
    name_children={},
    wrappers=frozenset(),
    scopes=frozenset(),
    blocks=frozenset({"block", "constructor_body"}),
    indent="    ", opener=" {", elided=" { ... }", closer="}",
)
_C_SCOPES = frozenset({"preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif", "linkage_specification",
                       "declaration_list"})
_C = OutlineRules(
    imports=frozenset({"preproc_include", "preproc_def", "preproc_function_def"}),
    definitions={"function_definition": "body"},
    containers={},
    names=frozenset({"declaration", "type_definition", "struct_specifier", "enum_specifier", "union_specifier"}),
    name_children={},
    wrappers=frozenset(),
    scopes=_C_SCOPES,
    blocks=frozenset({"compound_statement"}),
    indent="    ", opener=" {", elided=" { ... }",
)
_CPP = OutlineRules(
    imports=_C.imports | {"using_declaration", "alias_declaration", "namespace_alias_definition"},
    definitions={"function_definition": "body"},
    containers={"namespace_definition": "body", "class_specifier": "body", "struct_specifier": "body"},
    names=frozenset({"declaration", "type_definition", "enum_specifier", "union_specifier", "field_declaration",
                     "template_declaration"}),
    name_children={},
    wrappers=frozenset(),
    scopes=_C_SCOPES - {"declaration_list"},
    blocks=_C.blocks,
    indent="    ", opener=" {", elided=" { ... }", closer="}",
)

RULES: dict[str, OutlineRules] = {
    "python": _PYTHON, "javascript": _JS, "typescript": _TS, "tsx": _TS, "go": _GO, "rust": _RUST,
    "java": _JAVA, "c": _C, "cpp": _CPP,
}
MAX_LINES = 6  # an import or a name longer than this is cut: the outline lists names, not data


@dataclass
class OutlineEntry:
    """One outlined piece: its header lines (indentation relative to its first line) and its members."""

    start: int  # byte offset in the outlined text: entries nearer the end are kept first
    kind: str  # "import", "name", "definition" (body elided) or "container" (members listed)
    lines: list[str]
    members: list[OutlineEntry] = field(default_factory=list)


def outline_entries(text: str, language: str) -> list[OutlineEntry]:
    """The outline entries of `text` (parsed on its own) in file order; none for a language without rules."""
    rules = RULES.get(language)
    if rules is None or not text.strip():
        return []
    data = text.encode("utf-8", "surrogatepass")
    tree = new_parser(language).parse(data)
    return _Outliner(data, rules).members(tree.root_node)


def outline(text: str, language: str | None, max_chars: int) -> str:
    """The outline of `text` written as code in `language`, at most `max_chars` characters ("" if none).

    Imports come first when the budget is short, then the entries nearest the end of `text`; an entry brings
    the headers of the entries it is in."""
    if language is None or max_chars <= 0:
        return ""
    rules = RULES.get(language)
    entries = outline_entries(text, language)
    if rules is None or not entries:
        return ""
    chosen = _choose(entries, rules, max_chars)
    return "".join(_render(entries, chosen, rules, 0))


def _walk(entries: list[OutlineEntry], parents: tuple[OutlineEntry, ...] = ()
          ) -> Iterator[tuple[OutlineEntry, tuple[OutlineEntry, ...]]]:
    for entry in entries:
        yield entry, parents
        yield from _walk(entry.members, parents + (entry,))


def _cost(entry: OutlineEntry, depth: int, rules: OutlineRules) -> int:
    """Characters the entry adds when written at `depth` (with its closer, or its elided body)."""
    width = len(rules.indent) * depth
    extra = len(rules.elided) + width + 1 + len(rules.closer) if entry.kind in ("definition", "container") else 0
    return sum(width + len(line) + 1 for line in entry.lines) + extra


def _choose(entries: list[OutlineEntry], rules: OutlineRules, max_chars: int) -> set[int]:
    """Ids of the entries that fit: imports, then nearest the end first, each with the headers above it."""
    flat = list(_walk(entries))
    order = sorted(flat, key=lambda item: (item[0].kind != "import", -item[0].start))
    chosen: set[int] = set()
    used = 0
    for entry, parents in order:
        new = [(p, d) for d, p in enumerate(parents) if id(p) not in chosen] + [(entry, len(parents))]
        cost = sum(_cost(e, d, rules) for e, d in new)
        if used + cost <= max_chars:
            chosen.update(id(e) for e, _ in new)
            used += cost
    return chosen


def _render(entries: list[OutlineEntry], chosen: set[int], rules: OutlineRules, depth: int) -> Iterator[str]:
    pad = rules.indent * depth
    for entry in entries:
        if id(entry) not in chosen:
            continue
        lines = [pad + line for line in entry.lines]
        members = [m for m in entry.members if id(m) in chosen]
        if entry.kind not in ("definition", "container"):
            yield "".join(line + "\n" for line in lines)
        elif not members:
            yield "".join(line + "\n" for line in lines[:-1]) + lines[-1] + rules.elided + "\n"
        else:
            yield "".join(line + "\n" for line in lines[:-1]) + lines[-1] + rules.opener + "\n"
            yield from _render(members, chosen, rules, depth + 1)
            if rules.closer:
                yield pad + rules.closer + "\n"


def _dedent(text: str, column: int) -> list[str]:
    """A node's non-blank lines, the later ones shifted left by the column its first line started at."""
    first, *rest = text.split("\n")
    out = [first.rstrip()]
    for line in rest:
        cut = min(column, len(line) - len(line.lstrip(" \t")))
        out.append(line[cut:].rstrip())
    return [line for line in out if line.strip()]


class _Outliner:
    """Walks one parsed text under one language's rules."""

    def __init__(self, data: bytes, rules: OutlineRules) -> None:
        self.data = data
        self.rules = rules

    def lines(self, node: tree_sitter.Node, start: int, end: int) -> list[str]:
        return _dedent(self.data[start:end].decode("utf-8", "replace"), node.start_point[1])

    def members(self, parent: tree_sitter.Node) -> list[OutlineEntry]:
        out: list[OutlineEntry] = []
        for child in parent.named_children:
            out += self.entries(child, child.start_byte)
        return out

    def entries(self, node: tree_sitter.Node, start: int) -> list[OutlineEntry]:
        """The outline of `node`, its kept text starting at byte `start` (a wrapper's head comes before it)."""
        r, kind = self.rules, node.type
        if kind in r.wrappers:
            inner = node.named_children[-1] if node.named_children else None
            return self.entries(inner, start) if inner is not None else []
        if kind in r.scopes:
            return self.members(node)
        if kind in r.imports:
            return [OutlineEntry(node.start_byte, "import", self.lines(node, start, node.end_byte)[:MAX_LINES])]
        if kind in r.definitions or kind in r.containers:
            return [self.definition(node, start)]
        if kind in r.names:
            wanted = r.name_children.get(kind)
            if wanted is not None and not (node.named_children and node.named_children[0].type in wanted):
                return []
            return [self.name(node, start)]
        return []

    def definition(self, node: tree_sitter.Node, start: int) -> OutlineEntry:
        """A function's signature, a class's header with its members, or a constructor with its attributes."""
        r = self.rules
        container = node.type in r.containers
        body_field = r.containers[node.type] if container else r.definitions[node.type]
        body = node.child_by_field_name(body_field) if body_field else None
        if body is None:
            return OutlineEntry(node.start_byte, "name", self.lines(node, start, node.end_byte)[:MAX_LINES])
        header_end = max((c.end_byte for c in node.children
                          if c.end_byte <= body.start_byte and c.type not in ("comment", ":")), default=start)
        entry = OutlineEntry(node.start_byte, "container" if container else "definition",
                             self.lines(node, start, header_end) or [""])
        if container:
            entry.members = self.members(body)
        elif r.receiver is not None and _name(node) == r.constructor:
            entry.members = self.attributes(body)
        return entry

    def attributes(self, body: tree_sitter.Node) -> list[OutlineEntry]:
        """`self.name = ...` for each attribute a constructor sets (first assignment; nested functions aside)."""
        receiver = (self.rules.receiver or "").encode()
        seen: set[bytes] = set()
        out: list[OutlineEntry] = []
        stack = [body]
        while stack:
            node = stack.pop()
            if node.type in ("assignment", "assignment_expression"):
                left = node.child_by_field_name("left")
                target = left.text if left is not None else None
                if left is not None and target and left.named_children and left.named_children[0].text == receiver \
                        and left.type in ("attribute", "member_expression") and target not in seen:
                    seen.add(target)
                    out.append(OutlineEntry(node.start_byte, "name",
                                            [target.decode("utf-8", "replace") + self.rules.attribute_value]))
                continue
            if node.type not in self.rules.definitions and node.type not in self.rules.containers:
                stack.extend(reversed(node.named_children))
        return sorted(out, key=lambda e: e.start)

    def name(self, node: tree_sitter.Node, start: int) -> OutlineEntry:
        """A name: a function value cut before its body; whole when short, else its first line."""
        lines = self.lines(node, start, node.end_byte)
        block = _first_descendant(node, self.rules.blocks) if len(lines) > 1 else None
        if block is not None:
            lines = self.lines(node, start, block.start_byte) or [""]
            lines[-1] = lines[-1].rstrip().removesuffix("{").rstrip() + self.rules.elided
        if len(lines) > MAX_LINES:
            lines = [lines[0] + " ..."]
        return OutlineEntry(node.start_byte, "name", lines)


def _name(node: tree_sitter.Node) -> str | None:
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8", "replace") if name is not None and name.text is not None else None


def _first_descendant(node: tree_sitter.Node, types: frozenset[str]) -> tree_sitter.Node | None:
    """The first node of one of `types` under `node`, in document order."""
    stack = list(reversed(node.named_children))
    while stack:
        child = stack.pop()
        if child.type in types:
            return child
        stack.extend(reversed(child.named_children))
    return None
