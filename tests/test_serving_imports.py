"""Serving never imports transformers or torch: start-up time and memory must not depend on what else is installed.
Nor does the first completion import what it does not use (issue 27.8): jedi (name steering is off by default),
llguidance (structured output), the HTTP client stack (the decision fallback).

The real server runs over stdio under `python -X importtime`, which logs every module the process imports (the
model-loading thread included) to stderr; it loads the model and answers a completion before the log is read.
"""

from __future__ import annotations

import sys

from conftest import TINY_MODEL
from lspclient import LspClient

URI = "file:///tmp/imports.py"
TEXT = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    ret"
HEAVY = ("transformers", "torch")
UNUSED = ("jedi", "llguidance", "urllib.request", "http.client")


def imported_modules(importtime_log: str) -> set[str]:
    """Module names in `-X importtime` output ("import time: self | cumulative | name")."""
    return {line.rsplit("|", 1)[-1].strip() for line in importtime_log.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


async def test_serving_a_completion_imports_neither_transformers_nor_torch_nor_what_it_does_not_use():
    cmd = [sys.executable, "-X", "importtime", "-m", "laya_lsp", "--model", str(TINY_MODEL)]
    c = await LspClient.spawn(cmd, default_timeout=120)
    try:
        await c.initialize()
        await c.did_open(URI, TEXT)
        lines = TEXT.split("\n")
        resp = await c.completion(URI, len(lines) - 1, len(lines[-1]))
        assert "result" in resp, resp
        stats = await c.call("laya/stats", {"recent": 1})
        assert stats["model"], "the model loaded"
        assert await c.shutdown_and_exit() == 0
    finally:
        await c.close()
    modules = imported_modules(c.stderr)
    # The probe sees imports made while the model loads (in another thread), so an absence below means something.
    # (importtime logs import statements, not importlib.import_module: the architecture module itself is not
    # listed, the modules it imports are; a heavy package imported either way lists its submodules.)
    assert {"tokenizers", "mlx_lm.models.cache", "mlx_lm.models.rope_utils"} <= modules
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert not heavy, f"serving imported {heavy[:5]}"
    unused = sorted(m for m in modules if m in UNUSED or m.split(".")[0] in UNUSED)
    assert not unused, f"the first completion imported {unused[:5]}"
