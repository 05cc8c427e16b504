"""JSON-RPC framing and message admission that never lose a request and never desynchronise.

pygls' own read loop (`pygls.io_.run_async`) reads headers with `readline()`: a body without a trailing newline
followed by a bad frame swallows every later header, so the server hangs for good. It also drops, without an
answer, requests that are not valid JSON-RPC or whose params do not structure, and ignores the LSP lifecycle
(requests before `initialize` or after `shutdown` are never answered). This module replaces the loop and the
admission step, through pygls's public extension points (a protocol subclass and a converter factory given to
the server); handlers and everything after them stay pygls'.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Awaitable, Callable, Generator
from typing import Any

import attrs
from cattrs import Converter
from lsprotocol import types as lsp
from pygls.protocol import JsonRPCRequestMessage, LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method

from .documents import put_document

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

MAX_BODY_BYTES = 64 * 2**20  # a message's Content-Length limit (`--max-message-bytes`); larger ones are refused
MAX_HEADER_BYTES = 64 * 1024
STALL_S = 0.5  # a body still short after this long is checked for a too-long Content-Length
_LENGTH_LINE = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,12})[ \t]*$", re.IGNORECASE)
# Raw CR LF never occurs inside JSON text, so this marks the start of a next frame wherever it appears.
_FRAME_START = re.compile(rb"content-length[ \t]*:[ \t]*\d{1,12}[ \t]*\r\n", re.IGNORECASE)
# A request's id near the start of a refused body (clients write jsonrpc, id and method before params).
_ID_NEAR_START = re.compile(rb'^\s*\{[^{\[]*?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")')
REFUSED_HEAD = 4096  # bytes of a refused body looked at for its id


class FrameParser:
    """Splits a byte stream into message bodies, recovering from junk and wrong Content-Length headers.

    Junk between frames is skipped up to the next `Content-Length` header. A body that swallowed the start of
    the next frame (Content-Length too long) is cut there. `stalled()` is asked when a body waits for bytes that
    may never come: what is there is taken if it is complete JSON or holds the next frame's header.
    """

    def __init__(self, max_body: int = MAX_BODY_BYTES) -> None:
        self.buf = bytearray()
        self.max_body = max_body
        self.need: int | None = None  # body length once a header block is read
        self.skipped = 0
        self.discard = 0  # bytes of a refused (over max_body) body still to drop as they arrive
        self._refused_length = 0
        self._refused_head = bytearray()
        self.refused: list[tuple[int, int | str | None]] = []  # (Content-Length, its request's id) to answer

    def feed(self, data: bytes) -> None:
        self.buf += data

    def next_body(self) -> bytes | None:
        """The next complete body, or None when more bytes are needed."""
        if self.discard and not self._drop_refused():
            return None
        if self.need is None and not self._read_headers():
            return None
        assert self.need is not None
        if len(self.buf) < self.need:
            return None
        body = bytes(self.buf[: self.need])
        del self.buf[: self.need]
        self.need = None
        return self._cut_swallowed(body)

    def stalled(self) -> bytes | None:
        """Called when a body has waited STALL_S for more bytes: salvage it if it is already whole."""
        if self.need is None or not self.buf:
            return None
        data = bytes(self.buf)
        m = _FRAME_START.search(data)
        if m is not None:
            head, rest = data[: m.start()], data[m.start():]
        else:
            head, rest = data, b""
            try:
                value = json.loads(head.decode("utf-8"))
            except (ValueError, RecursionError):
                return None  # not whole yet: keep waiting
            if not isinstance(value, dict):
                return None
        log.warning("Content-Length %d exceeds the %d bytes sent; taking the body as it is", self.need, len(head))
        self.buf = bytearray(rest)
        self.need = None
        return head

    def _read_headers(self) -> bool:
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > MAX_HEADER_BYTES:
                    self._skip(len(self.buf) - 64, "header too long")
                return False
            head = bytes(self.buf[:end])
            length = None
            for line in head.split(b"\r\n"):
                m = _LENGTH_LINE.search(line)
                if m is not None:
                    length = int(m.group(1))
            if length is None:
                self._skip(end + 4, "no Content-Length")
                continue
            if length > self.max_body:
                log.warning("refusing a message of %d bytes (limit %d): dropping its body", length, self.max_body)
                del self.buf[: end + 4]
                self.discard, self._refused_length = length, length
                self._refused_head.clear()
                if not self._drop_refused():
                    return False
                continue
            if not head.lower().startswith(b"content-"):
                log.warning("skipped junk before a frame: %r", head[:80])
            del self.buf[: end + 4]
            self.need = length
            return True

    def _drop_refused(self) -> bool:
        """Drop a refused body's bytes as they come (never holding it); True once it is gone. Its request's id is
        read from its first bytes, so the refusal answers that request. A next frame's header ends it early (a
        Content-Length that lied)."""
        m = _FRAME_START.search(self.buf, 0, self.discard)
        n = min(self.discard, len(self.buf)) if m is None else m.start()
        if len(self._refused_head) < REFUSED_HEAD:
            self._refused_head += self.buf[: min(n, REFUSED_HEAD - len(self._refused_head))]
        del self.buf[:n]
        self.discard = 0 if m is not None else self.discard - n
        if self._refused_length and (not self.discard or len(self._refused_head) >= REFUSED_HEAD):
            found = _ID_NEAR_START.match(bytes(self._refused_head))
            rid: int | str | None = None
            if found is not None:
                try:
                    rid = json.loads(found.group(1))
                except ValueError:
                    rid = None
            self.refused.append((self._refused_length, rid))
            self._refused_length = 0
        return not self.discard

    def _skip(self, n: int, why: str) -> None:
        log.warning("skipping %d bytes of input (%s): %r", n, why, bytes(self.buf[: min(n, 80)]))
        del self.buf[:n]
        self.skipped += n

    def _cut_swallowed(self, body: bytes) -> bytes:
        """A too-long Content-Length takes bytes of the next frame: give them back to the stream."""
        m = _FRAME_START.search(body)
        if m is not None:
            log.warning("a frame body holds the next frame's header (Content-Length too long); cutting it there")
            self.buf[0:0] = body[m.start():]
            return body[: m.start()]
        if body.rstrip().endswith(b"}"):
            return body  # the usual case: do not parse twice
        try:
            text = body.decode("utf-8")
            start = len(text) - len(text.lstrip())
            value, end = json.JSONDecoder().raw_decode(text, start)
        except (ValueError, RecursionError):
            return body
        if not isinstance(value, dict):
            return body
        log.warning("a frame body has %d bytes after its JSON; giving them back to the stream", len(text) - end)
        self.buf[0:0] = text[end:].encode("utf-8")
        return text[:end].encode("utf-8")


def _strict(kind: type, name: str) -> Callable[[Any, Any], Any]:
    def hook(value: Any, _type: Any) -> Any:
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        raise TypeError(f"expected {name}, got {type(value).__name__} {json.dumps(value)[:40]}")

    return hook


# Custom requests whose params reach the handler as plain JSON: pygls would turn objects into namedtuples,
# which rename keys that are not identifiers ("$ref", "not", "if", ...) and so corrupt a JSON Schema.
RAW_PARAMS_METHODS = {"laya/decide", "laya/structured"}


def strict_converter() -> Converter:
    """pygls' converter, but a string must be a string and a number a number (cattrs would coerce 5 → "5",
    1.5 → 1 and true → 1), so wrong param types are answered with InvalidParams instead of guessed at; and the
    params of RAW_PARAMS_METHODS stay plain JSON."""
    conv = default_converter()
    conv.register_structure_hook(str, _strict(str, "a string"))
    conv.register_structure_hook(int, _strict(int, "an integer"))
    conv.register_structure_hook(bool, _strict(bool, "a boolean"))
    request = conv.get_structure_hook(JsonRPCRequestMessage)

    def structure_request(obj: dict[str, Any], cls: type) -> Any:
        if obj.get("method") in RAW_PARAMS_METHODS:
            return cls(**obj)
        return request(obj, cls)

    conv.register_structure_hook(JsonRPCRequestMessage, structure_request)
    return conv


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class LayaProtocol(LanguageServerProtocol):
    """Admission of raw bodies: JSON-RPC validity, the LSP lifecycle and params types, each with its error code."""

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.shutdown_received = False
        self.exit_code: int | None = None
        self.stop_event: threading.Event | None = None
        self.max_message_bytes = MAX_BODY_BYTES

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams) -> Generator[Any, Any, None]:
        """pygls' didOpen, storing a LayaDocument (documents.py): pygls has no hook for the class of the
        documents its workspace creates (openlawlibrary/pygls#131)."""
        put_document(self.workspace, params.text_document)
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        """pygls' shutdown, remembered here for admission (pygls keeps its own flag private)."""
        yield from super().lsp_shutdown(*args)
        self.shutdown_received = True

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        """Answer a message that never reached a handler (pygls has no public call for that). Framed here:
        lsprotocol's types drop `"id": null`, which a parse error's response must carry."""
        if self.writer is None:
            return
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
        self.writer.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())

    def refuse_oversized(self, parser: FrameParser) -> None:
        """Answer each message the parser refused for its size (by its id when its first bytes show one)."""
        while parser.refused:
            length, rid = parser.refused.pop(0)
            self.reply_error(rid, INVALID_REQUEST, f"Invalid Request: the message is {length} bytes, over the "
                             f"server's limit of {parser.max_body} bytes (--max-message-bytes); it was not read")

    def handle_body(self, body: bytes) -> None:
        """Decode, check and dispatch one message; every request gets exactly one answer."""
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.reply_error(None, PARSE_ERROR, f"Parse error: {type(exc).__name__}: {str(exc)[:200]}")
            return
        if not isinstance(data, dict):
            self.reply_error(None, INVALID_REQUEST, "Invalid Request: expected a JSON object (no batches in LSP)")
            return
        has_id, msg_id, method = "id" in data, data.get("id"), data.get("method")
        reply_id = msg_id if _valid_id(msg_id) else None
        problem = None
        if data.get("jsonrpc") != "2.0":
            problem = 'jsonrpc must be "2.0"'
        elif "method" in data and not isinstance(method, str):
            problem = "method must be a string"
        elif has_id and not _valid_id(msg_id):
            problem = "id must be an integer or a string"
        elif "method" not in data and not has_id:
            problem = "neither a request, a notification nor a response"
        elif "method" in data and ("result" in data or "error" in data):
            # pygls would take a request with an "error" key for a response, and never answer it.
            problem = "a request or notification has no result or error"
        elif "params" in data and data["params"] is not None and not isinstance(data["params"], (dict, list)):
            problem = "params must be an object or an array"
        if problem is not None:
            if has_id or "method" not in data:
                self.reply_error(reply_id, INVALID_REQUEST, f"Invalid Request: {problem}")
            else:
                log.warning("dropped an invalid notification: %s", problem)
            return
        if method is None:
            self._dispatch(data, None, False)  # a response to one of our requests
            return
        self._admit(data, method, has_id)

    def _admit(self, data: dict, method: str, is_request: bool) -> None:
        msg_id = data.get("id")
        if method == "exit":
            self.exit_code = 0 if self.shutdown_received else 1
            log.info("exit (code %d)", self.exit_code)
            if self.stop_event is not None:
                self.stop_event.set()
            return
        if not self.initialize_received and method != "initialize":
            if is_request:
                self.reply_error(msg_id, SERVER_NOT_INITIALIZED, f"Server not initialized: {method} before initialize")
            return  # notifications before initialize are dropped (LSP 3.18, "initialize")
        if self.shutdown_received:
            if is_request:
                self.reply_error(msg_id, INVALID_REQUEST, f"Invalid Request: {method} after shutdown")
            return
        if is_request and _is_notification_method(method):
            self.reply_error(msg_id, INVALID_REQUEST, f"Invalid Request: {method} is a notification (no id allowed)")
            return
        if method == "initialize" and self.initialize_received:
            if is_request:
                self.reply_error(msg_id, INVALID_REQUEST, "Invalid Request: initialize was already received")
            return
        self._dispatch(data, method, is_request)

    def _dispatch(self, data: dict, method: str | None, is_request: bool) -> None:
        msg_id = data.get("id")
        if method is not None and "params" not in data:
            data = {**data, "params": None}  # params are optional in JSON-RPC; pygls' message types want the key
        try:
            message = self.structure_message(data)
        except Exception as exc:  # noqa: BLE001 - any structuring failure means the params are wrong
            cause = exc.__cause__ or exc
            detail = "; ".join(_flatten(cause))[:500]
            if is_request:
                self.reply_error(msg_id, INVALID_PARAMS, f"Invalid params for {method}: {detail}")
            else:
                log.warning("dropped %s with invalid params: %s", method or "a response", detail)
            return
        if method == "initialize":
            self.initialize_received = True
        try:
            self.handle_message(message)
        except Exception:  # pygls answers a request whose handler fails; this is a fault in dispatch itself
            log.exception("failed to handle %s", method)
        if method is not None and not is_request:
            self._forget_finished_notifications()

    def _forget_finished_notifications(self) -> None:
        """pygls 2.1.1 files each notification handler's future in its request table under a fresh uuid and never
        removes it (a Future per keystroke: the soak's slow RSS growth; docs/architecture.md, "pygls: notification
        futures"); pygls offers no public way around it, so finished ones are dropped here (requests pop their own
        when done). Read with getattr: a pygls that renames the table loses only this clean-up, never the server
        (tests/test_rel_soak.py fails loudly then)."""
        table = getattr(self, PYGLS_REQUEST_TABLE, None)
        if not isinstance(table, dict):
            return
        for key in [k for k, f in table.items() if f.done()]:
            del table[key]


