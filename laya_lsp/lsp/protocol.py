"""JSON-RPC framing that never loses a request and never desynchronises: bytes in, message bodies out.

pygls' own read loop (`pygls.io_.run_async`) reads headers with `readline()`: a body without a trailing newline
followed by a bad frame swallows every later header, so the server hangs for good. This loop replaces it and
hands each body to admission (rpc_admission.py `LayaProtocol.handle_body`); the server runs it over stdio or
TCP (language_server.py `start_io`, `start_tcp`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..limits import MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

MAX_BODY_BYTES = MAX_MESSAGE_BYTES  # a message's Content-Length limit (limits.py); larger ones are refused
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


class BodySink(Protocol):
    """Where framed bodies go (rpc_admission.LayaProtocol); `stop_event` is set when the client exits. Messages
    over `max_message_bytes` are not read: `refuse_oversized` answers them."""

    stop_event: threading.Event | None
    max_message_bytes: int

    def handle_body(self, body: bytes) -> None: ...

    def refuse_oversized(self, length: int, request_id: int | str | None, limit: int) -> None: ...


async def serve_stream(read: Callable[[], Awaitable[bytes]], protocol: BodySink, stop: threading.Event) -> None:
    """Feed bodies from `read()` (b"" at end of input) to the protocol until exit or end of input."""
    parser = FrameParser(protocol.max_message_bytes)
    protocol.stop_event = stop
    pending: asyncio.Future | None = None
    try:
        while not stop.is_set():
            body = parser.next_body()
            while parser.refused:
                protocol.refuse_oversized(*parser.refused.pop(0), parser.max_body)
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
