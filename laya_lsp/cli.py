"""The `laya-lsp` command: serve LSP (stdio or loopback TCP), complete one position, diagnose the setup, or warm
up a first start (load and compile before any editor waits)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from typing import TYPE_CHECKING

from . import __version__, bootstrap
from .bootstrap import MODEL_ENV, use_fast_blas
from .exit_codes import EXIT_CODES, usage_error
from .limits import MAX_MESSAGE_BYTES, HttpOptions

if TYPE_CHECKING:
    from .config import Settings

LOOPBACK_NAMES = {"localhost", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help=f"mlx-lm model directory or Hugging Face repo id (default: {MODEL_ENV}, "
                   "else the embedded model)")
    p.add_argument("--pause-model", metavar="MODEL",
                   help="the pause tier's model: a directory or Hugging Face repo id, or 'off' (default: the "
                   "embedded pause model where it is shipped)")
    p.add_argument("--allow-download", action="store_true",
                   help="let a Hugging Face repo id be downloaded (default: offline, local cache only)")
    p.add_argument("--settings", metavar="JSON", help="laya settings as a JSON object, e.g. '{\"candidates\": 3}'")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                   help="log level for stderr (default WARNING)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="laya-lsp",
        description="Local, low-latency code completions and decisions from an MLX model over LSP. "
        "With no command, serves LSP over stdio.",
        epilog=EXIT_CODES,
    )
    parser.add_argument("--version", action="version", version=f"laya-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="serve LSP over stdio (default) or TCP")
    serve.add_argument("--stdio", action="store_true", help="serve over stdin/stdout (the default)")
    serve.add_argument("--tcp", action="store_true", help="serve over TCP instead of stdio")
    serve.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    serve.add_argument("--allow-remote", action="store_true",
                       help="allow a non-loopback --host (the protocol has no authentication: use with care)")
    serve.add_argument("--max-message-bytes", type=int, default=MAX_MESSAGE_BYTES,
                       help="largest LSP message (Content-Length) read; larger ones are answered with an error and "
                       f"dropped (default {MAX_MESSAGE_BYTES // 2**20} MiB)")
    _add_model_options(serve)

    comp = sub.add_parser("complete", help="print candidates and timings for one position, without an editor")
    comp.add_argument("location", metavar="FILE:LINE:COL", help="1-based line and column (characters)")
    comp.add_argument("--inline", action="store_true", help="ask as inline completion (may span lines)")
    comp.add_argument("--repeat", type=int, default=1, help="ask N times (shows cache reuse), default 1")
    comp.add_argument("--json", action="store_true", help="print JSON instead of text")
    _add_model_options(comp)

    http = sub.add_parser("http", help="serve completions, decisions and structured JSON over HTTP (docs/http.md)")
    http.add_argument("--host", default="127.0.0.1", help="host (default 127.0.0.1)")
    http.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    http.add_argument("--allow-remote", action="store_true",
                      help="allow a non-loopback --host (set a --token too)")
    http.add_argument("--token", help="require 'Authorization: Bearer TOKEN' on /v1/* (default: LAYA_HTTP_TOKEN)")
    limits = HttpOptions()
    http.add_argument("--max-in-flight", type=int, default=limits.max_in_flight,
                      help=f"requests holding model work at once (default {limits.max_in_flight})")
    http.add_argument("--max-queue", type=int, default=limits.max_queue,
                      help=f"requests waiting behind those; beyond, 429 with Retry-After (default {limits.max_queue})")
    http.add_argument("--max-body-bytes", type=int, default=limits.max_body_bytes,
                      help=f"request body limit (default {limits.max_body_bytes // 2**20} MiB)")
    http.add_argument(
        "--max-sessions",
        type=int,
        default=limits.max_sessions,
        help=f"sessions remembered; least recently used are forgotten first (default {limits.max_sessions})",
    )
    _add_model_options(http)

    doctor = sub.add_parser("doctor", help="report platform, MLX device, BLAS, threads, memory and model")
    doctor.add_argument("--json", action="store_true", help="print JSON instead of text")
    doctor.add_argument("--warm-up", action="store_true", help="then run `warm-up` (load, compile, first requests)")
    _add_model_options(doctor)

    warm = sub.add_parser("warm-up", help="load the model and compile every kernel a server needs (on a GPU, "
                          "once per machine and MLX version), with progress; then a first completion and decision")
    warm.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_model_options(warm)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    """The command's starting settings (bootstrap.resolve_settings); bad ones end the command with a message."""
    from .bootstrap import resolve_settings
    from .config import SettingsError

    try:
        return resolve_settings(args.settings, args.model, args.allow_download, pause_model=args.pause_model)
    except SettingsError as exc:
        usage_error(str(exc))


