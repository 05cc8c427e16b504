"""`LayaServer`: pygls' LanguageServer with the orchestrator, the settings, our transports (protocol.py's
framing loop over stdio or one TCP client), model loading reported as $/progress, and settings applied while
serving.

It registers no handler: server.py builds it and registers the feature modules' handlers, which import only
this class (so the feature modules and server.py never import each other).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from .. import __version__, bootstrap
from ..config import Settings, SettingsError, parse_settings
from ..engine import ModelLoadError
from .conversion import strict_converter
from .errors import guarded
from .protocol import serve_stream, stdin_chunks
from .rpc_admission import LayaProtocol

log = logging.getLogger(__name__)

PROGRESS_CREATE_TIMEOUT_S = 2.0


class LayaServer(LanguageServer):
    """A LanguageServer with one orchestrator (and its engine) and the `laya` settings."""

    def __init__(self, settings: Settings, loading: bootstrap.Loading) -> None:
        super().__init__("laya-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         protocol_cls=LayaProtocol, converter_factory=strict_converter)
        self.settings = settings
        self.orchestrator = bootstrap.wire(lambda: self.settings, loading, on_move=self.moved)
        self.engine = self.orchestrator.engine
        self.loading = loading  # the latest model load (reported as $/progress once the client is initialized)
        # the pause tier's latest load and, for none, why (bootstrap.load_pause; reported once initialized)
        self.pause_load: tuple[Future, str] = (loading.pause or _no_pause(), loading.pause_note)
        self.client_ready = False
        self.stop_serving = threading.Event()
        self.tcp_listener: asyncio.Server | None = None
        self._progress_n = 0
        self.pending_error: str | None = None
        self.heap_task: asyncio.Task | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the serving loop, once the client is initialized

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

        async def main() -> None:
            await serve_stream(stdin_chunks(in_fd), self.protocol, self.stop_serving)  # type: ignore[arg-type]

        try:
            asyncio.run(main())
        except BrokenPipeError:
            log.error("the client closed the connection")
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one TCP client on host:port (others are refused while it is connected) until it exits."""
        busy = False

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal busy
            if busy:  # a second client would take over the writer (and see the first one's documents)
                log.warning("refused a second TCP connection from %s", writer.get_extra_info("peername"))
                writer.close()
                return
            busy = True
            self.protocol.set_writer(writer)
            await serve_stream(lambda: reader.read(1 << 16), self.protocol, self.stop_serving)  # type: ignore[arg-type]
            writer.close()
            self.shutdown()

        async def main() -> None:
            self.tcp_listener = await asyncio.start_server(connection, host, port)
            log.info("serving LSP on %s", ", ".join(str(s.getsockname()) for s in self.tcp_listener.sockets))
            async with self.tcp_listener:
                await self.tcp_listener.serve_forever()

        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            pass

    def shutdown(self) -> None:
        """Stop reading input and listening, then pygls' own shutdown (its thread pool)."""
        self.stop_serving.set()
        if self.tcp_listener is not None:
            self.tcp_listener.close()
        super().shutdown()

    # -- errors: what a client receives never carries the server's insides (errors.py) --------------------
    def feature(self, feature_name: str, options: Any | None = None) -> Callable:
        """pygls' `feature`, the handler guarded (errors.guarded)."""
        register = super().feature(feature_name, options)
        return lambda handler: register(guarded(feature_name, handler))

    def command(self, command_name: str) -> Callable:
        """pygls' `command`, the handler guarded (errors.guarded)."""
        register = super().command(command_name)
        return lambda handler: register(guarded(command_name, handler))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows a failed notification's exception text to the user; here it is logged on stderr, and the
        client's log gets a line without it. (A failed request was already answered: errors.py.)"""
        if source is FeatureRequestError:
            return
        log.error("%s: %s", getattr(source, "__name__", source), error, exc_info=error)
        self.window_log_message(
            lsp.LogMessageParams(
                type=lsp.MessageType.Error,
                message="laya: a message could not be handled; the server's log has the details",
            )
        )

    # -- helpers used by the feature modules ------------------------------------------------------------
    def show_error(self, message: str) -> None:
        log.error(message)
        self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=f"laya: {message}"))

    def show_warning(self, message: str) -> None:
        log.warning(message)
        self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=f"laya: {message}"))

    def log_info(self, message: str) -> None:
        log.info(message)
        self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Info, message=f"laya: {message}"))

    def supports_progress(self) -> bool:
        caps = self.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    async def report_load(self, loading: bootstrap.Loading) -> None:
        """Report a model load (started earlier, maybe already done) as $/progress where the client supports it,
        and its outcome in the log or, if it failed, to the user.

        The progress token is asked for while the load goes on (a client may take its time to answer); its latest
        step is sent once the client accepts the token, then every step after it."""
        token: str | None = None
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
                loading.progress.listen(self._progress_reporter(name))
            except Exception:
                log.exception("work done progress refused")
        try:
            info = await asyncio.shield(asyncio.wrap_future(loading.done))
            self.log_info(
                f"model {info.name} ({info.params / 1e6:.1f}M params, {info.dtype}, FIM {info.fim}/{info.layout}) "
                f"loaded on the {info.device or 'default device'} in {info.timings['load_ms']:.0f} ms"
                + (" (the GPU's kernels compile meanwhile: it moves there when they are ready)" if loading.compile
                   else "")
            )
            end = "ready"
        except ModelLoadError as exc:
            self.show_error(f"model not loaded: {exc}")
            end = "failed"
        except Exception as exc:  # noqa: BLE001 - whatever failed is the user's to see; the server keeps serving
            self.show_error(f"model not loaded: {type(exc).__name__}: {exc}")
            end = "failed"
        if token is not None:
            self.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=end))

    async def report_pause(self, load: Future, note: str) -> None:
        """The pause tier's load (bootstrap.load_pause) in the client's log when it is done, or, if it failed, to
        the user: completions keep coming from the keystroke model alone."""
        if note:
            self.log_info(f"pause tier: {note}")
            return
        try:
            info = await asyncio.shield(asyncio.wrap_future(load))
        except Exception as exc:  # noqa: BLE001 - ModelLoadError or worse: the user's to see, the server serves on
            self.show_error(f"pause-tier model not loaded: {exc} (completions come from the keystroke model alone)")
            return
        if info is not None and load is self.pause_load[0]:
            self.log_info(f"pause-tier model {info.name} ({info.params / 1e6:.1f}M params, {info.dtype}) loaded"
                          + ("" if info.compiled else "; it runs uncompiled until MLX's first compile is done"))

    def _progress_reporter(self, token: str) -> Callable[[str, int], None]:
        """A load's progress callback (called on the engine's worker) that reports to `token` from the loop."""
        loop = asyncio.get_running_loop()

        def report(message: str, pct: int) -> None:
            self.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=message, percentage=pct))

        def progress(message: str, pct: int) -> None:
            loop.call_soon_threadsafe(report, message, pct)

        return progress

    def apply_settings(self, raw: Any) -> str | None:
        """Validate and apply new settings; a changed model is reloaded without a restart. Returns what is wrong
        with them when they are refused (the settings in force stay), else None."""
        try:
            new = parse_settings(raw, self.settings)
        except SettingsError as exc:
            return str(exc)
        old, self.settings = self.settings, new
        self.engine.apply_settings(new.engine())
        if new.threads != old.threads:
            bootstrap.apply_threads(new)
        if (new.model, new.allow_download, new.device) != (old.model, old.allow_download, old.device):
            self.loading = bootstrap.reload(self.orchestrator, new, on_move=self.moved)
            if self.client_ready:
                asyncio.ensure_future(self.report_load(self.loading))
        if (new.pause.model, new.allow_download, new.device) != (old.pause.model, old.allow_download, old.device):
            self.pause_load = bootstrap.load_pause(self.engine, new)
            if self.client_ready:
                asyncio.ensure_future(self.report_pause(*self.pause_load))
        return None

    def moved(self, loading: bootstrap.Loading | None) -> None:
        """The model moves to the GPU now that its kernels are compiled (first_compile.py; called on the compile's
        thread): that load is reported like any other. None: MLX's first compile failed, the model stays as it
        is."""
        if loading is not None:
            self.loading = loading
        if not (self.client_ready and self.loop is not None):
            return  # `initialized` reports the latest load
        if loading is None:
            self.loop.call_soon_threadsafe(self.show_warning, "MLX's first compile for this model failed (the "
                                           "server's log says why): answers keep coming as they do now, on the CPU "
                                           "and without compiled code; `laya-lsp warm-up` tries again")
        else:
            self.loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self.report_load(loading)))


def _no_pause() -> Future:
    done: Future = Future()
    done.set_result(None)
    return done


class _FlushingWriter:
    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()
