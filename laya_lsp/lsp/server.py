"""The pygls server: lifecycle, text sync, configuration, model loading with progress, `laya/stats`.

Handlers are thin: LSP types in, plain calls into the engine, LSP types back. Completion handlers live in
`completion.py`, so this file stays about the server's life.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..blas import set_blas_threads
from ..config import Settings, SettingsError, parse_settings, settings_from_env
from ..engine import Engine, ModelLoadError
from ..memory import release_free_heap_periodically
from ..service import CompletionService
from ..syntax import SyntaxDocument
from .protocol import LayaProtocol, serve_stream, stdin_chunks, strict_converter

log = logging.getLogger(__name__)

STATS_METHOD = "laya/stats"
PROGRESS_CREATE_TIMEOUT_S = 2.0


class LayaServer(LanguageServer):
    """A LanguageServer with one engine (model + caches + scheduler) and the `laya` settings."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__("laya-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         protocol_cls=LayaProtocol, converter_factory=strict_converter)
        self.settings = settings_from_env(settings or Settings())
        self.engine = Engine(self.settings.engine())
        self.completions = CompletionService(self.engine, lambda: self.settings)
        # One incrementally parsed tree per open document, kept in step with pygls' text.
        self.syntax_docs: dict[str, SyntaxDocument] = {}
        self._load_task: asyncio.Task | None = None
        self._heap_task: asyncio.Task | None = None
        self._progress_n = 0
        self._pending_error: str | None = None

    # -- transports: our framing loop (protocol.py) instead of pygls' readline-based one ----------------
    @property
    def exit_code(self) -> int:
        """0 after shutdown + exit or end of input; 1 for exit without shutdown (LSP 3.18, "exit")."""
        code = self.protocol.exit_code  # type: ignore[attr-defined]
        return 0 if code is None else code

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdin/stdout. fd 1 is pointed at stderr so a stray print cannot corrupt the channel."""
        in_fd = (stdin or sys.stdin.buffer).fileno()
        out = stdout
        if out is None:
            out = os.fdopen(os.dup(1), "wb")
            os.dup2(2, 1)
            sys.stdout = sys.stderr
        self.protocol.set_writer(_FlushingWriter(out))
        self._stop_event = threading.Event()

        async def main() -> None:
            await serve_stream(stdin_chunks(in_fd), self.protocol, self._stop_event)  # type: ignore[arg-type]

        try:
            asyncio.run(main())
        except BrokenPipeError:
            log.error("the client closed the connection")
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one TCP client on host:port (others are refused while it is connected) until it exits."""
        self._stop_event = stop = threading.Event()

        busy = False

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal busy
            if busy:  # a second client would take over the writer (and see the first one's documents)
                log.warning("refused a second TCP connection from %s", writer.get_extra_info("peername"))
                writer.close()
                return
            busy = True
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await serve_stream(lambda: reader.read(1 << 16), self.protocol, stop)  # type: ignore[arg-type]
            writer.close()
            self.shutdown()

        async def main() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            log.info("serving LSP on %s", ", ".join(str(s.getsockname()) for s in self._server.sockets))
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass

    # -- helpers used by the feature modules ------------------------------------------------------------
    def show_error(self, message: str) -> None:
        log.error(message)
        self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"laya: {message}"))

    def log_info(self, message: str) -> None:
        log.info(message)
        self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Info, message=f"laya: {message}"))

    def supports_progress(self) -> bool:
        caps = self.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    def load_model(self) -> asyncio.Task:
        """Queue the configured model's load on the worker now, so that every job submitted after this call (a
        document's warm-up, a completion) runs on the loaded model, and follow it in a task that reports
        $/progress where the client supports it."""
        loop = asyncio.get_running_loop()
        token: str | None = None
        latest: lsp.WorkDoneProgressReport | None = None  # the last step, resent once the client accepts a token

        def report(message: str, pct: int) -> None:
            nonlocal latest
            latest = lsp.WorkDoneProgressReport(message=message, percentage=pct)
            if token is not None:
                self.work_done_progress.report(token, latest)

        def progress(message: str, pct: int) -> None:  # called on the worker
            loop.call_soon_threadsafe(report, message, pct)

        s = self.settings
        loading = asyncio.wrap_future(self.engine.start_load(s.model or None, s.allow_download, progress))

        async def follow() -> None:
            nonlocal token
            if self.supports_progress():
                self._progress_n += 1
                name = f"laya-load-model-{self._progress_n}"
                try:
                    # Bounded: a client that never answers gets no progress (the model loads regardless).
                    await asyncio.wait_for(self.work_done_progress.create_async(name), PROGRESS_CREATE_TIMEOUT_S)
                    self.work_done_progress.begin(
                        name, lsp.WorkDoneProgressBegin(title="laya: loading model", percentage=0, cancellable=False)
                    )
                    token = name
                    if latest is not None:
                        self.work_done_progress.report(token, latest)
                except Exception:
                    log.exception("work done progress refused")
            try:
                lm = await loading
                self.log_info(
                    f"model {lm.name} ({lm.n_params / 1e6:.1f}M params, {lm.dtype}, FIM {lm.fim.name}/"
                    f"{lm.fim.preferred_layout}) loaded in {lm.timings['load_ms']:.0f} ms, "
                    f"warm-up {lm.timings['warmup_ms']:.0f} ms"
                )
                end = "ready"
            except ModelLoadError as exc:
                self.show_error(f"model not loaded: {exc}")
                end = "failed"
            except Exception as exc:
                log.exception("model load failed")
                self.show_error(f"model not loaded: {type(exc).__name__}: {exc}")
                end = "failed"
            if token is not None:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=end))

        return asyncio.ensure_future(follow())

    async def wait_for_model(self) -> None:
        """Requests that arrive while a model is loading wait for it rather than answering empty."""
        task = self._load_task
        if task is not None and not task.done():
            await asyncio.shield(task)

    def apply_settings(self, raw: Any) -> None:
        """Validate and apply new settings; a changed model is reloaded without a restart."""
        try:
            new = parse_settings(raw, self.settings)
        except SettingsError as exc:
            self.show_error(f"invalid settings ignored: {exc}")
            return
        old, self.settings = self.settings, new
        self.engine.apply_settings(new.engine())
        if new.threads and new.threads != old.threads:
            set_blas_threads(new.threads)
        if (new.model, new.allow_download) != (old.model, old.allow_download):
            self._load_task = self.load_model()


