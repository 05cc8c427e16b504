"""Closed by default: TCP binds loopback unless --allow-remote; a stdio session opens no network socket at all
(a socket guard injected with sitecustomize records every inet socket, connect, bind and DNS lookup and forbids
non-loopback ones, and /proc shows no inet socket mid-session); only safetensors are loaded — a pickle next to
them is never unpickled and tokenizer code shipped with a model is never run.
"""

from __future__ import annotations

import asyncio
import json
import os
import pickle
import shutil
import socket
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SERVER_CMD, TINY_MODEL
from lspclient import LspClient, position_at

URI = "file:///closed/a.py"
TEXT = "import os\n\n# read the settings and "
END = position_at(TEXT, len(TEXT))

GUARD = r'''
import ipaddress, json, os, socket, traceback

_LOG = os.environ["LAYA_SOCKET_LOG"]


def _record(kind, detail):
    with open(_LOG, "a") as f:
        f.write(json.dumps({"pid": os.getpid(), "kind": kind, "detail": str(detail),
                            "stack": traceback.format_stack(limit=8)[:-2]}) + "\n")


def _loopback(host):
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class GuardedSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _record("inet-socket", self.family)

    def _check(self, what, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0] if isinstance(address, tuple) else str(address)
            if not _loopback(host):
                _record(what + "-blocked", address)
                raise PermissionError(f"laya socket guard: {what} to non-loopback {address!r}")
            _record(what + "-loopback", address)

    def connect(self, address):
        self._check("connect", address)
        return super().connect(address)

    def connect_ex(self, address):
        self._check("connect", address)
        return super().connect_ex(address)

    def bind(self, address):
        self._check("bind", address)
        return super().bind(address)

    def sendto(self, data, *args):
        self._check("sendto", args[-1])
        return super().sendto(data, *args)


_getaddrinfo = socket.getaddrinfo


def _guarded_getaddrinfo(host, *args, **kwargs):
    if host is not None and not _loopback(str(host)):
        _record("dns-blocked", host)
        raise PermissionError(f"laya socket guard: name lookup of {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


socket.socket = GuardedSocket
socket.getaddrinfo = _guarded_getaddrinfo
_record("guard-loaded", "")
'''


@pytest.fixture
def guard(tmp_path: Path) -> tuple[dict[str, str], Path]:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "sockets.jsonl"
    pythonpath = os.pathsep.join(p for p in [str(tmp_path / "guard"), os.environ.get("PYTHONPATH", "")] if p)
    return {"PYTHONPATH": pythonpath, "LAYA_SOCKET_LOG": str(log)}, log


