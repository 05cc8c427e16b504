"""A real `mlx_lm.server` on the tiny model (127.0.0.1, offline) for the hand-off tier's tests, and greedy calls
to it so a test knows what the fallback will say."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from conftest import TINY_MODEL


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def mlx_lm_server(model: object = None) -> Iterator[str]:
    """Start `python -m mlx_lm.server` on a free loopback port; yields its URL once /health answers."""
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "mlx_lm.server", "--model", str(model or TINY_MODEL), "--host",
                             "127.0.0.1", "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/health", timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, "mlx_lm.server exited"
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def greedy(url: str, prompt: str, max_tokens: int) -> str:
    body = json.dumps({"prompt": prompt, "max_tokens": max_tokens, "temperature": 0}).encode()
    req = urllib.request.Request(url + "/v1/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())["choices"][0]["text"]
