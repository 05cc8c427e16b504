"""`laya-lsp http`: load the model in the background and serve the HTTP API with uvicorn."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from concurrent.futures import Future

import uvicorn

from .. import bootstrap
from ..config import Settings
from ..engine import ModelLoadError
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


def _report_load(load: Future) -> None:
    """The load's outcome on stderr (requests and /healthz report it too)."""
    exc = load.exception()
    if exc is None:
        info = load.result()
        log.info("model %s loaded in %.0f ms", info.name, info.timings.get("load_ms", 0.0))
    elif isinstance(exc, ModelLoadError):
        print(f"laya-lsp http: model not loaded: {exc}", file=sys.stderr, flush=True)


def _report_move(moved: bootstrap.Loading | None) -> None:
    """The model moves to the GPU once its first compile is done (first_compile.py): reported as any load; a failed
    compile (None) is in the log already."""
    if moved is not None:
        moved.done.add_done_callback(_report_load)


def run_http(args: argparse.Namespace, settings: Settings, loading: bootstrap.Loading) -> int:
    """Serve the HTTP API until interrupted; the model loads in the background (`loading`: bootstrap.begin;
    requests wait for it)."""
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if token is None and args.allow_remote:
        print(f"laya-lsp http: warning: serving {args.host} without a token (--token or {TOKEN_ENV}): anyone who "
              "can reach it can use the model", file=sys.stderr, flush=True)
    options = HttpOptions(max_in_flight=args.max_in_flight, max_queue=args.max_queue,
                          max_body_bytes=args.max_body_bytes, max_sessions=args.max_sessions, token=token)
    loading.done.add_done_callback(_report_load)
    orchestrator = bootstrap.wire(lambda: settings, loading, on_move=_report_move)
    app = create_app(orchestrator, settings, options)
    # log_config=None: uvicorn logs through our stderr logging (access lines at INFO, so --log-level INFO).
    server = _Server(uvicorn.Config(app, host=args.host, port=args.port, log_config=None, lifespan="off",
                                    timeout_graceful_shutdown=3, server_header=False))
    server.run()
    return 0 if server.started else 1