def _records(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _inet_sockets(pid: int) -> list[str]:
    """Inet sockets the process holds, from /proc: its socket fds matched against /proc/<pid>/net tables."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6"):
        path = Path(f"/proc/{pid}/net/{table}")
        if not path.exists():
            continue
        for row in path.read_text().splitlines()[1:]:
            cols = row.split()
            if len(cols) > 9 and cols[9] in inodes:
                found.append(f"{table} {cols[1]} -> {cols[2]}")
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="/proc and the guard are Linux checks")
async def test_stdio_session_opens_no_network_socket(guard):
    env, log = guard
    c = await LspClient.spawn(SERVER_CMD, env=env, default_timeout=60)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        resp = await c.completion(URI, END["line"], END["character"])
        assert resp["result"]["items"], "no completion: the guard may have broken the server"
        assert _inet_sockets(c.proc.pid) == []
        await c.call("laya/stats", {})
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()
    recs = _records(log)
    loaded = [r for r in recs if r["kind"] == "guard-loaded"]
    assert any(r["pid"] == c.proc.pid for r in loaded), "the socket guard did not load in the server"
    others = [r for r in recs if r["kind"] != "guard-loaded"]
    assert others == [], "\n".join(f"{r['kind']} {r['detail']}\n{''.join(r['stack'])}" for r in others[:5])
    print(f"\nclosed: stdio session with completion -> 0 inet sockets, 0 connects/binds/lookups "
          f"(guard loaded in {len(loaded)} process images), /proc clean")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(sys.platform != "linux", reason="/proc and the guard are Linux checks")
async def test_tcp_serves_on_loopback_only(guard):
    env, log = guard
    port = _free_port()
    cmd = [*SERVER_CMD, "--tcp", "--port", str(port)]  # no --host: the default must be loopback
    proc = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env={**os.environ, **env})
    c = None
    try:
        for _ in range(200):
            try:
                c = await LspClient.connect_tcp("127.0.0.1", port, default_timeout=60, proc=proc)
                break
            except OSError:
                await asyncio.sleep(0.1)
        assert c is not None, "the TCP server never listened on 127.0.0.1"
        listening = Path("/proc/net/tcp").read_text()
        await c.initialize()
        await c.did_open(URI, TEXT)
        resp = await c.completion(URI, END["line"], END["character"])
        assert resp["result"]["items"], "no completion over TCP"
        inet = _inet_sockets(proc.pid)
        # 0100007F is 127.0.0.1 in /proc/net/tcp; every inet socket of the server is on it.
        assert inet and all(" 0100007F:" in f" {s.split()[1]}" for s in inet), inet
        assert f"0100007F:{port:04X}" in listening
        # A second connection while the editor is connected must not take over the session (the writer):
        # it is closed at once, and the first client keeps its answers.
        intruder = await LspClient.connect_tcp("127.0.0.1", port, default_timeout=5)
        await intruder.send({"jsonrpc": "2.0", "id": 1, "method": "laya/documentText", "params": {"uri": URI}})
        await asyncio.wait_for(intruder.closed.wait(), 10)
        assert intruder.received() == [], "a second TCP client was served"
        await intruder.close()
        assert (await c.call("laya/documentText", {"uri": URI}))["text"] == TEXT
        await c.request("shutdown")
        await c.notify("exit")
        assert await asyncio.wait_for(proc.wait(), 20) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        if c is not None:
            await c.close()
    kinds = {r["kind"] for r in _records(log)}
    assert not any(k.endswith("-blocked") for k in kinds), kinds
    assert "bind-loopback" in kinds
    print(f"\nclosed: TCP completion on 127.0.0.1:{port}; guard saw {sorted(kinds)}")


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com"])
async def test_tcp_refuses_non_loopback_without_allow_remote(host):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "laya_lsp", "serve", "--tcp", "--host", host, "--port", str(_free_port()),
        "--model", str(TINY_MODEL), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    _out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2, (proc.returncode, err)
    assert b"--allow-remote" in err and host.encode() in err


@pytest.fixture
def booby_trapped_model(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny model plus a pickle that writes a marker if unpickled and tokenizer code that writes one if run."""
    d = tmp_path / "trapped"
    shutil.copytree(TINY_MODEL, d)
    marker = tmp_path / "MARKER"

    class Trap:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    (d / "pytorch_model.bin").write_bytes(pickle.dumps(Trap()))
    (d / "tokenization_trap.py").write_text(f"open({str(marker)!r}, 'w').write('tokenizer code ran')\n")
    cfg = json.loads((d / "tokenizer_config.json").read_text())
    cfg["auto_map"] = {"AutoTokenizer": ["tokenization_trap.TrapTokenizer", None]}
    (d / "tokenizer_config.json").write_text(json.dumps(cfg))
    return d, marker


async def test_only_safetensors_are_loaded_never_pickles_or_model_code(booby_trapped_model):
    model_dir, marker = booby_trapped_model
    c = await LspClient.spawn([sys.executable, "-m", "laya_lsp", "--model", str(model_dir)], default_timeout=60)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        resp = await c.completion(URI, END["line"], END["character"])
        assert "result" in resp
        stats = await c.call("laya/stats", {"recent": 0})
        outcome = "loaded from safetensors" if stats["model"] else f"refused: {stats['loadError']}"
    finally:
        await c.close()
    assert not marker.exists(), f"the server ran code shipped with the model: {marker.read_text()!r}"
    print(f"\nclosed: booby-trapped model dir {outcome}; pickle never unpickled, tokenizer code never run")
