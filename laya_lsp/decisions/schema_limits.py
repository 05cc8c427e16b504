"""Admission for client JSON Schemas: what the server will compile, checked before any model work.

A schema is the client's data, and three things in it cost the server without bound: nesting (jsonschema's own
meta-schema check recurses ~10 frames per level and ends in RecursionError past ~90 objects deep), size (the
grammar grows with every property: 5,000 required properties compile for seconds and cannot be closed within
the decoder's step limit), and `$ref` cycles that never nest a value (`{"$ref": "#"}` admits no answer at all).
`check_schema` walks the schema without recursion and refuses each with SchemaLimitError naming the limit.
Grammar compile cost is bounded by llguidance's own limits (`GRAMMAR_LIMITS`, used in structured.py).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote


class SchemaError(ValueError):
    """The schema is not valid JSON Schema, is over a limit, or cannot be compiled to a grammar."""

MAX_SCHEMA_DEPTH = 64  # levels of JSON nesting in the schema document (objects ~2 levels each, arrays 1)
MAX_SCHEMA_BYTES = 64 * 1024  # the schema as compact JSON
MAX_SCHEMA_PROPERTIES = 256  # named properties, summed over every `properties` in the schema

# Keywords whose subschemas describe the same value (no nesting in between): a `$ref` cycle through only these
# never ends. Through the others (properties, items, ...) a recursive schema describes a tree, which is fine.
SAME_VALUE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "$ref")


class SchemaLimitError(SchemaError):
    """The schema is over one of the server's limits (`limit` names it)."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message)
        self.limit = limit


def limits() -> dict[str, int]:
    """The limits, as documented (README, docs/http.md)."""
    return {"maxSchemaDepth": MAX_SCHEMA_DEPTH, "maxSchemaBytes": MAX_SCHEMA_BYTES,
            "maxSchemaProperties": MAX_SCHEMA_PROPERTIES}


def check_schema(schema: dict[str, Any]) -> None:
    """Raise SchemaLimitError when `schema` is too deep, too large, has too many properties or a `$ref` cycle."""
    _check_shape(schema)
    size = len(json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    if size > MAX_SCHEMA_BYTES:
        raise SchemaLimitError("maxSchemaBytes", f"schema is {size} bytes as JSON; the limit is {MAX_SCHEMA_BYTES}")
    _check_refs(schema)


def _check_shape(schema: Any) -> None:
    """Depth and property count, iteratively (a recursive walk is what a deep schema breaks)."""
    stack: list[tuple[Any, int]] = [(schema, 1)]
    properties = 0
    while stack:
        node, depth = stack.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaLimitError("maxSchemaDepth",
                                   f"schema nests deeper than {MAX_SCHEMA_DEPTH} levels of JSON objects and arrays")
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                properties += len(props)
                if properties > MAX_SCHEMA_PROPERTIES:
                    raise SchemaLimitError("maxSchemaProperties", f"schema names more than {MAX_SCHEMA_PROPERTIES} "
                                           "properties (counted over all its objects)")
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)


def _resolve(root: dict[str, Any], ref: str) -> tuple[str, Any]:
    """(the ref, its target) for a local `$ref`; SchemaLimitError for any other kind."""
    if ref == "#" or ref == "#/":
        return ref, root
    if not ref.startswith("#/"):
        raise SchemaLimitError("localRefs", f"$ref {ref[:80]!r} is not supported: only local JSON-pointer refs "
                               "('#' or '#/...') are")
    node: Any = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaLimitError("localRefs", f"$ref {ref[:80]!r} does not resolve within the schema")
    return ref, node


def _same_value_edges(root: dict[str, Any], node: dict[str, Any]) -> list[tuple[str, Any]]:
    """The subschemas `node` applies to its own value, with how they are reached (for the message)."""
    out: list[tuple[str, Any]] = []
    for key in SAME_VALUE:
        sub = node.get(key)
        if key == "$ref":
            if isinstance(sub, str):
                out.append(_resolve(root, sub))
        elif isinstance(sub, list):
            out.extend((key, s) for s in sub)
        elif isinstance(sub, dict) and key == "dependentSchemas":
            out.extend((key, s) for s in sub.values())
        elif isinstance(sub, dict):
            out.append((key, sub))
    return [(how, s) for how, s in out if isinstance(s, dict)]


def _check_refs(root: dict[str, Any]) -> None:
    """Every `$ref` local and resolvable; no cycle of `$ref`s (and allOf/anyOf/...) without a nesting between.
    Subschemas are told apart by identity (the same dict reached by two pointers is one node)."""
    nodes: list[dict[str, Any]] = []  # every JSON object in the schema, found iteratively
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            nodes.append(node)
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    graph = {id(n): _same_value_edges(root, n) for n in nodes}
    state: dict[int, int] = {}  # 1: on the current path, 2: done
    for start in nodes:
        if state.get(id(start)):
            continue
        path = [(id(start), iter(graph[id(start)]))]
        state[id(start)] = 1
        while path:
            at, edges = path[-1]
            nxt = next(edges, None)
            if nxt is None:
                state[at] = 2
                path.pop()
                continue
            how, target = nxt
            if state.get(id(target)) == 1:
                raise SchemaLimitError("refCycles", f"$ref cycle (through {how!r}): a subschema refers back to "
                                       "itself without an object or array in between, so no value can satisfy it")
            if not state.get(id(target)):
                state[id(target)] = 1
                path.append((id(target), iter(graph.get(id(target), []))))
