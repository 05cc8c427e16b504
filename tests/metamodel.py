"""A strict validator of LSP messages against the LSP 3.18 metaModel (tests/data/lsp/metaModel.json).

Stricter than lsprotocol's converter on purpose: structures reject unknown properties, enumerations accept only
their declared values (unless `supportsCustomValues`), integers are range-checked (`integer` is int32, `uinteger`
is 0..2^31-1) and never booleans or floats, strings are never numbers. Every error is a readable line with a JSON
path, e.g. `$.result.items[0].kind: 99 is not a CompletionItemKind (1..25)`.

`SessionValidator` walks a recorded `lspclient` log and validates every message the server sent: the JSON-RPC
envelope, the result of each request against the request it answers, server→client requests and notifications,
and `$/progress` values against WorkDoneProgressBegin/Report/End (with their order). Custom `laya/*` requests are
checked against the small JSON Schemas in `CUSTOM_RESULT_SCHEMAS`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

METAMODEL_PATH = Path(__file__).resolve().parent / "data" / "lsp" / "metaModel.json"

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_URI_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
CLIENT_TO_SERVER, SERVER_TO_CLIENT = "clientToServer", "serverToClient"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _short(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 60 else s[:57] + "..."


class MetaModel:
    """The metaModel indexed by name, with `validate(type, value)` → list of error strings (empty = valid)."""

    def __init__(self, path: Path = METAMODEL_PATH) -> None:
        if not Path(path).exists():  # fail, never skip: the conformance tests would otherwise check nothing
            raise FileNotFoundError(
                f"{path} is missing: the LSP metaModel ships in tests/data/lsp (tests/data/README.md)"
            )
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        self.version: str = data["metaData"]["version"]
        self.structures = {s["name"]: s for s in data["structures"]}
        self.enumerations = {e["name"]: e for e in data["enumerations"]}
        self.aliases = {a["name"]: a for a in data["typeAliases"]}
        self.requests = {r["method"]: r for r in data["requests"]}
        self.notifications = {n["method"]: n for n in data["notifications"]}
        self._props_cache: dict[str, dict[str, dict]] = {}

    # -- structures -------------------------------------------------------------------------------------
    def properties(self, name: str) -> dict[str, dict]:
        """All properties of a structure, including those from `extends` and `mixins` (own ones win)."""
        if name in self._props_cache:
            return self._props_cache[name]
        s = self.structures[name]
        props: dict[str, dict] = {}
        for ref in list(s.get("extends", [])) + list(s.get("mixins", [])):
            if ref["kind"] != "reference":
                raise ValueError(f"{name}: unsupported extends kind {ref['kind']}")
            props.update(self.properties(ref["name"]))
        for p in s["properties"]:
            props[p["name"]] = p
        self._props_cache[name] = props
        return props

    def _check_object(self, props: dict[str, dict], value: Any, path: str, what: str) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: expected {what} object, got {_short(value)}"]
        errs: list[str] = []
        for key in value:
            if key not in props:
                errs.append(f"{path}: unknown property {key!r} in {what}")
        for key, p in props.items():
            if key in value:
                errs += self.validate(p["type"], value[key], f"{path}.{key}")
            elif not p.get("optional", False):
                errs.append(f"{path}: missing required property {key!r} of {what}")
        return errs

    # -- the type walker --------------------------------------------------------------------------------
    def validate(self, t: dict, value: Any, path: str = "$") -> list[str]:
        kind = t["kind"]
        if kind == "base":
            return self._base(t["name"], value, path)
        if kind == "reference":
            return self.validate_ref(t["name"], value, path)
        if kind == "array":
            if not isinstance(value, list):
                return [f"{path}: expected an array, got {_short(value)}"]
            errs: list[str] = []
            for i, v in enumerate(value):
                errs += self.validate(t["element"], v, f"{path}[{i}]")
                if len(errs) > 20:
                    break
            return errs
        if kind == "map":
            if not isinstance(value, dict):
                return [f"{path}: expected a map object, got {_short(value)}"]
            errs = []
            for k, v in value.items():
                errs += self._map_key(t["key"], k, path)
                errs += self.validate(t["value"], v, f"{path}[{k!r}]")
            return errs
        if kind == "tuple":
            items = t["items"]
            if not isinstance(value, list) or len(value) != len(items):
                return [f"{path}: expected a tuple of {len(items)}, got {_short(value)}"]
            return [
                e for it, v, i in zip(items, value, range(len(items))) for e in self.validate(it, v, f"{path}[{i}]")
            ]
        if kind == "or":
            alternatives = [self.validate(it, value, path) for it in t["items"]]
            if any(not a for a in alternatives):
                return []
            # The closest alternative is the one that got deepest into the value (not a top-level kind mismatch).
            best = min(alternatives, key=lambda errs: (
                -max(len(e.split(":", 1)[0]) for e in errs), all(": expected" in e for e in errs), len(errs)))
            names = " | ".join(self.type_name(it) for it in t["items"])
            return [f"{path}: matches none of {names}; closest: {best[0]}"] + best[1:3]
        if kind == "and":
            props: dict[str, dict] = {}
            for it in t["items"]:
                if it["kind"] == "reference" and it["name"] in self.structures:
                    props.update(self.properties(it["name"]))
                elif it["kind"] == "literal":
                    props.update({p["name"]: p for p in it["value"]["properties"]})
                else:
                    raise ValueError(f"unsupported `and` member {it}")
            return self._check_object(props, value, path, self.type_name(t))
        if kind == "literal":
            props = {p["name"]: p for p in t["value"]["properties"]}
            return self._check_object(props, value, path, "literal")
        if kind == "stringLiteral":
            return [] if value == t["value"] else [f"{path}: expected the string {t['value']!r}, got {_short(value)}"]
        if kind in ("integerLiteral", "booleanLiteral"):
            ok = value == t["value"] and type(value) is type(t["value"])
            return [] if ok else [f"{path}: expected {t['value']!r}, got {_short(value)}"]
        raise ValueError(f"unknown metaModel type kind {kind!r}")

    def validate_ref(self, name: str, value: Any, path: str = "$") -> list[str]:
        if name in self.structures:
            return self._check_object(self.properties(name), value, path, name)
        if name in self.enumerations:
            return self._enum(self.enumerations[name], value, path)
        if name in self.aliases:
            return self.validate(self.aliases[name]["type"], value, path)
        raise KeyError(f"{name} is not in the metaModel")

    def _enum(self, e: dict, value: Any, path: str) -> list[str]:
        base = e["type"]["name"]
        errs = self._base(base, value, path)
        if errs:
            return [f"{path}: {_short(value)} is not a {e['name']} ({base})"]
        values = [v["value"] for v in e["values"]]
        if value in values and type(value) is type(values[0]):
            return []
        if e.get("supportsCustomValues"):
            return []
        shown = f"{values[0]}..{values[-1]}" if all(_is_int(v) for v in values) else ", ".join(map(str, values))
        return [f"{path}: {_short(value)} is not a {e['name']} ({shown})"]

    def _base(self, name: str, value: Any, path: str) -> list[str]:
        ok: bool
        if name == "null":
            ok = value is None
        elif name == "boolean":
            ok = isinstance(value, bool)
        elif name in ("string", "RegExp"):
            ok = isinstance(value, str)
        elif name in ("URI", "DocumentUri"):
            ok = isinstance(value, str) and bool(_URI_RE.match(value))
        elif name == "integer":
            ok = _is_int(value) and INT32_MIN <= value <= INT32_MAX
        elif name == "uinteger":
            ok = _is_int(value) and 0 <= value <= INT32_MAX
        elif name == "decimal":
            ok = _is_int(value) or (isinstance(value, float) and math.isfinite(value))  # NaN is not JSON
        else:
            raise ValueError(f"unknown base type {name}")
        return [] if ok else [f"{path}: expected {name}, got {_short(value)}"]

    def _map_key(self, t: dict, key: str, path: str) -> list[str]:
        if t["kind"] == "base" and t["name"] in ("integer", "uinteger"):
            return [] if re.fullmatch(r"-?\d+", key) else [f"{path}: map key {key!r} is not an {t['name']}"]
        return self.validate(t, key, f"{path}<key>")

    def type_name(self, t: dict) -> str:
        k = t["kind"]
        if k in ("base", "reference"):
            return t["name"]
        if k == "array":
            return self.type_name(t["element"]) + "[]"
        if k == "stringLiteral":
            return repr(t["value"])
        if k in ("or", "and"):
            return "(" + (" | " if k == "or" else " & ").join(self.type_name(i) for i in t["items"]) + ")"
        return k

    # -- messages -----------------------------------------------------------------------------------------
    def method(self, method: str) -> dict | None:
        return self.requests.get(method) or self.notifications.get(method)

    def validate_params(self, method: str, params: Any, direction: str, *, has_params: bool = True) -> list[str]:
        """Validate a request's or notification's params sent in `direction` (clientToServer/serverToClient)."""
        m = self.method(method)
        if m is None:
            return [f"{method}: not an LSP 3.18 method"]
        if m["messageDirection"] not in (direction, "both"):
            return [f"{method}: may not be sent {direction} (it is {m['messageDirection']})"]
        if "params" not in m:
            return [] if not has_params or params is None else [f"{method}: takes no params, got {_short(params)}"]
        if not has_params:
            return [f"{method}: params missing"]
        t = m["params"]
        return self.validate(t, params, "$.params")

    def validate_result(self, method: str, result: Any) -> list[str]:
        r = self.requests.get(method)
        if r is None:
            return [f"{method}: not an LSP 3.18 request"]
        return self.validate(r["result"], result, "$.result")


# -- custom requests: a small JSON Schema subset ----------------------------------------------------------
NUMBER = {"type": "number", "minimum": 0}
INT = {"type": "integer", "minimum": 0}
RECORD = {
    "type": "object",
    "required": ["id", "doc", "kind", "status", "source", "total_ms", "candidates", "cancelled", "superseded"],
    "properties": {
        "id": INT, "doc": {"type": "string"}, "kind": {"type": "string"},
        "status": {"type": "string", "enum": ["ok", "cancelled", "superseded", "dropped", "error", "skipped"]},
        "source": {"type": "string"}, "queue_ms": {"type": "number"}, "debounce_ms": NUMBER,
        "prompt_tokens": INT, "reused_tokens": INT, "prefill_ms": NUMBER, "decode_tokens": INT,
        "decode_ms": NUMBER, "postprocess_ms": NUMBER, "total_ms": NUMBER, "candidates": INT,
        "error": {"type": ["string", "null"]}, "extra": {"type": "object"}, "cancelled": {"type": "boolean"},
        "superseded": {"type": "boolean"}, "version": {"type": ["integer", "null"]},
    },
}
CUSTOM_RESULT_SCHEMAS: dict[str, dict] = {
    "laya/stats": {
        "type": "object",
        "required": ["summary", "recent", "documents", "contextCache", "cacheBytesTotal", "cacheBudgetBytes", "queue",
                     "model"],
        "properties": {
            "summary": {"type": "object", "required": ["requests", "by_status"]},
            "recent": {"type": "array", "items": RECORD},
            "documents": {"type": "array", "items": {
                "type": "object", "required": ["uri", "cacheBytes"], "additionalProperties": False,
                "properties": {"uri": {"type": "string"}, "cacheBytes": INT}}},
            "contextCache": {"type": "object", "required": ["prompts", "bytes"], "additionalProperties": False,
                             "properties": {"prompts": INT, "bytes": INT}},
            "cacheBytesTotal": INT, "cacheBudgetBytes": INT, "evictions": INT,
            "queue": {"type": "object", "required": ["queued"], "properties": {
                "queued": INT, "running": {"type": ["string", "null"]}, "runningTokens": INT, "dropped": INT,
                "superseded": INT}},
            "model": {"type": ["object", "null"]},
            "loadError": {"type": ["string", "null"]},
            "blas": {},
            "codeCache": {"type": "object", "required": ["path", "hits", "misses", "written"],
                          "additionalProperties": False,
                          "properties": {"path": {"type": "string"}, "hits": INT, "misses": INT,
                                         "written": {"type": "boolean"}}},
        },
    },
    "laya/documentText": {
        "type": ["object", "null"],
        "required": ["uri", "text", "version"],
        "additionalProperties": False,
        "properties": {"uri": {"type": "string"}, "text": {"type": "string"}, "version": {"type": ["integer", "null"]},
                       "treeInStep": {"type": ["boolean", "null"]}},
    },
}
_JSON_TYPES = {
    "object": lambda v: isinstance(v, dict), "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
    "integer": _is_int, "number": lambda v: _is_int(v) or isinstance(v, float),
}


def validate_schema(schema: dict, value: Any, path: str = "$") -> list[str]:
    """JSON Schema subset: type (or list), enum, minimum, properties, required, additionalProperties, items."""
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_JSON_TYPES[t](value) for t in types):
            return [f"{path}: expected {'|'.join(types)}, got {_short(value)}"]
    errs: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {_short(value)} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errs.append(f"{path}: {value} < minimum {schema['minimum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errs += [f"{path}: missing required {k!r}" for k in schema.get("required", []) if k not in value]
        for k, v in value.items():
            if k in props:
                errs += validate_schema(props[k], v, f"{path}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{path}: unknown property {k!r}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            errs += validate_schema(schema["items"], v, f"{path}[{i}]")
    return errs


# -- whole sessions ---------------------------------------------------------------------------------------
_PROGRESS = {"begin": "WorkDoneProgressBegin", "report": "WorkDoneProgressReport", "end": "WorkDoneProgressEnd"}
INVALID = "<invalid request>"
_ENVELOPE_KEYS = {"jsonrpc", "id", "method", "params", "result", "error"}


@dataclass
class SessionReport:
    validated: int = 0
    violations: list[str] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str) -> None:
        self.validated += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1


def _valid_id(v: Any) -> bool:
    return isinstance(v, str) or _is_int(v)


def _messages_in_raw(raw: bytes) -> list[dict]:
    """JSON objects that start right after a header block in raw bytes (whatever their Content-Length says)."""
    out = []
    for m in re.finditer(rb"\r\n\r\n", raw):
        try:
            text = raw[m.end():].decode("utf-8", "replace")
            value, _ = json.JSONDecoder().raw_decode(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


class SessionValidator:
    """Validates every message a server sent in a recorded session (a list of `lspclient.Record`)."""

    def __init__(self, mm: MetaModel | None = None, custom: dict[str, dict] | None = None) -> None:
        self.mm = mm or MetaModel()
        self.custom = CUSTOM_RESULT_SCHEMAS if custom is None else custom

    def validate_log(self, records: list[Any], frame_errors: list[str] | None = None) -> SessionReport:
        rep = SessionReport()
        rep.violations += [f"framing: {e}" for e in frame_errors or []]
        client_requests: dict[Any, str] = {}
        answered: dict[Any, int] = {}
        progress_state: dict[Any, str] = {}  # token → "created" | "begun" | "ended"
        # Requests written raw (malformed-input tests, split writes): scan all raw bytes the client wrote.
        raw = b"".join(r.raw for r in records if r.direction == "sent" and r.msg is None)
        for raw_msg in _messages_in_raw(raw):
            if _valid_id(raw_msg.get("id")):
                m = raw_msg.get("method")
                client_requests[raw_msg["id"]] = (
                    m if isinstance(m, str) and raw_msg.get("jsonrpc") == "2.0" else INVALID
                )
        for i, rec in enumerate(records):
            msg = rec.msg
            if rec.direction == "sent" and msg is None:
                continue  # raw writes: scanned above
            if rec.direction == "sent":
                if isinstance(msg, dict) and "method" in msg and "id" in msg:
                    client_requests[msg["id"]] = msg["method"]
                    tok = (
                        (msg.get("params") or {}).get("workDoneToken") if isinstance(msg.get("params"), dict) else None
                    )
                    if tok is not None:
                        progress_state[tok] = "created"
                elif isinstance(msg, dict) and "id" in msg and "method" not in msg:
                    pass  # the client's answers to server requests
                continue
            where = f"message #{i}"
            if not isinstance(msg, dict):
                rep.violations.append(f"{where}: not a JSON object: {rec.raw[:100]!r}")
                continue
            errs = self._envelope(msg)
            if "method" in msg:
                method = msg["method"]
                direction_errs = self.mm.validate_params(method, msg.get("params"), SERVER_TO_CLIENT,
                                                         has_params="params" in msg)
                errs += direction_errs
                if method == "window/workDoneProgress/create" and not direction_errs:
                    progress_state[msg["params"]["token"]] = "created"
                if method == "$/progress" and not direction_errs:
                    errs += self._progress(msg["params"], progress_state)
                rep.count("request" if "id" in msg else "notification")
            else:
                rid = msg.get("id")
                method = client_requests.get(rid)
                if method is None and not (rid is None and "error" in msg):
                    errs.append(f"response to unknown request id {rid!r}")
                answered[rid] = answered.get(rid, 0) + 1
                if answered[rid] > 1 and rid is not None:
                    errs.append(f"second response to request id {rid!r}")
                if "error" in msg:
                    pass  # the envelope check covers ResponseError
                elif method == INVALID:
                    errs.append("a result for an invalid request (an error was due)")
                elif method is not None and method.startswith("laya/"):
                    schema = self.custom.get(method)
                    if schema is None:
                        errs.append(f"{method}: no schema for this custom request")
                    else:
                        errs += validate_schema(schema, msg.get("result"), "$.result")
                elif method is not None:
                    errs += self.mm.validate_result(method, msg.get("result"))
                rep.count("response")
            rep.violations += [f"{where} ({msg.get('method') or 'response ' + str(msg.get('id'))}): {e}" for e in errs]
        return rep

    def _envelope(self, msg: dict) -> list[str]:
        errs = []
        if msg.get("jsonrpc") != "2.0":
            errs.append(f"jsonrpc must be '2.0', got {msg.get('jsonrpc')!r}")
        extra = set(msg) - _ENVELOPE_KEYS
        if extra:
            errs.append(f"unknown envelope keys {sorted(extra)}")
        if "id" in msg and not (msg["id"] is None or _is_int(msg["id"]) or isinstance(msg["id"], str)):
            errs.append(f"id must be integer|string|null, got {msg['id']!r}")
        if "method" in msg:
            if not isinstance(msg["method"], str):
                errs.append("method must be a string")
            if "result" in msg or "error" in msg:
                errs.append("a request/notification carries result/error")
            if "params" in msg and not isinstance(msg["params"], (dict, list)):
                errs.append("params must be an object or array")
        else:
            if "id" not in msg:
                errs.append("a response without id")
            if ("result" in msg) == ("error" in msg):
                errs.append("a response must carry exactly one of result/error")
            if "error" in msg:
                e = msg["error"]
                if not isinstance(e, dict):
                    errs.append("error must be an object")
                else:
                    if not _is_int(e.get("code")):
                        errs.append(f"error.code must be an integer, got {e.get('code')!r}")
                    if not isinstance(e.get("message"), str):
                        errs.append("error.message must be a string")
                    if set(e) - {"code", "message", "data"}:
                        errs.append(f"unknown error keys {sorted(set(e) - {'code', 'message', 'data'})}")
        return errs

    def _progress(self, params: dict, state: dict[Any, str]) -> list[str]:
        token, value = params["token"], params["value"]
        if token not in state:
            return [f"$/progress for token {token!r} that was never created"]
        kind = value.get("kind") if isinstance(value, dict) else None
        if kind not in _PROGRESS:
            return [f"$/progress value is not a work done progress: {_short(value)}"]
        errs = self.mm.validate_ref(_PROGRESS[kind], value, "$.params.value")
        st = state[token]
        if kind == "begin" and st != "created":
            errs.append(f"progress {token!r}: begin after {st}")
        if kind in ("report", "end") and st != "begun":
            errs.append(f"progress {token!r}: {kind} while {st}")
        state[token] = {"begin": "begun", "report": "begun", "end": "ended"}[kind]
        return errs


def assert_conforms(client: Any, label: str = "session") -> SessionReport:
    """Validate everything `client` (an lspclient.LspClient) received; fail listing the first violations."""
    report = SessionValidator().validate_log(client.log, client.frame_errors)
    print(f"\n{label}: {report.validated} server messages validated against the LSP 3.18 metaModel, "
          f"{len(report.violations)} violations")
    assert report.violations == [], "\n".join(report.violations[:20])
    return report
