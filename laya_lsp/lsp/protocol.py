"""JSON-RPC framing and message admission that never lose a request and never desynchronise.

pygls' own read loop (`pygls.io_.run_async`) reads headers with `readline()`: a body without a trailing newline
followed by a bad frame swallows every later header, so the server hangs for good. It also drops, without an
answer, requests that are not valid JSON-RPC or whose params do not structure, and ignores the LSP lifecycle
(requests before `initialize` or after `shutdown` are never answered). This module replaces the loop and the
admission step; handlers and everything after them stay pygls'.
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
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method

from .textdoc import use_lsp_lines

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002

MAX_BODY_BYTES = 256 * 2**20
MAX_HEADER_BYTES = 64 * 1024
STALL_S = 0.5  # a body still short after this long is checked for a too-long Content-Length
_LENGTH_LINE = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,12})[ \t]*$", re.IGNORECASE)
# Raw CR LF never occurs inside JSON text, so this marks the start of a next frame wherever it appears.
_FRAME_START = re.compile(rb"content-length[ \t]*:[ \t]*\d{1,12}[ \t]*\r\n", re.IGNORECASE)


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

    def feed(self, data: bytes) -> None:
        self.buf += data

    def next_body(self) -> bytes | None:
        """The next complete body, or None when more bytes are needed."""
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
                self._skip(end + 4, f"Content-Length {length} over the {self.max_body} byte limit")
                continue
            if not head.lower().startswith(b"content-"):
                log.warning("skipped junk before a frame: %r", head[:80])
            del self.buf[: end + 4]
            self.need = length
            return True

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


def strict_converter() -> Converter:
    """pygls' converter, but a string must be a string and a number a number (cattrs would coerce 5 → "5",
    1.5 → 1 and true → 1), so wrong param types are answered with InvalidParams instead of guessed at."""
    conv = default_converter()
    conv.register_structure_hook(str, _strict(str, "a string"))
    conv.register_structure_hook(int, _strict(int, "an integer"))
    conv.register_structure_hook(bool, _strict(bool, "a boolean"))
    return conv


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class LayaProtocol(LanguageServerProtocol):
    """Admission of raw bodies: JSON-RPC validity, the LSP lifecycle and params types, each with its error code."""

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.exit_code: int | None = None
        self.stop_event: threading.Event | None = None

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Generator[Any, Any, lsp.InitializeResult]:
        result = yield from super().lsp_initialize(params)
        use_lsp_lines(self._workspace)  # LSP's line model (textdoc.py), before any document is opened
        return result

    def _handle_notification(self, method_name: str, params: Any) -> None:
        super()._handle_notification(method_name, params)
        # pygls 2.1.1 files each notification's handler future in _request_futures under a fresh uuid and never
        # removes it (a Future per keystroke: the soak's slow RSS growth). A finished future has no business
        # there (requests pop theirs when done), so finished ones go.
        for key in [k for k, f in self._request_futures.items() if f.done()]:
            del self._request_futures[key]

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        # Built by hand: lsprotocol drops `"id": null`, which a parse error's response must carry.
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

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
            self.exit_code = 0 if self._shutdown else 1
            log.info("exit (code %d)", self.exit_code)
            if self.stop_event is not None:
                self.stop_event.set()
            return
        if not self.initialize_received and method != "initialize":
            if is_request:
                self.reply_error(msg_id, SERVER_NOT_INITIALIZED, f"Server not initialized: {method} before initialize")
            return  # notifications before initialize are dropped (LSP 3.18, "initialize")
        if self._shutdown:
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
        except Exception as exc:
            log.exception("failed to handle %s", method)
            if is_request and msg_id not in self._request_futures:
                self.reply_error(msg_id, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}: {exc}")


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
    parser = FrameParser()
    protocol.stop_event = stop
    pending: asyncio.Future | None = None
    try:
        while not stop.is_set():
            body = parser.next_body()
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