class _FlushingWriter:
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()


def create_server(settings: Settings | None = None) -> LayaServer:
    """Build the server with every feature registered."""
    server = LayaServer(settings)
    _register_lifecycle(server)
    from . import completion, custom, decisions

    completion.register(server)
    custom.register(server)
    decisions.register(server)
    return server


def _register_lifecycle(server: LayaServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: LayaServer, params: lsp.InitializeParams) -> None:
        opts = params.initialization_options
        if opts:
            try:
                ls.settings = parse_settings(opts, ls.settings)
                ls.engine.apply_settings(ls.settings.engine())
            except SettingsError as exc:
                # Not fatal: the defaults serve, and the user is told once the client can show messages.
                ls._pending_error = f"invalid initializationOptions ignored: {exc}"
        if ls.settings.threads:
            set_blas_threads(ls.settings.threads)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: LayaServer, _params: lsp.InitializedParams) -> None:
        # Synchronous on purpose: the load is queued on the worker before any later message is handled.
        if ls._pending_error:
            ls.show_error(ls._pending_error)
        ls._load_task = ls.load_model()
        ls._heap_task = asyncio.ensure_future(release_free_heap_periodically())

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: LayaServer, params: lsp.DidChangeConfigurationParams) -> None:
        raw = params.settings
        if isinstance(raw, dict) and "laya" in raw:
            raw = raw["laya"]
        if raw is None:
            return
        ls.apply_settings(raw)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LayaServer, params: lsp.DidOpenTextDocumentParams) -> None:
        td = params.text_document
        sdoc = ls.syntax_docs[td.uri] = SyntaxDocument(td.text, td.language_id, td.uri)
        ls.completions.opened(td.uri, sdoc, td.language_id)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LayaServer, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        sdoc = ls.syntax_docs.get(uri)
        if sdoc is None:
            return
        codec = ls.workspace.position_codec
        for change in params.content_changes:
            if isinstance(change, lsp.TextDocumentContentChangePartial):
                # LSP lines (\n, \r\n, \r only: splitlines() would also break at \f, \v, \u2028 ...) and
                # the negotiated position encoding, on the text as it is before this change.
                r, enc = change.range, str(getattr(codec.encoding, "value", codec.encoding) or "utf-16")
                lo = sdoc.offset_at(r.start.line, r.start.character, enc)
                hi = sdoc.offset_at(r.end.line, r.end.character, enc)
                sdoc.replace(min(lo, hi), max(lo, hi), change.text)
                ls.completions.pasted(uri, change.text)
            else:
                sdoc.set_text(change.text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LayaServer, params: lsp.DidSaveTextDocumentParams) -> None:
        sdoc = ls.syntax_docs.get(params.text_document.uri)
        if sdoc is not None:
            ls.completions.saved(params.text_document.uri, sdoc)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LayaServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.syntax_docs.pop(params.text_document.uri, None)
        ls.completions.closed(params.text_document.uri)
        ls.engine.close_document(params.text_document.uri)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: LayaServer, _params: Any) -> None:
        ls.engine.shutdown()
