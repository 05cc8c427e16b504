"""An independent asyncio LSP client over stdio or TCP: raw Content-Length framing and JSON, no pygls.

It records every message in both directions (`log`), so tests can validate everything the server said, and it can
write raw bytes (malformed frames, binary junk) to see how the server copes. Server→client requests get default
answers (`window/workDoneProgress/create` → null, `workspace/configuration` → nulls, …) unless a handler is set.

    async with LspClient.spawn(SERVER_CMD) as c:
        await c.initialize()
        c.did_open(uri, text)
        resp = await c.request("textDocument/completion", {...})   # the raw response dict
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

JSON = Any
SENT, RECEIVED = "sent", "received"

# JSON-RPC / LSP error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
REQUEST_CANCELLED = -32800
CONTENT_MODIFIED = -32801


class LspTimeout(TimeoutError):
    """The server did not answer in time (it hangs, or it dropped a request)."""


class ServerGone(ConnectionError):
    """The server closed its output (crashed or exited) while a response was awaited."""


@dataclass
class Record:
    """One framed message: direction, wall time, the decoded JSON (or None) and the raw body bytes."""

    direction: str
    t: float
    msg: JSON
    raw: bytes
    note: str = ""


def rich_capabilities(position_encodings: list[str] | None = None) -> dict[str, Any]:
    """A full-featured client (VS Code-like) capabilities object, as JSON."""
    return {
        "general": {
            "positionEncodings": position_encodings or ["utf-16"],
            "staleRequestSupport": {"cancel": True, "retryOnContentModified": []},
            "regularExpressions": {"engine": "ECMAScript", "version": "ES2020"},
            "markdown": {"parser": "marked", "version": "1.1.0"},
        },
        "window": {
            "workDoneProgress": True,
            "showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}},
            "showDocument": {"support": True},
        },
        "workspace": {
            "applyEdit": True,
            "configuration": True,
            "workspaceFolders": True,
            "didChangeConfiguration": {"dynamicRegistration": True},
            "workspaceEdit": {"documentChanges": True},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": True, "willSave": True, "didSave": True},
            "completion": {
                "dynamicRegistration": True,
                "contextSupport": True,
                "completionItem": {
                    "snippetSupport": True,
                    "insertReplaceSupport": True,
                    "labelDetailsSupport": True,
                    "preselectSupport": True,
                    "documentationFormat": ["markdown", "plaintext"],
                    "resolveSupport": {"properties": ["documentation", "detail"]},
                    "insertTextModeSupport": {"valueSet": [1, 2]},
                },
                "completionItemKind": {"valueSet": list(range(1, 26))},
                "completionList": {"itemDefaults": ["commitCharacters", "editRange", "insertTextFormat"]},
            },
            "inlineCompletion": {"dynamicRegistration": True},
            "publishDiagnostics": {"relatedInformation": True},
        },
    }


class LspClient:
    """A JSON-RPC 2.0 / LSP client speaking to a server process (stdio) or socket (TCP)."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any, proc: asyncio.subprocess.Process | None = None,
                 default_timeout: float = 30.0) -> None:
        self._reader = reader
        self._writer = writer
        self.proc = proc
        self.default_timeout = default_timeout
        self.log: list[Record] = []
        self.frame_errors: list[str] = []  # malformed frames *from the server* (a conformance failure)
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future] = {}
        self._responses: dict[Any, list[dict]] = {}  # every response per id (a second one is a bug)
        self._notify_waiters: list[tuple[Callable[[dict], bool], asyncio.Future]] = []
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.request_handlers: dict[str, Callable[[Any], Any]] = {
            "window/workDoneProgress/create": lambda p: None,
            "client/registerCapability": lambda p: None,
            "client/unregisterCapability": lambda p: None,
            "workspace/configuration": lambda p: [None for _ in (p or {}).get("items", [])],
            "window/showMessageRequest": lambda p: None,
        }
        self.stderr_chunks: list[bytes] = []
        self.closed = asyncio.Event()
        self._read_task = asyncio.ensure_future(self._read_loop())
        self._stderr_task: asyncio.Task | None = None
        if proc is not None and proc.stderr is not None:
            self._stderr_task = asyncio.ensure_future(self._drain_stderr(proc.stderr))

    # -- construction -------------------------------------------------------------------------------------
    @classmethod
    async def spawn(cls, cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
                    default_timeout: float = 30.0) -> LspClient:
        full_env = dict(os.environ)
        full_env.update(env or {})
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=full_env, cwd=cwd, limit=2**26,
        )
        assert proc.stdout is not None
        return cls(proc.stdout, proc.stdin, proc, default_timeout)

    @classmethod
    async def connect_tcp(cls, host: str, port: int, default_timeout: float = 30.0,
                          proc: asyncio.subprocess.Process | None = None) -> LspClient:
        reader, writer = await asyncio.open_connection(host, port, limit=2**26)
        return cls(reader, writer, proc, default_timeout)

    async def __aenter__(self) -> LspClient:  # noqa: PYI034
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- wire ---------------------------------------------------------------------------------------------
    async def write_raw(self, data: bytes) -> None:
        """Write bytes as they are (no framing): for malformed frames and junk."""
        self.log.append(Record(SENT, time.time(), None, data, note="raw"))
        self._writer.write(data)
        await self._writer.drain()

    async def send(self, msg: dict) -> None:
        body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
        self.log.append(Record(SENT, time.time(), msg, body))
        self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await self._writer.drain()

    async def _read_loop(self) -> None:
        try:
            while True:
                headers: dict[str, str] = {}
                while True:
                    line = await self._reader.readline()
                    if not line:
                        return
                    if line in (b"\r\n", b"\n"):
                        if not line.endswith(b"\r\n"):
                            self.frame_errors.append("header block not terminated by CRLF")
                        break
                    if not line.endswith(b"\r\n"):
                        self.frame_errors.append(f"header line not CRLF-terminated: {line!r}")
                    key, sep, value = line.decode("ascii", "replace").partition(":")
                    if not sep:
                        self.frame_errors.append(f"malformed header line: {line!r}")
                        continue
                    headers[key.strip().lower()] = value.strip()
                if "content-length" not in headers:
                    self.frame_errors.append(f"frame without Content-Length: {headers}")
                    continue
                n = int(headers["content-length"])
                body = await self._reader.readexactly(n)
                try:
                    msg = json.loads(body.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    self.frame_errors.append(f"body is not UTF-8 JSON ({exc}): {body[:200]!r}")
                    self.log.append(Record(RECEIVED, time.time(), None, body, note="undecodable"))
                    continue
                self.log.append(Record(RECEIVED, time.time(), msg, body))
                await self._dispatch(msg)
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        finally:
            self.closed.set()
            for fut in [*self._pending.values(), *(f for _p, f in self._notify_waiters)]:
                if not fut.done():
                    fut.set_exception(ServerGone("server closed the connection"))
                    fut.add_done_callback(lambda f: f.exception())  # nobody may be waiting: no warning

    async def _dispatch(self, msg: Any) -> None:
        if not isinstance(msg, dict):
            self.frame_errors.append(f"message is not a JSON object: {msg!r:.200}")
            return
        if "method" in msg and "id" in msg:
            self.server_requests.append(msg)
            handler = self.request_handlers.get(msg["method"])
            if handler is None:
                await self.send({"jsonrpc": "2.0", "id": msg["id"],
                                 "error": {"code": METHOD_NOT_FOUND, "message": "not handled by the test client"}})
            else:
                await self.send({"jsonrpc": "2.0", "id": msg["id"], "result": handler(msg.get("params"))})
        elif "method" in msg:
            self.notifications.append(msg)
            for pred, fut in list(self._notify_waiters):
                if not fut.done() and pred(msg):
                    fut.set_result(msg)
                    self._notify_waiters.remove((pred, fut))
        else:
            rid = msg.get("id")
            self._responses.setdefault(rid, []).append(msg)
            answered = self._pending.pop(rid) if rid in self._pending else None
            if answered is not None and not answered.done():
                answered.set_result(msg)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                return
            self.stderr_chunks.append(chunk)
            if sum(len(c) for c in self.stderr_chunks) > 8 * 2**20:  # keep the tail only
                del self.stderr_chunks[: len(self.stderr_chunks) // 2]

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    # -- JSON-RPC -----------------------------------------------------------------------------------------
    def next_id(self) -> int:
        return next(self._ids)

    async def send_request(self, method: str, params: Any = None, *, id: Any = None,
                           omit_params: bool = False) -> tuple[Any, asyncio.Future]:
        """Send a request; returns (id, future of the raw response dict) without waiting."""
        rid = self.next_id() if id is None else id
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if not omit_params:
            msg["params"] = params
        await self.send(msg)
        return rid, fut

    async def wait_response(self, fut: asyncio.Future, timeout: float | None = None, what: str = "") -> dict:
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout or self.default_timeout)
        except asyncio.TimeoutError:
            raise LspTimeout(f"no response to {what} within {timeout or self.default_timeout}s") from None

    async def wait_for_id(self, rid: Any, timeout: float | None = None) -> dict:
        """The (first) response with id `rid`, also for requests written with `write_raw`."""
        if self._responses.get(rid):
            return self._responses[rid][0]
        fut = self._pending.get(rid)
        if fut is None:
            fut = self._pending[rid] = asyncio.get_running_loop().create_future()
        return await self.wait_response(fut, timeout, f"id {rid!r}")

    async def request(self, method: str, params: Any = None, timeout: float | None = None, **kw: Any) -> dict:
        """Send a request and wait for its raw response (a dict with `result` or `error`)."""
        rid, fut = await self.send_request(method, params, **kw)
        return await self.wait_response(fut, timeout, f"{method} (id {rid})")

    async def call(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request and return its result; an error response raises AssertionError."""
        resp = await self.request(method, params, timeout)
        if "error" in resp:
            raise AssertionError(f"{method} failed: {resp['error']}")
        return resp.get("result")

    async def notify(self, method: str, params: Any = None) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def cancel(self, request_id: Any) -> None:
        await self.notify("$/cancelRequest", {"id": request_id})

    def responses_for(self, rid: Any) -> list[dict]:
        """Every response received for `rid` (exactly one is correct)."""
        return list(self._responses.get(rid, []))

    async def wait_notification(self, method: str, predicate: Callable[[dict], bool] | None = None,
                                timeout: float | None = None, include_past: bool = True) -> dict:
        def pred(m: dict) -> bool:
            return m.get("method") == method and (predicate is None or predicate(m))

        if include_past:
            for m in self.notifications:
                if pred(m):
                    return m
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._notify_waiters.append((pred, fut))
        try:
            return await asyncio.wait_for(fut, timeout or self.default_timeout)
        except asyncio.TimeoutError:
            raise LspTimeout(f"no {method} notification within {timeout or self.default_timeout}s") from None

    def received(self) -> list[Record]:
        return [r for r in self.log if r.direction == RECEIVED]

    def sent_requests(self) -> dict[Any, str]:
        """id → method of every well-formed request the client sent."""
        return {r.msg["id"]: r.msg["method"] for r in self.log
                if r.direction == SENT and isinstance(r.msg, dict) and "method" in r.msg and "id" in r.msg}

    # -- LSP conveniences ---------------------------------------------------------------------------------
    async def initialize(self, capabilities: dict | None = None, initialization_options: Any = None,
                         timeout: float | None = None, **extra: Any) -> dict:
        params = {"processId": os.getpid(), "rootUri": None, "capabilities": capabilities or rich_capabilities(),
                  "clientInfo": {"name": "laya-test-client", "version": "0"}, **extra}
        if initialization_options is not None:
            params["initializationOptions"] = initialization_options
        result = await self.call("initialize", params, timeout)
        await self.notify("initialized", {})
        return result

    async def did_open(self, uri: str, text: str, version: int = 1, language_id: str = "python") -> None:
        await self.notify("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}})

    async def did_change(self, uri: str, version: int, changes: list[dict]) -> None:
        await self.notify("textDocument/didChange",
                          {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    async def did_close(self, uri: str) -> None:
        await self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    async def completion(self, uri: str, line: int, character: int, timeout: float | None = None) -> dict:
        return await self.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character}}, timeout)

    async def inline_completion(self, uri: str, line: int, character: int, timeout: float | None = None) -> dict:
        return await self.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character},
            "context": {"triggerKind": 2}}, timeout)

    async def shutdown_and_exit(self, timeout: float = 20.0) -> int | None:
        """shutdown → exit; returns the process's exit code (None for a socket client)."""
        if not self.closed.is_set():
            with contextlib.suppress(LspTimeout, ServerGone, ConnectionError):
                await self.request("shutdown", None, timeout)
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.notify("exit", None)
        return await self.wait_exit(timeout)

    async def wait_exit(self, timeout: float = 20.0) -> int | None:
        if self.proc is None:
            return None
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            raise LspTimeout(f"server did not exit within {timeout}s") from None

    def alive(self) -> bool:
        return self.proc is None or self.proc.returncode is None

    async def close(self) -> None:
        """Stop the server if it still runs (kill after a grace period) and the reader tasks."""
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.shutdown_and_exit(5.0), 8.0)
            if self.proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()
                await self.proc.wait()
        with contextlib.suppress(Exception):
            self._writer.close()
        for task in (self._read_task, self._stderr_task):
            if task is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                    await asyncio.wait_for(task, 5.0)


async def with_timeout(aw: Awaitable[Any], seconds: float, what: str) -> Any:
    try:
        return await asyncio.wait_for(aw, seconds)
    except asyncio.TimeoutError:
        raise LspTimeout(f"{what} took more than {seconds}s") from None


class BlockingSession:
    """A server driven from a private event loop, for synchronous tests (hypothesis `@given` functions).

        s = BlockingSession(cmd); s.run(s.c.did_open(...)); resp = s.run(s.c.completion(...)); s.close()
    """

    def __init__(self, cmd: list[str], initialize: bool = True, env: dict[str, str] | None = None,
                 default_timeout: float = 30.0, **init_kw: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.c: LspClient = self.run(LspClient.spawn(cmd, env=env, default_timeout=default_timeout))
        self.init_result = self.run(self.c.initialize(**init_kw)) if initialize else None

    def run(self, aw: Awaitable[Any]) -> Any:
        return self.loop.run_until_complete(aw)

    def close(self) -> None:
        self.run(self.c.close())
        self.loop.close()


def lsp_lines(text: str) -> list[str]:
    """Lines as LSP 3.18 defines them: only \\n, \\r\\n and \\r end a line (not \\f, \\x85, \\u2028, ...)."""
    out, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n" or ch == "\r":
            end = i + 2 if ch == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
            out.append(text[start:end])
            start = i = end
        else:
            i += 1
    out.append(text[start:])
    return out


def position_at(text: str, offset: int, encoding: str = "utf-16") -> dict[str, int]:
    """The LSP position of a str offset, with `character` in the encoding's code units."""
    line_start = 0
    for line, chunk in enumerate(lsp_lines(text)):
        body = chunk.rstrip("\r\n")
        if offset <= line_start + len(body) or line_start + len(chunk) > offset:
            col = text[line_start: min(offset, line_start + len(body))]
            units = len(col.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(col.encode(encoding))
            return {"line": line, "character": units}
        line_start += len(chunk)
    raise ValueError(f"offset {offset} past the end of a {len(text)}-character text")
