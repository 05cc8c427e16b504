"""Helix and Sublime Text cannot be installed here: their config files are checked against each editor's
documented keys (Helix book "Languages"; sublimelsp's ClientConfig schema in sublime-package.json), and the
`laya` settings in them against laya_lsp.config. Each validator is also shown to reject a broken file.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from laya_lsp.config import SettingsError, documented_keys, parse_settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
HELIX = ROOT / "editors" / "helix" / "languages.toml"
SUBLIME = ROOT / "editors" / "sublime" / "LSP.sublime-settings"

# Helix book, "Languages": top-level tables, [language-server.NAME] keys, [[language]] keys, LSP feature
# names.
HELIX_TOP = {"use-grammars", "language-server", "language", "grammar"}
HELIX_SERVER_KEYS = {"command", "args", "config", "timeout", "environment", "required-root-patterns"}
HELIX_LANGUAGE_KEYS = {
    "name",
    "language-id",
    "scope",
    "injection-regex",
    "file-types",
    "shebangs",
    "roots",
    "auto-format",
    "diagnostic-severity",
    "comment-tokens",
    "comment-token",
    "block-comment-tokens",
    "indent",
    "language-servers",
    "grammar",
    "formatter",
    "soft-wrap",
    "text-width",
    "rulers",
    "path-completion",
    "word-completion",
    "workspace-lsp-roots",
    "persistent-diagnostic-sources",
    "auto-pairs",
    "debugger",
}
HELIX_SERVER_REF_KEYS = {"name", "only-features", "except-features"}
HELIX_FEATURES = {
    "format",
    "goto-definition",
    "goto-declaration",
    "goto-type-definition",
    "goto-reference",
    "goto-implementation",
    "signature-help",
    "hover",
    "document-highlight",
    "completion",
    "code-action",
    "workspace-command",
    "document-symbols",
    "workspace-symbols",
    "diagnostics",
    "rename-symbol",
    "inlay-hints",
}
# Servers Helix defines in its built-in languages.toml that our file lists beside laya.
HELIX_BUILTIN_SERVERS = {
    "ruff",
    "jedi",
    "pylsp",
    "typescript-language-server",
    "gopls",
    "golangci-lint-lsp",
    "rust-analyzer",
    "clangd",
    "jdtls",
}
HELIX_LANGUAGES = {"python", "javascript", "typescript", "go", "rust", "c", "cpp", "java"}

# sublimelsp ClientConfig properties (deprecated ones left out: languageId, document_selector,
# feature_selector,
# syntaxes, scopes, languages, ignore_server_trigger_chars), with the JSON type each must have.
SUBLIME_CLIENT_KEYS: dict[str, type | tuple[type, ...]] = {
    "command": list,
    "enabled": bool,
    "file_watcher": dict,
    "tcp_port": int,
    "auto_complete_selector": str,
    "selector": str,
    "schemes": list,
    "priority_selector": str,
    "initializationOptions": dict,
    "settings": dict,
    "experimental_capabilities": dict,
    "disabled_capabilities": dict,
    "env": dict,
    "diagnostics_mode": str,
}


def _check_laya_settings(raw: Any, where: str) -> None:
    top = {k.split(".")[0] for k in documented_keys()}
    unknown = set(raw) - top
    assert not unknown, f"{where}: keys that laya does not document: {sorted(unknown)}"
    try:
        parse_settings(raw)
    except SettingsError as exc:
        raise AssertionError(f"{where}: {exc}") from None


# -- Helix ---------------------------------------------------------------------------------------------------
def check_helix(doc: dict[str, Any]) -> None:
    assert set(doc) <= HELIX_TOP, f"unknown top-level keys: {sorted(set(doc) - HELIX_TOP)}"
    servers = doc["language-server"]
    laya = servers["laya"]
    assert set(laya) <= HELIX_SERVER_KEYS, (
        f"unknown language-server keys: {sorted(set(laya) - HELIX_SERVER_KEYS)}"
    )
    assert laya["command"] == "laya-lsp"
    assert isinstance(laya.get("args", []), list) and all(isinstance(a, str) for a in laya.get("args", []))
    assert isinstance(laya.get("timeout", 20), int)
    _check_laya_settings(laya.get("config", {}), "language-server.laya.config")
    known = set(servers) | HELIX_BUILTIN_SERVERS
    names = set()
    for lang in doc["language"]:
        assert set(lang) <= HELIX_LANGUAGE_KEYS, (
            f"{lang.get('name')}: unknown keys {set(lang) - HELIX_LANGUAGE_KEYS}"
        )
        assert lang["name"] in HELIX_LANGUAGES, lang["name"]
        names.add(lang["name"])
        uses_laya = False
        for ref in lang["language-servers"]:
            if isinstance(ref, str):
                assert ref in known, f"{lang['name']}: undefined language server {ref!r}"
                uses_laya |= ref == "laya"
                continue
            assert set(ref) <= HELIX_SERVER_REF_KEYS, (
                f"{lang['name']}: unknown keys {set(ref) - HELIX_SERVER_REF_KEYS}"
            )
            assert ref["name"] in known, f"{lang['name']}: undefined language server {ref['name']!r}"
            assert not ("only-features" in ref and "except-features" in ref)
            features = set(ref.get("only-features", [])) | set(ref.get("except-features", []))
            assert features <= HELIX_FEATURES, f"{lang['name']}: unknown features {features - HELIX_FEATURES}"
            if ref["name"] == "laya":
                uses_laya = True
                assert "completion" in ref.get("only-features", ["completion"])
        assert uses_laya, f"{lang['name']} does not use laya"
    assert names == HELIX_LANGUAGES


def test_helix_languages_toml_follows_helix_keys() -> None:
    check_helix(tomllib.loads(HELIX.read_text()))


@pytest.mark.parametrize("breakage", ["server key", "feature", "setting", "undefined server"])
def test_helix_check_rejects_broken_config(breakage: str) -> None:
    doc = tomllib.loads(HELIX.read_text())
    if breakage == "server key":
        doc["language-server"]["laya"]["initializationOptions"] = {}  # Helix calls it `config`
    elif breakage == "feature":
        doc["language"][0]["language-servers"][-1]["only-features"] = ["inline-completion"]
    elif breakage == "setting":
        doc["language-server"]["laya"]["config"]["max_candidates"] = 3
    else:
        doc["language"][0]["language-servers"].append("laya-typo")
    with pytest.raises(AssertionError):
        check_helix(doc)


# -- Sublime Text --------------------------------------------------------------------------------------------
def load_sublime_settings(text: str) -> Any:
    """sublime-settings is JSON with // comments; ours keeps comments on their own lines."""
    return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))