PYGLS_REQUEST_TABLE = "_request_futures"  # pygls 2.1's JsonRPCProtocol: msg id -> handler future


def _is_notification_method(method: str) -> bool:
    """An LSP notification (its message type has no id): pygls would run it and never answer the id."""
    msg_type = lsp.METHOD_TO_TYPES.get(method, (None,))[0]
    return msg_type is not None and attrs.has(msg_type) and "id" not in attrs.fields_dict(msg_type)


def _flatten(exc: BaseException) -> list[str]:
    subs = getattr(exc, "exceptions", None)
    if subs:
        return [m for e in subs for m in _flatten(e)]
    return [f"{type(exc).__name__}: {exc}"]


async def serve_stream(read: Callable[[], Awaitable[bytes]], protocol: LayaProtocol, stop: threading.Event) -> None:
    """Feed bodies from `read()` (b"" at end of input) to the protocol until exit or end of input."""
    parser = FrameParser(protocol.max_message_bytes)
    protocol.stop_event = stop
    pending: asyncio.Future | None = None
    try:
        while not stop.is_set():
            body = parser.next_body()
            protocol.refuse_oversized(parser)
            if body is not None:
                protocol.handle_body(body)
                # Let a request's handler task take its snapshot of the documents before the next message (a
                # didChange already in the buffer) is applied: a request answers the text it was sent against.
                await asyncio.sleep(0)
                continue
            if pending is None:
                pending = asyncio.ensure_future(read())
            done, _ = await asyncio.wait({pending}, timeout=STALL_S if parser.need is not None else None)
            if not done:
                salvaged = parser.stalled()
                if salvaged is not None:
                    protocol.handle_body(salvaged)
                continue
            data, pending = pending.result(), None
            if not data:
                return
            parser.feed(data)
    finally:
        if pending is not None:
            pending.cancel()


def stdin_chunks(fd: int) -> Callable[[], Awaitable[bytes]]:
    """Chunks of `fd` read by a daemon thread (an executor thread blocked in read() would hang interpreter exit)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue()

    def pump() -> None:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            loop.call_soon_threadsafe(queue.put_nowait, chunk)
            if not chunk:
                return

    threading.Thread(target=pump, name="laya-stdin", daemon=True).start()
    return queue.get
