"""The fuzz campaign's generators, model and invariants, shared by tests/test_rel_fuzz.py (a bounded slice) and
benchmarks/fuzz.py (the long run).

LSP: hypothesis draws sequences of messages — opens, edits (ranges past the end, reversed, inside a surrogate
pair, negative), closes, completions, cancels, every custom request with params generated from its own JSON
Schema (hypothesis-jsonschema) and then made hostile (a value somewhere replaced by a wrong type, an extreme
number, a huge or odd string, deep nesting), hostile JSON Schemas for `laya/structured`, junk frames and wrong
Content-Lengths. After each sequence: every request answered once, never InternalError or RequestFailed, no
traceback/path/repr in any error or message, the server alive, and each open document's text equal to a model
of the edits (LSP's rules, written here independently). HTTP: bodies generated from the live server's OpenAPI
schema, made hostile the same way, never a 500 and never the server's insides.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any

import hypothesis_jsonschema._from_schema as _hjs
import jsonschema
from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as _cu
from hypothesis_jsonschema import from_schema

try:
    from lspclient import LspClient
except ImportError:  # imported as tests.fuzzing (benchmarks/fuzz.py)
    from tests.lspclient import LspClient



class _ManyWithMore:
    """hypothesis-jsonschema 0.23.1 (the latest) draws an object's keys with hypothesis's private `many(...)`
    and its `.more()`, which hypothesis 6.170 replaced by `with many(...) as e: for _ in e:`; this adapter gives
    its one loop (`while elements.more(): ...`, objects) the old shape over the new API."""

    def __init__(self, data: Any, **kw: Any) -> None:
        self._many = _cu.many(data, **kw)
        self._many.__enter__()
        self._steps = iter(self._many)

    def more(self) -> bool:
        if next(self._steps, False) is None:
            return True
        self._many.__exit__(None)
        return False

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


if not hasattr(_cu.many, "more"):
    _hjs.cu = type("_cu", (), {"many": _ManyWithMore, "__getattr__": lambda _s, n: getattr(_cu, n)})()

INTERNAL_ERROR, REQUEST_FAILED = -32603, -32803
ALLOWED_CODES = {-32700, -32600, -32601, -32602, -32800, -32801, -32002}
INSIDES = re.compile(r"Traceback|File \"|\.py\b|site-packages|laya_lsp\.|Error\(|<[a-z_.]+ object at 0x")
URIS = ["file:///fuzz/a.py", "file:///fuzz/b%20c.js", "untitled:Untitled-1", "file:///fuzz/%E6%97%A5.py"]
NEVER_OPENED = "file:///fuzz/never-opened.py"
EOL = re.compile(r"\r\n|\r|\n")
UINT_MAX = 2**31 - 1

# -- hostile values ------------------------------------------------------------------------------------------
HOSTILE_LEAVES = [None, True, False, 0, -1, -(2**63), 2**63, UINT_MAX + 1, 1e308, -0.0, 0.5, "", "\x00", "😀",
                  "a" * 70_000, "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace"), "\u202e",
                  "$ref", "__proto__", [], {}, [[[[[[[[[[[]]]]]]]]]]], {"$ref": "#"}]
text_alphabet = st.sampled_from(list("abc xyz_()[]{}:.,'\"\\#=+-\t\n\r") + ["\r\n", "\f", "\v", "\x00", "é", "日",
                                                                            "😀", "\u2028", "\x85", "\ufeff"])
hostile_text = st.lists(text_alphabet, max_size=40).map("".join)


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copy = list(value)
    copy[head] = _replace(copy[head], rest, new)
    return copy


def hostile(base: st.SearchStrategy) -> st.SearchStrategy:
    """Values of `base`, half of them with one value somewhere replaced by a hostile one (or a key dropped)."""
    leaf = st.one_of(st.sampled_from(HOSTILE_LEAVES), hostile_text, st.integers(), st.floats(allow_nan=False))

    def mutate(value: Any) -> st.SearchStrategy:
        return st.tuples(st.sampled_from(_paths(value)), leaf).map(lambda t: _replace(value, t[0], t[1]))

    return st.one_of(base, base.flatmap(mutate))


# -- hostile JSON Schemas (as inputs to laya/structured and /v1/structured) ---------------------------------
def _nested(levels: int, kind: str) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = ({"type": "object", "properties": {"a": schema}, "required": ["a"]} if kind == "object"
                  else {"type": "array", "items": schema, "minItems": 1})
    return schema


leaf_schema = st.one_of(
    st.sampled_from([{}, {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
                     {"type": "null"}, {"type": "banana"}, {"type": ["string", "null"]}, {"$ref": "#"},
                     {"$ref": "#/properties/a"}, {"$ref": "#/$defs/missing"}, {"$ref": "http://example.com/x"},
                     {"not": {}}, {"format": "date-time", "type": "string"}, {"const": None}, {"enum": []},
                     {"type": "string", "pattern": "^(a+)+$"}, {"type": "string", "pattern": "[[["},
                     {"type": "integer", "minimum": 10, "maximum": 1}, {"type": "string", "minLength": 3000}]),
    st.builds(lambda lo, hi: {"type": "string", "minLength": lo, "maxLength": hi}, st.integers(-1, 50),
              st.integers(-1, 50)),
    st.builds(lambda xs: {"enum": xs}, st.lists(st.one_of(st.none(), st.integers(), hostile_text), max_size=5)),
    st.builds(lambda p: {"type": "string", "pattern": p}, hostile_text),
)


def _compose(inner: st.SearchStrategy) -> st.SearchStrategy:
    props = st.dictionaries(st.one_of(st.sampled_from(["a", "$ref", "not", "", "a b", "日"]), hostile_text),
                            inner, max_size=4)
    return st.one_of(
        st.builds(lambda p, req, extra: {"type": "object", "properties": p, "required": req,
                                         "additionalProperties": extra},
                  props, st.lists(st.sampled_from(["a", "b", "$ref"]), max_size=2), st.one_of(st.booleans(), inner)),
        st.builds(lambda i, lo, hi: {"type": "array", "items": i, "minItems": lo, "maxItems": hi}, inner,
                  st.integers(0, 3), st.integers(0, 5)),
        st.builds(lambda k, xs: {k: xs}, st.sampled_from(["anyOf", "allOf", "oneOf"]), st.lists(inner, max_size=3)),
        st.builds(lambda i, t, e: {"if": i, "then": t, "else": e}, inner, inner, inner),
        st.builds(lambda d, r: {"$defs": {"x": d}, "$ref": r}, inner, st.sampled_from(["#/$defs/x", "#"])),
    )


hostile_schema = st.one_of(
    st.recursive(leaf_schema, _compose, max_leaves=12),
    st.builds(_nested, st.integers(0, 300), st.sampled_from(["object", "array"])),
    st.integers(0, 600).map(
        lambda n: {
            "type": "object",
            "properties": {f"p{i}": {"type": "string"} for i in range(n)},
            "required": [f"p{i}" for i in range(n)],
        }
    ),
    st.sampled_from([None, [], "string", 5, True]),
)

# -- the custom requests' params, as JSON Schema ------------------------------------------------------------
POSITION = {"type": "object", "properties": {"line": {"type": "integer", "minimum": 0, "maximum": 40},
                                             "character": {"type": "integer", "minimum": 0, "maximum": 200}},
            "required": ["line", "character"]}
DOC_ID = {"type": "object", "properties": {"uri": {"enum": [*URIS, NEVER_OPENED]}}, "required": ["uri"]}
PARAMS_SCHEMAS: dict[str, dict] = {
    "laya/decide": {"type": "object", "properties": {
        "choices": {"type": "array", "maxItems": 6, "items": {"anyOf": [
            {"type": "string", "maxLength": 12},
            {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"},
                                              "description": {"type": "string"}}, "required": ["id"]}]}},
        "context": {"type": "string", "maxLength": 80}, "textDocument": DOC_ID, "position": POSITION,
        "threshold": {"type": "number"}, "normalize": {"enum": ["total", "mean"]},
        "temperature": {"type": "number"}}},
    "laya/structured": {"type": "object", "properties": {
        "prompt": {"type": "string", "maxLength": 60}, "maxTokens": {"type": "integer", "minimum": 1, "maximum": 12},
        "textDocument": DOC_ID, "range": {"type": "object", "properties": {"start": POSITION, "end": POSITION},
                                          "required": ["start", "end"]}},
        "required": ["maxTokens"]},
    "laya/stats": {"type": "object", "properties": {"recent": {"type": "integer", "minimum": 0, "maximum": 5},
                                                    "reset": {"type": "boolean"}}},
    "laya/documentText": {"type": "object", "properties": {"uri": {"enum": [*URIS, NEVER_OPENED]},
                                                           "checkTree": {"type": "boolean"}}},
    "laya/focus": {"type": "object", "properties": {"textDocument": DOC_ID, "position": POSITION}},
    "textDocument/completion": {"type": "object", "properties": {"textDocument": DOC_ID, "position": POSITION},
                                "required": ["textDocument", "position"]},
    "textDocument/inlineCompletion": {"type": "object", "properties": {
        "textDocument": DOC_ID, "position": POSITION,
        "context": {"type": "object", "properties": {"triggerKind": {"enum": [1, 2]}}, "required": ["triggerKind"]}},
        "required": ["textDocument", "position", "context"]},
    "textDocument/codeAction": {"type": "object", "properties": {
        "textDocument": DOC_ID, "range": {"type": "object", "properties": {"start": POSITION, "end": POSITION},
                                          "required": ["start", "end"]},
        "context": {"type": "object", "properties": {"diagnostics": {"type": "array", "maxItems": 0}},
                    "required": ["diagnostics"]}}, "required": ["textDocument", "range", "context"]},
}
NOTIFICATIONS = {"laya/focus"}


def custom_params(method: str) -> st.SearchStrategy:
    base = from_schema(PARAMS_SCHEMAS[method])
    if method == "laya/structured":  # the schema is the hostile part; the rest may be hostile too
        base = st.tuples(base, hostile_schema).map(lambda t: {**t[0], "schema": t[1]})
    return hostile(base)


# -- messages ----------------------------------------------------------------------------------------------
position = st.one_of(st.fixed_dictionaries({"line": st.integers(0, 12), "character": st.integers(0, 60)}),
                     st.fixed_dictionaries({"line": st.integers(0, UINT_MAX), "character": st.integers(0, UINT_MAX)}),
                     st.fixed_dictionaries({"line": st.integers(-3, 3), "character": st.integers(-3, 3)}))
content_change = st.one_of(
    st.fixed_dictionaries({"range": st.fixed_dictionaries({"start": position, "end": position}),
                           "text": hostile_text}),
    st.fixed_dictionaries({"text": hostile_text}),
)
uri = st.sampled_from(URIS)
# One strategy per method, built once: hypothesis-jsonschema canonicalises a schema each time one is built.
CUSTOM = {m: st.tuples(st.just("custom"), st.just(m), custom_params(m)) for m in sorted(PARAMS_SCHEMAS)}
custom = st.one_of(*CUSTOM.values())
action = st.one_of(
    st.tuples(st.just("open"), uri, hostile_text),
    st.tuples(st.just("change"), st.sampled_from([*URIS, *URIS, NEVER_OPENED]), st.lists(content_change, min_size=1,
                                                                                         max_size=3)),
    st.tuples(st.just("change"), uri, st.lists(content_change, min_size=1, max_size=3)),
    st.tuples(st.just("close"), uri),
    st.tuples(st.just("cancel"), st.integers(0, 5)),
    custom, custom, custom,
    st.tuples(st.just("junk"), st.sampled_from(["bytes", "short", "long", "no-length", "not-json"]),
              st.binary(max_size=80)),
    st.tuples(st.just("unknown"), st.sampled_from(["laya/nothing", "textDocument/hover", "", "$/x", "日本"])),
)
sequences = st.lists(action, min_size=4, max_size=30)


# -- the document model: LSP's edit rules, written independently of the server ------------------------------
def _offset(text: str, line: int, column: int) -> int:
    starts = [0] + [m.end() for m in EOL.finditer(text)]
    if line >= len(starts):
        return len(text)
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    body = text[start:end].rstrip("\r\n")
    units = 0
    for i, ch in enumerate(body):  # UTF-16 columns; inside a surrogate pair rounds down
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > column:
            return start + i
    return start + len(body)


def _valid_position(p: Any) -> bool:
    return all(isinstance(p.get(k), int) and 0 <= p[k] <= UINT_MAX for k in ("line", "character"))


def apply_changes(text: str, changes: list[dict]) -> str | None:
    """The text after one didChange, or None when the message is invalid (the server drops it whole)."""
    for ch in changes:
        if "range" in ch and not all(_valid_position(ch["range"][k]) for k in ("start", "end")):
            return None
    for ch in changes:
        if "range" not in ch:
            text = ch["text"]
            continue
        s, e = ch["range"]["start"], ch["range"]["end"]
        lo, hi = _offset(text, s["line"], s["character"]), _offset(text, e["line"], e["character"])
        lo, hi = min(lo, hi), max(lo, hi)
        text = text[:lo] + ch["text"] + text[hi:]
    return text


# -- running a sequence ------------------------------------------------------------------------------------
@dataclass
class Tally:
    sequences: int = 0
    messages: int = 0
    requests: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)

    def count(self, code: Any) -> None:
        self.codes[str(code)] = self.codes.get(str(code), 0) + 1


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _structured_ok(params: Any, result: Any) -> str | None:
    """A laya/structured result's value validates against the schema it was asked for."""
    if not isinstance(result, dict) or result.get("value") is None and result.get("error"):
        return None
    try:
        jsonschema.validate(json.loads(result["text"]), params["schema"])
    except Exception as exc:  # noqa: BLE001 - any failure is a finding
        return f"structured value does not validate: {type(exc).__name__}: {str(exc)[:200]}"
    return None


