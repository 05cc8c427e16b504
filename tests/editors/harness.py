"""Helpers for the editor tests: the recording server wrapper, a terminal driven through tmux, installs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
TEE = Path(__file__).with_name("lsp_tee.py")
INSTALL_SCRIPT = ROOT / "editors" / "scripts" / "install-test-deps.sh"
# A "server" that dies at once: every editor test is also run against it and must then fail.
BROKEN_SERVER_CMD = [sys.executable, "-c", "import sys; sys.exit(1)"]
# The server as a user runs it: the embedded default model, so the editors accept a real completion.
EMBEDDED_SERVER_CMD = [sys.executable, "-m", "laya_lsp"]
# Small, fast answers; cacheBudgetMB proves that the settings reached the server.
TEST_SETTINGS = {"candidates": 3, "maxTokens": 8, "cacheBudgetMB": 64}


class EditorCheckFailed(AssertionError):
    """The editor did not show or accept a laya candidate (what must happen with a broken server)."""


def ensure_test_deps() -> None:
    """Run the install script once per session (idempotent: silent when everything is there)."""
    if getattr(ensure_test_deps, "done", False):
        return
    subprocess.run(["bash", str(INSTALL_SCRIPT), sys.executable], check=True, timeout=900)
    ensure_test_deps.done = True  # type: ignore[attr-defined]


def venv_bin(name: str) -> str | None:
    """A program from the test interpreter's environment (the pip-installed nvim), else from PATH."""
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def tee_cmd(log: Path, server_cmd: list[str]) -> list[str]:
    return [sys.executable, str(TEE), str(log), "--", *server_cmd]


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    records = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            pass  # a line being written right now
    return records


def server_exited(log: Path) -> bool:
    return any(r["dir"] == "exit" for r in read_log(log))


def editor_attached(log: Path) -> bool:
    """The editor opened the document on the server, or the server is gone (then nothing more will come)."""
    return server_exited(log) or any(
        r["msg"].get("method") == "textDocument/didOpen" for r in read_log(log) if r["dir"] == "to_server"
    )


def completion_new_texts(log: Path) -> list[str]:
    """Every textEdit.newText (or insertText/label) the server answered to textDocument/completion."""
    records = read_log(log)
    ids = {
        r["msg"].get("id")
        for r in records
        if r["dir"] == "to_server" and r["msg"].get("method") == "textDocument/completion"
    }
    texts = []
    for r in records:
        msg = r.get("msg", {})
        if r["dir"] != "to_editor" or "method" in msg or msg.get("id") not in ids:
            continue
        result = msg.get("result") or {}
        items = result.get("items", []) if isinstance(result, dict) else result
        for item in items:
            edit = item.get("textEdit") or {}
            texts.append(edit.get("newText") or item.get("insertText") or item["label"])
    return texts


def responses(log: Path, method: str) -> list[Any]:
    """The results the server sent for requests of `method`, in order."""
    records = read_log(log)
    ids = {
        r["msg"].get("id") for r in records if r["dir"] == "to_server" and r["msg"].get("method") == method
    }
    return [
        r["msg"].get("result")
        for r in records
        if r["dir"] == "to_editor" and "method" not in r["msg"] and r["msg"].get("id") in ids
    ]


def sent(log: Path, method: str) -> list[Any]:
    """The params of every message of `method` the editor sent the server (requests and notifications), in order."""
    return [r["msg"].get("params") for r in read_log(log)
            if r["dir"] == "to_server" and r["msg"].get("method") == method]


def apply_workspace_edit(text: str, uri: str, edit: dict[str, Any]) -> str:
    """Apply the TextEdits of `edit` for `uri` (UTF-16 columns, as LSP's default position encoding)."""
    edits = list((edit.get("changes") or {}).get(uri, []))
    for change in edit.get("documentChanges") or []:
        if change.get("textDocument", {}).get("uri") == uri:
            edits += change.get("edits", [])
    lines = text.split("\n")

    def offset(pos: dict[str, int]) -> int:
        line = lines[pos["line"]] if pos["line"] < len(lines) else ""
        units = line.encode("utf-16-le")[: 2 * pos["character"]].decode("utf-16-le", "ignore")
        return sum(len(x) + 1 for x in lines[: pos["line"]]) + len(units)

    spans = sorted(
        ((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def wait_for(pred: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = pred()
        if value or time.monotonic() > end:
            return value
        time.sleep(interval)


class Tmux:
    """One detached tmux session on a private socket running an editor in a real terminal."""

    def __init__(self, name: str, tmp: Path) -> None:
        self.name = name
        self.socket = str(tmp / "tmux.sock")
        self.size = ("100", "30")

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=check, timeout=20
        )

    def start(self, cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
        shell_cmd = " ".join(_quote(c) for c in cmd)
        full_env = {**os.environ, **env, "TERM": "xterm-256color"}
        subprocess.run(
            [
                "tmux",
                "-S",
                self.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-x",
                self.size[0],
                "-y",
                self.size[1],
                "-c",
                str(cwd),
                shell_cmd,
            ],
            env=full_env,
            check=True,
            timeout=20,
        )

    def send(self, *keys: str, literal: bool = False) -> None:
        args = ["send-keys", "-t", self.name, *(("-l",) if literal else ()), *keys]
        self._tmux(*args)

    def screen(self) -> str:
        r = self._tmux("capture-pane", "-p", "-t", self.name, check=False)
        return r.stdout

    def alive(self) -> bool:
        return self._tmux("has-session", "-t", self.name, check=False).returncode == 0

    def kill(self) -> None:
        self._tmux("kill-server", check=False)


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def save_artifact(name: str, text: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    path.write_text(text, encoding="utf-8")
    return path