def main(argv: list[str] | None = None) -> int:
    use_fast_blas()  # before anything imports MLX: backend check, a fast BLAS on Linux CPU
    raw = list(sys.argv[1:] if argv is None else argv)
    if not raw or raw[0] not in ("serve", "complete", "http", "doctor", "warm-up", "-h", "--help", "--version"):
        raw = ["serve", *raw]  # no command: serve over stdio, taking serve's options
    args = build_parser().parse_args(raw)
    command = args.command
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, args.log_level),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if command == "serve":
        return serve(args)
    if command == "complete":
        from .complete_cli import run_complete

        return run_complete(args, _settings(args))
    if command == "http":
        return http(args)
    if command == "doctor":
        from .doctor import run_doctor

        return run_doctor(args, _settings(args))
    if command == "warm-up":
        from .first_start import run_warm_up

        return run_warm_up(args, _settings(args))
    return 2


def run() -> None:
    """Console-script entry: run, flush, and leave without C++ static teardown.

    MLX's worker threads (with OpenBLAS preloaded) can abort the interpreter's final teardown with
    "terminate called without an active exception"; everything is already shut down and flushed here.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def serve(args: argparse.Namespace) -> int:
    if args.tcp and not is_loopback(args.host) and not args.allow_remote:
        print(f"laya-lsp: refusing to listen on non-loopback host {args.host!r} without --allow-remote",
              file=sys.stderr)
        return 2
    if args.max_message_bytes < 1:
        print("laya-lsp: --max-message-bytes must be positive", file=sys.stderr)
        return 2
    settings = _settings(args)
    # The model loads on the engine's worker from here on, while the LSP stack imports (~0.4 s).
    loading = bootstrap.begin(settings, role="front")
    try:
        from .code_cache import generated_code_cached

        with generated_code_cached():  # lsprotocol's classes' methods, compiled at an earlier start
            from .lsp import create_server

            server = create_server(settings, loading, max_message_bytes=args.max_message_bytes)
        if args.tcp:
            server.start_tcp(args.host, args.port)
        else:
            server.start_io()
    finally:
        loading.engine.shutdown()
    return server.exit_code


def http(args: argparse.Namespace) -> int:
    if not is_loopback(args.host) and not args.allow_remote:
        print(f"laya-lsp: refusing to listen on non-loopback host {args.host!r} without --allow-remote",
              file=sys.stderr)
        return 2
    if args.max_in_flight < 1 or args.max_queue < 0 or args.max_body_bytes < 1 or args.max_sessions < 1:
        print("laya-lsp: --max-in-flight, --max-body-bytes and --max-sessions must be positive, --max-queue "
              "not negative", file=sys.stderr)
        return 2
    settings = _settings(args)
    # The model loads while FastAPI and uvicorn import; the scheduler holds at least every admitted request (a
    # full scheduler drops its oldest job).
    loading = bootstrap.begin(settings, min_queue=args.max_in_flight + 1, role="front")
    try:
        try:
            from .http.server import run_http
        except ImportError as exc:
            print(f"laya-lsp: the HTTP front needs its extra: pip install 'laya-lsp[http]' ({exc})",
                  file=sys.stderr)
            return 2
        return run_http(args, settings, loading)
    finally:
        loading.engine.shutdown()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