def check_sublime(doc: dict[str, Any]) -> None:
    laya = doc["clients"]["laya"]
    unknown = set(laya) - set(SUBLIME_CLIENT_KEYS)
    assert not unknown, f"clients.laya: keys sublimelsp does not know (or deprecated): {sorted(unknown)}"
    for key, value in laya.items():
        assert isinstance(value, SUBLIME_CLIENT_KEYS[key]), f"clients.laya.{key} has the wrong type"
    assert laya["enabled"] is True
    assert laya["command"][0] == "laya-lsp" and all(isinstance(a, str) for a in laya["command"])
    for alternative in laya["selector"].split("|"):
        assert re.fullmatch(r"\s*(source|text)\.[a-z+]+\s*", alternative), (
            f"odd selector part {alternative!r}"
        )
    _check_laya_settings(laya["initializationOptions"], "clients.laya.initializationOptions")
    assert set(laya["settings"]) == {"laya"}, (
        "settings are sent as workspace/didChangeConfiguration {laya: ...}"
    )
    _check_laya_settings(laya["settings"]["laya"], "clients.laya.settings.laya")
    assert laya["settings"]["laya"] == laya["initializationOptions"]


def test_sublime_settings_follow_sublimelsp_client_config() -> None:
    check_sublime(load_sublime_settings(SUBLIME.read_text()))


@pytest.mark.parametrize("breakage", ["deprecated key", "type", "setting"])
def test_sublime_check_rejects_broken_config(breakage: str) -> None:
    doc = load_sublime_settings(SUBLIME.read_text())
    laya = doc["clients"]["laya"]
    if breakage == "deprecated key":
        laya["languageId"] = "python"
    elif breakage == "type":
        laya["command"] = "laya-lsp"
    else:
        laya["initializationOptions"]["candidates"] = "three"
    with pytest.raises(AssertionError):
        check_sublime(doc)