class LspFuzzer:
    """Runs generated sequences against one server, keeping the model of its documents and the tally."""

    def __init__(self, client: LspClient, timeout: float = 60) -> None:
        self.c = client
        self.docs: dict[str, str] = {}
        self.tally = Tally()
        self.timeout = timeout
        self._seen = 0

    async def run(self, seq: list[tuple]) -> None:
        pending: list[tuple[Any, str, Any, asyncio.Future]] = []
        for act in seq:
            await self._send(act, pending)
            self.tally.messages += 1
        for rid, method, params, fut in pending:
            try:
                resp = await self.c.wait_response(fut, self.timeout, f"{method} {rid}")
            except TimeoutError:  # never answered: the finding names what was asked, then the run ends
                self.tally.findings.append(f"{method} {rid} unanswered: {json.dumps(params, default=repr)[:300]}")
                raise
            self._check_response(method, params, resp)
        await self._check_state()
        self.tally.sequences += 1

    async def _send(self, act: tuple, pending: list) -> None:
        kind = act[0]
        c = self.c
        if kind == "open":
            await c.did_open(act[1], act[2])
            self.docs[act[1]] = act[2]
        elif kind == "change":
            await c.notify("textDocument/didChange", {"textDocument": {"uri": act[1], "version": 7},
                                                      "contentChanges": act[2]})
            if act[1] in self.docs:
                after = apply_changes(self.docs[act[1]], act[2])
                self.docs[act[1]] = self.docs[act[1]] if after is None else after
        elif kind == "close":
            await c.did_close(act[1])
            self.docs.pop(act[1], None)
        elif kind == "cancel":
            target = pending[-1 - act[1]][0] if act[1] < len(pending) else 10**9 + act[1]
            await c.cancel(target)
        elif kind == "custom" and act[1] in NOTIFICATIONS:
            await c.notify(act[1], act[2])
        elif kind in ("custom", "unknown"):
            method, params = act[1], act[2] if kind == "custom" else {}
            rid, fut = await c.send_request(method, params)
            pending.append((rid, method, params, fut))
            self.tally.requests += 1
        else:
            await self._junk(act[1], act[2])

    async def _junk(self, how: str, data: bytes) -> None:
        """Frames that change no document (a stats request or bytes), so the model stays exact."""
        body = json.dumps({"jsonrpc": "2.0", "id": f"junk-{self.tally.messages}", "method": "laya/stats",
                           "params": {"recent": 0}}).encode()
        raw = {"bytes": frame(data), "short": b"Content-Length: %d\r\n\r\n" % max(0, len(body) - 5) + body,
               "long": b"Content-Length: %d\r\n\r\n" % (len(body) + 9) + body, "no-length": data + b"\r\n\r\n",
               "not-json": frame(b"{" + data)}[how]
        await self.c.write_raw(raw)

    def _check_response(self, method: str, params: Any, resp: dict) -> None:
        if "error" in resp:
            code = resp["error"].get("code")
            self.tally.count(code)
            if code not in ALLOWED_CODES:
                self.tally.findings.append(f"{method}: error {code}: {json.dumps(resp['error'])[:300]}")
            return
        self.tally.count("result")
        if method == "laya/structured":
            problem = _structured_ok(params, resp.get("result"))
            if problem:
                self.tally.findings.append(f"{method} {json.dumps(params)[:200]}: {problem}")

    async def _check_state(self) -> None:
        """Alive; nothing the server sent shows its insides; every open document equals the model."""
        c = self.c
        assert c.alive(), f"server died: {c.stderr[-3000:]}"
        received = c.received()
        for rec in received[self._seen:]:
            msg = rec.msg if isinstance(rec.msg, dict) else {}
            err = msg.get("error")
            if err is not None:
                if err.get("code") in (INTERNAL_ERROR, REQUEST_FAILED) or err.get("data"):
                    self.tally.findings.append(f"id {msg.get('id')}: {json.dumps(err)[:300]}")
                if INSIDES.search(json.dumps(err)):
                    self.tally.findings.append(f"error shows insides: {json.dumps(err)[:300]}")
            elif msg.get("method") in ("window/showMessage", "window/logMessage") and msg["params"]["type"] == 1:
                # The server's own log says what failed (the client is told nothing of it, by design).
                cause = [line[:300] for line in c.stderr.splitlines()[-200:] if " ERROR " in line][-3:]
                self.tally.findings.append(f"{msg['method']}: {msg['params']['message'][:200]}; server log: {cause}")
        self._seen = len(received)
        for u, text in self.docs.items():
            doc = await c.call("laya/documentText", {"uri": u}, self.timeout)
            if doc is None or doc["text"] != text:
                got = None if doc is None else doc["text"]
                self.tally.findings.append(f"{u}: server text {got!r:.120} != model {text!r:.120}")
                self.docs[u] = got if got is not None else text  # report once, go on from the server's text
        if len(received) > 20_000:  # bounded client memory over a long run
            c.log.clear()
            c._responses.clear()
            self._seen = 0


