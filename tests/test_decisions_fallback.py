"""The hand-off tier against a real `mlx_lm.server` (tiny model, 127.0.0.1, started here, offline): low-confidence
work goes to the fallback and comes back marked as such; failures and timeouts answer locally; and with no
fallback configured the server opens no socket but its LSP channel (checked in /proc and by a connect guard)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path

import jsonschema
import pytest
import pytest_lsp
from conftest import SERVER_CMD, as_dict
from lsphelpers import open_doc, position_at
from lsprotocol import types as lsp
from mlxserver import free_port, greedy, mlx_lm_server
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="module")

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}},
          "required": ["n", "ok"]}
DOC = "def area(width, height):\n    return width * height\n\n\ndef main():\n    "


# A client that resolves code actions lazily (pygls' client would mistake actions that carry commands for
# Command objects).
LAZY_CAPS = lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
    code_action=lsp.CodeActionClientCapabilities(resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"]))))


@pytest.fixture(scope="module")
def mlx_server():
    with mlx_lm_server() as url:
        yield url


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, mlx_server: str):
    # Threshold 1: every answer is "low confidence", so everything is handed off.
    opts = {"fallback": {"url": mlx_server, "threshold": 1.0, "timeoutMs": 20000}}
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=LAZY_CAPS, process_id=None, initialization_options=opts))
    yield
    await lsp_client.shutdown_session()


def configure(client: LanguageClient, fallback: dict) -> None:
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"fallback": fallback}})
    )


async def request(client: LanguageClient, method: str, params: dict) -> dict:
    return as_dict(await client.protocol.send_request_async(method, params))


async def test_decide_is_handed_off_and_marked(client: LanguageClient, mlx_server: str):
    context = "def f(x):\n    return"
    said = greedy(mlx_server, context, 8)
    assert said.strip(), "the fallback model said nothing"
    # Two options the local model finds about equally likely (one extends the other), so it is unsure.
    choices = [{"id": "fallback-says", "description": said[:6]}, {"id": "shorter", "description": said[:5]}]
    r = await request(client, "laya/decide", {"context": context, "choices": choices})
    assert r["source"] == "fallback" and r["choice"] == "fallback-says", r
    assert r["fallbackText"].startswith(said[:6]) and "local" in r


async def test_code_action_is_handed_off_and_marked(client: LanguageClient):
    uri = "file:///fb.py"
    open_doc(client, uri, DOC)
    pos = position_at(DOC, len(DOC))
    listed = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(start=pos, end=pos),
        context=lsp.CodeActionContext(diagnostics=[])))
    action = next(a for a in listed if a.kind == "refactor.rewrite.laya.completeBlock")
    resolved = await client.code_action_resolve_async(action)
    assert resolved.edit is not None and "fallback" in resolved.title


async def test_structured_from_the_fallback_is_validated(client: LanguageClient):
    r = await request(client, "laya/structured", {"prompt": "result = ", "schema": SCHEMA, "maxTokens": 24})
    jsonschema.validate(json.loads(r["text"]), SCHEMA)
    # The tiny fallback model rarely writes valid JSON: then the local (constrained) answer stands.
    assert r["source"] == "fallback" or ("fallbackError" in r and r["source"] == "local")


async def test_unreachable_fallback_answers_locally(client: LanguageClient):
    configure(client, {"url": f"http://127.0.0.1:{free_port()}", "timeoutMs": 2000})
    r = await request(client, "laya/decide", {"context": "x = ", "choices": ["1", "2"]})
    assert r["source"] == "local" and "fallbackError" in r and r["choice"] in (None, "1", "2")


async def test_fallback_timeout_answers_locally(client: LanguageClient):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)  # accepts connections (the kernel does) but never answers
    try:
        configure(client, {"url": f"http://127.0.0.1:{silent.getsockname()[1]}", "timeoutMs": 300})
        r = await request(client, "laya/structured", {"prompt": "x = ", "schema": SCHEMA, "maxTokens": 8})
        assert r["source"] == "local" and "timed out" in r["fallbackError"]
        jsonschema.validate(json.loads(r["text"]), SCHEMA)
    finally:
        silent.close()


async def test_confident_answers_are_not_handed_off(client: LanguageClient, mlx_server: str):
    configure(client, {"url": mlx_server, "threshold": 0.0, "timeoutMs": 20000})
    r = await request(client, "laya/decide", {"context": "x = ", "choices": ["1", "2"]})
    assert r["source"] == "local" and "fallbackText" not in r and "fallbackError" not in r


async def test_request_shape_model_and_api_key(client: LanguageClient):
    """What goes over the wire, seen by a recording stand-in server: /v1/completions, greedy, the configured
    model and bearer token."""
    import http.server
    import threading

    seen: list[tuple[str, dict, dict]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.path, dict(self.headers), body))
            out = json.dumps({"model": "big", "choices": [{"index": 0, "text": " 2  # two"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        configure(client, {"url": base, "model": "big", "apiKey": "sekrit", "threshold": 1.0, "timeoutMs": 5000})
        r = await request(client, "laya/decide", {"context": "x = 1 +", "choices": [" 1", " 2"]})
        assert r["source"] == "fallback" and r["choice"] == " 2"
        path, headers, body = seen[-1]
        assert path == "/v1/completions" and headers["Authorization"] == "Bearer sekrit"
        assert body["model"] == "big" and body["temperature"] == 0 and body["prompt"].endswith("x = 1 +")
    finally:
        httpd.shutdown()


# -- no fallback: no network at all --------------------------------------------------------------------------

GUARD = '''
import os, socket
_log = os.environ["LAYA_TEST_SOCKET_LOG"]
_connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex
def _check(sock, address):
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        with open(_log, "a") as f:
            f.write(f"{os.getpid()} connect {address!r}\\n")
        raise PermissionError("laya test: network connections are forbidden")
def connect(self, address):
    _check(self, address)
    return _connect(self, address)
def connect_ex(self, address):
    _check(self, address)
    return _connect_ex(self, address)
socket.socket.connect, socket.socket.connect_ex = connect, connect_ex
'''

_GUARD_DIR = Path(os.environ.get("TMPDIR", "/tmp")) / f"laya-socket-guard-{os.getpid()}"
_GUARD_DIR.mkdir(exist_ok=True)
(_GUARD_DIR / "sitecustomize.py").write_text(GUARD)
SOCKET_LOG = _GUARD_DIR / "connects.log"
GUARDED_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_GUARD_DIR), os.environ.get("PYTHONPATH", "")]),
               "LAYA_TEST_SOCKET_LOG": str(SOCKET_LOG)}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD, server_env=GUARDED_ENV), scope="module",
                    loop_scope="module")
async def offline(lsp_client: LanguageClient):
    SOCKET_LOG.unlink(missing_ok=True)
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=LAZY_CAPS, process_id=None, initialization_options={}))
    yield
    await lsp_client.shutdown_session()


def _unix_paths(pid: int) -> dict[str, str]:
    """inode → bound path ("" for unnamed sockets, e.g. a socketpair) of the Unix sockets in the namespace."""
    out = {}
    for line in Path(f"/proc/{pid}/net/unix").read_text().splitlines()[1:]:
        cols = line.split()
        out[cols[6]] = cols[7] if len(cols) > 7 else ""
    return out


def _inet_socket_inodes(pid: int) -> tuple[set[str], set[str]]:
    """(inodes of every socket the process holds, those that are TCP/UDP sockets)."""
    mine = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            mine.add(target[8:-1])
    inet = set()
    for table in ("tcp", "tcp6", "udp", "udp6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if path.exists():
            for line in path.read_text().splitlines()[1:]:
                inet.add(line.split()[9])
    return mine, mine & inet


async def test_no_fallback_means_no_network(offline: LanguageClient):
    pid = offline._server.pid  # the server process the client started
    uri = "file:///offline.py"
    open_doc(offline, uri, DOC)
    pos = position_at(DOC, len(DOC))
    await request(offline, "laya/decide", {"context": "x = ", "choices": ["1", "2"], "threshold": 1.0})
    await request(offline, "laya/decide", {"textDocument": {"uri": uri}, "position": {"line": pos.line,
                                           "character": pos.character}, "choices": ["pass", "return 0"]})
    await request(offline, "laya/structured", {"prompt": "x = ", "schema": SCHEMA, "maxTokens": 4})
    listed = await offline.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(start=pos, end=pos),
        context=lsp.CodeActionContext(diagnostics=[])))
    for action in listed:
        await offline.code_action_resolve_async(action)
    await offline.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos))
    held, inet = _inet_socket_inodes(pid)
    assert not inet, f"the server holds TCP/UDP sockets: {inet}"
    # What it does hold are unnamed Unix socket pairs (asyncio's self-pipe), bound to no path.
    unix = _unix_paths(pid)
    assert all(unix.get(i) == "" for i in held), {i: unix.get(i, "not a Unix socket") for i in held}
    assert not SOCKET_LOG.exists(), SOCKET_LOG.read_text()
    # The guard is live in that process: configuring a fallback makes it try, and the attempt is logged.
    configure(offline, {"url": "http://127.0.0.1:9", "threshold": 1.0, "timeoutMs": 500})
    await request(offline, "laya/decide", {"context": "x = ", "choices": ["1", "2"]})
    await asyncio.sleep(0.05)
    assert SOCKET_LOG.exists() and f"{pid} connect" in SOCKET_LOG.read_text()
