"""Start `laya-lsp http` as a real subprocess on a free loopback port, and talk to it with raw sockets too."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from conftest import TINY_MODEL

# Candidates from the tiny random model are gibberish: take them raw, and complete everywhere.
RAW = {"postprocess": False, "triggerRules": False}


class HttpServer:
    """`python -m laya_lsp http --port 0 --model MODEL ...` (the tiny test model unless given); `url` once it
    listens and has loaded."""

    def __init__(self, *args: str, settings: dict | None = None, env: dict | None = None,
                 timeout: float = 60.0, model: Path = TINY_MODEL) -> None:
        cmd = [sys.executable, "-m", "laya_lsp", "http", "--port", "0", "--model", str(model), *args]
        if settings is not None:
            cmd += ["--settings", json.dumps(settings)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.stderr: list[str] = []
        listening = threading.Event()

        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.stderr.append(line)
                if "listening on http://" in line:
                    listening.set()

        threading.Thread(target=drain, daemon=True).start()
        t0 = time.monotonic()
        while not listening.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                self.close()
                raise RuntimeError("laya-lsp http did not start:\n" + "".join(self.stderr))
        found = next(re.search(r"http://([\d.]+):(\d+)", x) for x in self.stderr if "listening" in x)
        assert found is not None
        self.host, self.port = found.group(1), int(found.group(2))
        self.url = f"http://{self.host}:{self.port}"
        while httpx.get(self.url + "/healthz").status_code != 200:
            assert time.monotonic() - t0 < timeout, "model did not load:\n" + "".join(self.stderr)
            time.sleep(0.05)

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60, **kw)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def raw_request(server: HttpServer, path: str, body: Any) -> socket.socket:
    """Send a POST and return the open socket without reading (to close it mid-request, or read later)."""
    data = json.dumps(body).encode()
    s = socket.create_connection((server.host, server.port))
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: {server.host}\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
    return s


def read_status(s: socket.socket, timeout: float) -> tuple[int, dict[str, str]] | None:
    """(status, headers) if a response head arrives within `timeout`, else None."""
    s.settimeout(timeout)
    buf = b""
    try:
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    except TimeoutError:
        return None
    if not buf:
        return None
    head = buf.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in head[1:] if ":" in h)}
    return int(head[0].split()[1]), headers


def wait_idle(c: httpx.Client, timeout: float = 20.0) -> dict:
    """/v1/stats once nothing is queued, running, in flight or waiting."""
    t0 = time.monotonic()
    while True:
        st = c.get("/v1/stats", params={"recent": 256}).json()
        q, h = st["queue"], st["http"]
        if q["queued"] == 0 and q["running"] is None and h["inFlight"] == 0 and h["waiting"] == 0 \
                and not st["cacheBytesStale"]:
            return st
        assert time.monotonic() - t0 < timeout, f"still busy after {timeout}s: {q} {h}"
        time.sleep(0.05)
