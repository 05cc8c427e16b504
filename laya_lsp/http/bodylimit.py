"""Request bodies over the limit get 413 with a message the client actually reads.

Starlette's own limit answers as soon as the body is too large and closes the connection without reading the
rest: a client still sending (every HTTP/1.1 client sends the whole body before it reads) gets a connection reset
and never sees the 413. This ASGI middleware refuses by the declared Content-Length before the app runs (or, for
a chunked body, when the count passes the limit), reads and drops the rest of the body up to DRAIN_BYTES so the
answer arrives, and sends a JSON 413 that names the limit, with `Connection: close`.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

DRAIN_FACTOR = 16  # a refused body is read (and dropped) up to 16x the limit; past that the connection is closed
DRAIN_MIN_BYTES = 64 * 2**20


class _TooLarge(HTTPException):
    """Raised from `receive` inside the app (FastAPI passes an HTTPException on: its handler answers it)."""

    def __init__(self, message: str) -> None:
        super().__init__(413, detail=message, headers={"Connection": "close"})


def _message(max_bytes: int, declared: int | None) -> str:
    size = f"{declared} bytes" if declared is not None else f"more than {max_bytes} bytes"
    return f"the request body is {size}; the limit is {max_bytes} bytes (--max-body-bytes)"


class BodyLimit:
    """ASGI middleware: bodies over `max_bytes` are answered 413 (see the module docstring)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = max(DRAIN_MIN_BYTES, DRAIN_FACTOR * max_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(receive, send, declared, 0)
            return
        seen = 0
        more = True  # the body has bytes not read yet
        over = False
        started = False

        async def counted() -> Message:
            nonlocal seen, more, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                more = bool(message.get("more_body", False))
                if seen > self.max_bytes:
                    over = True
                    raise _TooLarge(_message(self.max_bytes, None))
            return message

        async def watched(message: Message) -> None:
            nonlocal started, more
            if message["type"] == "http.response.start":
                started = True
                if over and more:  # the app answers the refusal: read the rest first, so the client reads it
                    more = False
                    await self._drain(receive, seen)
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if started:
                raise
            await self._refuse(receive, send, None, seen if more else -1)

    async def _drain(self, receive: Receive, seen: int) -> bool:
        """Read and drop the rest of a body, up to drain_bytes; False when the client went away."""
        while seen <= self.drain_bytes:
            message = await receive()
            if message["type"] != "http.request":
                return False
            seen += len(message.get("body", b""))
            if not message.get("more_body", False):
                break
        return True

    async def _refuse(self, receive: Receive, send: Send, declared: int | None, seen: int) -> None:
        """Drop what is left of the body (seen < 0: nothing is), then answer 413."""
        if seen >= 0 and not await self._drain(receive, seen):
            return
        body = json.dumps({"detail": _message(self.max_bytes, declared)}).encode()
        headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                              (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
