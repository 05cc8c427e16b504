"""Admission of raw JSON-RPC bodies before pygls sees them: JSON-RPC validity, the LSP lifecycle (nothing
before `initialize` or after `shutdown`, `exit`'s code) and params that structure, each refusal answered with
its error code; what passes goes to pygls' own dispatch and handlers. Bodies come from the framing loop
(protocol.py).

pygls alone drops, without an answer, requests that are not valid JSON-RPC or whose params do not structure,
and ignores the lifecycle (requests before `initialize` or after `shutdown` are never answered).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import attrs
from cattrs import Converter
from lsprotocol import types as lsp

from .protocol import MAX_BODY_BYTES
from .pygls_workarounds import PyglsWorkarounds

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class LayaProtocol(PyglsWorkarounds):
    """Admission of raw bodies: JSON-RPC validity, the LSP lifecycle and params types, each with its error code."""

    def __init__(self, server: Any, converter: Converter) -> None:
        super().__init__(server, converter)
        self.initialize_received = False
        self.exit_code: int | None = None
        self.stop_event: threading.Event | None = None
        self.max_message_bytes = MAX_BODY_BYTES  # create_server sets --max-message-bytes

    def refuse_oversized(self, length: int, request_id: int | str | None, limit: int) -> None:
        """Answer a message the framing refused for its size (by its id when its first bytes showed one)."""
        self.reply_error(request_id, INVALID_REQUEST, f"Invalid Request: the message is {length} bytes, over the "
                         f"server's limit of {limit} bytes (--max-message-bytes); it was not read")

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        """Answer a message that never reached a handler (pygls has no public call for that). Framed here:
        lsprotocol's types drop `"id": null`, which a parse error's response must carry."""
        if self.writer is None:
            return
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
        self.writer.write(f"Content-Length: {len(body)}\r\n\r\n{body}".encode())

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
            self.forget_finished_notifications()


def _is_notification_method(method: str) -> bool:
    """An LSP notification (its message type has no id): pygls would run it and never answer the id."""
    msg_type = lsp.METHOD_TO_TYPES.get(method, (None,))[0]
    return msg_type is not None and attrs.has(msg_type) and "id" not in attrs.fields_dict(msg_type)


def _flatten(exc: BaseException) -> list[str]:
    subs = getattr(exc, "exceptions", None)
    if subs:
        return [m for e in subs for m in _flatten(e)]
    return [f"{type(exc).__name__}: {exc}"]
