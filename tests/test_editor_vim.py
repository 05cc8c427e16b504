"""Vim 9 + ALE (Debian packages) with editors/vim, driven under tmux against the running server.

Typing `.` opens ALE's completion popup with laya's items, the first is accepted and `:w` saves it;
`:LayaStats`
shows the server's laya/stats. The check also runs once against a server that exits at once, and must fail
then.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from editors.harness import (
    BROKEN_SERVER_CMD,
    EMBEDDED_SERVER_CMD,
    ROOT,
    TEE,
    TEST_SETTINGS,
    EditorCheckFailed,
    Tmux,
    completion_new_texts,
    editor_attached,
    ensure_test_deps,
    save_artifact,
    server_exited,
    wait_for,
)

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="editor tests install their editors on Linux only"
)

SOURCE = "import os\n\n\ndef main():\n    x = os\n"
LINE = 4
PREFIX = "    x = os."


@pytest.fixture(scope="module")
def vim() -> str:
    ensure_test_deps()
    path = shutil.which("vim")
    assert path, "vim not found after editors/scripts/install-test-deps.sh"
    return path


def drive(vim: str, tmp: Path, server_cmd: list[str], name: str) -> dict[str, Any]:
    src = tmp / "example.py"
    src.write_text(SOURCE)
    log = tmp / "lsp.jsonl"
    env = {
        "LAYA_VIM_DIR": str(ROOT / "editors" / "vim"),
        # ALE runs `executable` + args: the recording wrapper, which runs the server command.
        "LAYA_EXE": sys.executable,
        "LAYA_ARGS": json.dumps([str(TEE), str(log), "--", *server_cmd]),
        "LAYA_SETTINGS": json.dumps(TEST_SETTINGS),
    }
    tmux = Tmux(name, tmp)
    tmux.start([vim, "-i", "NONE", "-u", str(ROOT / "tests" / "editors" / "vimrc"), str(src)], tmp, env)
    stats_screen = ""
    try:
        wait_for(lambda: editor_attached(log), 30)
        tmux.send("G", "A")
        wait_for(lambda: "-- INSERT --" in tmux.screen(), 5)
        tmux.send(".")  # its own keystroke: ALE asks the server with triggerCharacter "."
        wait_for(lambda: server_exited(log) or "laya ·" in tmux.screen(), 20)
        screen_with_popup = tmux.screen()
        tmux.send("C-n")
        wait_for(lambda: False, 0.3)
        tmux.send("C-y")
        tmux.send("Escape")
        tmux.send(":w", "Enter")
        wait_for(lambda: "written" in tmux.screen(), 5)
        if not server_exited(log):
            tmux.send(":LayaStats", "Enter")
            stats_screen = (
                wait_for(lambda: "cacheBudgetBytes" in (s := tmux.screen()) and s, 10) or tmux.screen()
            )
        tmux.send(":qa!", "Enter")
        wait_for(lambda: not tmux.alive(), 5)
    finally:
        tmux.kill()
    save_artifact(f"{name}-popup.txt", screen_with_popup + "\n---- :LayaStats ----\n" + stats_screen)
    return {
        "screen": screen_with_popup,
        "stats_screen": stats_screen,
        "text": src.read_text(encoding="utf-8"),
        "candidates": completion_new_texts(log),
    }


def ale_inserts(new_text: str) -> set[str]:
    """What ALE may insert for an item: all of it, or cut at the first "(" or line break (as ALE does)."""
    first = new_text.split("\n", 1)[0]
    return {new_text, first, first.split("(", 1)[0]}


def check(r: dict[str, Any]) -> None:
    if "laya ·" not in r["screen"]:
        raise EditorCheckFailed(f"no laya popup on screen:\n{r['screen']}")
    line = r["text"].split("\n")[LINE]
    if not line.startswith(PREFIX) or line == PREFIX:
        raise EditorCheckFailed(f"nothing was accepted: {line!r}")
    inserted = line[len(PREFIX) :]
    if not any(inserted in ale_inserts(c) for c in r["candidates"]):
        raise EditorCheckFailed(f"accepted text {inserted!r} is not a laya candidate {r['candidates']!r}")
    assert f"cacheBudgetBytes: {TEST_SETTINGS['cacheBudgetMB'] * 2**20}" in r["stats_screen"], r[
        "stats_screen"
    ]


def test_vim_ale_popup_accepts_laya_candidate_into_file(vim: str, tmp_path: Path) -> None:
    check(drive(vim, tmp_path, EMBEDDED_SERVER_CMD, "vim"))


def test_vim_ale_check_fails_when_server_exits(vim: str, tmp_path: Path) -> None:
    with pytest.raises(EditorCheckFailed):
        check(drive(vim, tmp_path, BROKEN_SERVER_CMD, "vim-broken"))