# -- the long run's generator: the same kinds of messages from random.Random (hypothesis draws too slowly for
# 10^5 messages), with the custom requests' params taken from a pool hypothesis-jsonschema drew and mutated here
class RandomMessages:
    """Fresh actions of every kind; `pool` maps a custom method to params drawn from its schema."""

    CHARS = "abc xyz_()[]{}:.,'\"\\#=+-\t\n\r\f\v\x00é日😀\u2028\x85\ufeff"

    def __init__(self, rng: Any, pool: dict[str, list[Any]], schemas: list[Any]) -> None:
        self.rng = rng
        self.pool = pool
        self.schemas = schemas

    def text(self, n: int = 40) -> str:
        return "".join(self.rng.choice(self.CHARS) for _ in range(self.rng.randint(0, n)))

    def position(self) -> dict[str, int]:
        r = self.rng
        kind = r.random()
        if kind < 0.8:
            return {"line": r.randint(0, 12), "character": r.randint(0, 60)}
        if kind < 0.9:
            return {"line": r.randint(0, UINT_MAX), "character": r.randint(0, UINT_MAX)}
        return {"line": r.randint(-3, 3), "character": r.randint(-3, 3)}

    def leaf(self) -> Any:
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(HOSTILE_LEAVES)
        if r < 0.75:
            return self.text()
        return self.rng.choice([self.rng.randint(-(2**64), 2**64), self.rng.uniform(-1e300, 1e300)])

    def hostile(self, value: Any) -> Any:
        if self.rng.random() < 0.5:
            return value
        return _replace(value, self.rng.choice(_paths(value)), self.leaf())

    def action(self) -> tuple:
        r, k = self.rng, self.rng.random()
        if k < 0.12:
            return ("open", r.choice(URIS), self.text(200))
        if k < 0.45:
            changes = [{"range": {"start": self.position(), "end": self.position()}, "text": self.text()}
                       if r.random() < 0.9 else {"text": self.text(120)} for _ in range(r.randint(1, 3))]
            return ("change", r.choice([*URIS, *URIS, NEVER_OPENED]), changes)
        if k < 0.5:
            return ("close", r.choice(URIS))
        if k < 0.55:
            return ("cancel", r.randint(0, 5))
        if k < 0.9:
            method = r.choice(sorted(self.pool))
            params = self.hostile(r.choice(self.pool[method]))
            if method == "laya/structured" and isinstance(params, dict) and r.random() < 0.6:
                params = {**params, "schema": r.choice(self.schemas)}
            return ("custom", method, params)
        if k < 0.97:
            return (
                "junk",
                r.choice(["bytes", "short", "long", "no-length", "not-json"]),
                r.randbytes(r.randint(0, 80)),
            )
        return ("unknown", r.choice(["laya/nothing", "textDocument/hover", "", "$/x", "日本"]))
