"""`laya-lsp http`: load the model in the background and serve the HTTP API with uvicorn."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from concurrent.futures import Future

import uvicorn

from ..blas import set_blas_threads
from ..config import Settings, settings_from_env
from ..engine import Engine, ModelLoadError
from .app import HttpOptions, create_app

log = logging.getLogger(__name__)
TOKEN_ENV = "LAYA_HTTP_TOKEN"


class _Server(uvicorn.Server):
    async def startup(self, sockets: list | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.servers:
            port = self.servers[0].sockets[0].getsockname()[1]
            # One line on stderr that scripts (and tests) wait for; `--port 0` picks a free port.
            print(f"laya-lsp http: listening on http://{self.config.host}:{port}", file=sys.stderr, flush=True)


def _load(engine: Engine, settings: Settings) -> Future:
    """Load the model on a thread; requests arriving meanwhile wait for it, /healthz says "loading"."""
    done: Future = Future()

    def load() -> None:
        try:
            lm = engine.load(settings.model or None, settings.allow_download)
            log.info("model %s loaded in %.0f ms", lm.name, lm.timings.get("load_ms", 0.0))
        except ModelLoadError as exc:
            print(f"laya-lsp http: model not loaded: {exc}", file=sys.stderr, flush=True)
        except Exception as exc:  # reported by /healthz and every request
            engine.load_error = f"{type(exc).__name__}: {exc}"
            log.exception("model load failed")
        done.set_result(engine.lm is not None)

    threading.Thread(target=load, name="laya-http-load", daemon=True).start()
    return done


def run_http(args: argparse.Namespace, settings: Settings) -> int:
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if token is None and args.allow_remote:
        print(f"laya-lsp http: warning: serving {args.host} without a token (--token or {TOKEN_ENV}): anyone who "
              "can reach it can use the model", file=sys.stderr, flush=True)
    settings = settings_from_env(settings)
    if settings.threads:
        set_blas_threads(settings.threads)
    engine = Engine(settings.engine())
    loading = _load(engine, settings)
    options = HttpOptions(max_in_flight=args.max_in_flight, max_queue=args.max_queue,
                          max_body_bytes=args.max_body_bytes, max_sessions=args.max_sessions, token=token)
    app = create_app(engine, settings, options, loading)
    # log_config=None: uvicorn logs through our stderr logging (access lines at INFO, so --log-level INFO).
    server = _Server(uvicorn.Config(app, host=args.host, port=args.port, log_config=None, lifespan="off",
                                    timeout_graceful_shutdown=3, server_header=False))
    try:
        server.run()
    finally:
        engine.shutdown()
    return 0 if server.started else 1
