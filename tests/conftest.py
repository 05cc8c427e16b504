"""Shared test set-up: a small model directory built at test time (never downloaded) and server commands."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(ROOT))  # benchmarks.checkpoints builds the real-tokenizer models

from tinymodel import build_tiny_model


def _tiny_model_dir() -> Path:
    """Build once per tinymodel.py version into the temp dir; reused across test processes."""
    digest = hashlib.sha1((Path(__file__).parent / "tinymodel.py").read_bytes()).hexdigest()[:10]
    out = Path(tempfile.gettempdir()) / f"laya-test-tiny-{digest}"
    if not (out / "config.json").exists():
        tmp = out.with_name(out.name + f".{os.getpid()}")
        build_tiny_model(tmp)
        try:
            tmp.rename(out)
        except OSError:
            pass  # another process won the race; its copy is identical
    return out


TINY_MODEL = _tiny_model_dir()
SERVER_CMD = [sys.executable, "-m", "laya_lsp", "--model", str(TINY_MODEL)]
# The embedded default model: its text survives post-processing, so end-to-end tests run with the syntax stage on.
DEFAULT_MODEL = ROOT / "laya_lsp" / "models" / "default"
DEFAULT_SERVER_CMD = [sys.executable, "-m", "laya_lsp", "--model", str(DEFAULT_MODEL)]


def as_dict(obj: Any) -> Any:
    """pygls turns results of custom requests into namedtuples; turn them back into plain JSON values."""
    if hasattr(obj, "_asdict"):
        return {k: as_dict(v) for k, v in obj._asdict().items()}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    return obj


@pytest.fixture(scope="session")
def tiny_model() -> Path:
    return TINY_MODEL


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """LAYA_SKIP_EDITOR_TESTS=1 skips the tests that drive real editors (Neovim, Vim + ALE, VS Code's extension),
    listed by `-ra` with this reason; `make test` then installs no editor either (editors/scripts)."""
    if not os.environ.get("LAYA_SKIP_EDITOR_TESTS"):
        return
    skip = pytest.mark.skip(reason="LAYA_SKIP_EDITOR_TESTS is set: the editor tests were not asked for")
    for item in items:
        if item.path.name.startswith("test_editor_") and item.path.name != "test_editor_configs.py":
            item.add_marker(skip)
