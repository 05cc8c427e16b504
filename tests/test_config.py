"""Settings: parsing and validation, and live changes over didChangeConfiguration (model reload)."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from lsphelpers import complete_texts, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from laya_lsp.bootstrap import MODEL_ENV, resolve_settings
from laya_lsp.config import GROUPS, Settings, SettingsError, documented_keys, parse_settings

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_defaults_and_camel_case_keys():
    s = parse_settings({"candidates": 3, "cacheBudgetMB": 64, "fallback": {"timeoutMs": 10}})
    assert (s.candidates, s.cache_budget_mb, s.fallback.timeout_ms) == (3, 64, 10)
    assert s.max_tokens == Settings().max_tokens


def test_partial_updates_merge_over_the_current_settings():
    base = parse_settings({"candidates": 2, "fallback": {"url": "http://127.0.0.1:1"}})
    s = parse_settings({"fallback": {"threshold": 0.9}}, base)
    assert s.candidates == 2 and s.fallback.url == "http://127.0.0.1:1" and s.fallback.threshold == 0.9


@pytest.mark.parametrize(
    "raw, words",
    [
        ({"candidates": "5"}, "candidates"),
        ({"candidates": 0}, "between"),
        ({"allowDownload": "yes"}, "true or false"),
        ({"noSuchKey": 1}, "noSuchKey"),
        ({"candidatez": 3}, r"unknown setting laya\.candidatez; did you mean laya\.candidates\?"),
        ({"typing_candidate": 3}, r"did you mean laya\.typingCandidates\?"),
        ({"fallback": {"urll": "http://x"}}, r"laya\.fallback\.urll; did you mean laya\.fallback\.url\?"),
        ({"fallback": {"threshold": "x"}}, "threshold"),
        ([1, 2], "object"),
    ],
)
def test_bad_settings_are_rejected_with_the_key_named(raw, words):
    with pytest.raises(SettingsError, match=words):
        parse_settings(raw)


def test_start_up_settings_defaults_then_env_then_settings_json_then_model_flag():
    assert resolve_settings(env={}) == Settings()
    assert resolve_settings(env={MODEL_ENV: "/m/env"}).model == "/m/env"
    from_json = resolve_settings('{"model": "/m/json", "candidates": 2}', env={MODEL_ENV: "/m/env"})
    assert (from_json.model, from_json.candidates) == ("/m/json", 2)
    flag = resolve_settings('{"model": "/m/json"}', model="/m/flag", allow_download=True, env={MODEL_ENV: "/m/env"})
    assert (flag.model, flag.allow_download) == ("/m/flag", True)
    with pytest.raises(SettingsError, match="not valid JSON"):
        resolve_settings("{nope", env={})
    with pytest.raises(SettingsError, match="candidates"):
        resolve_settings('{"candidates": 99}', env={})


def _readme_defaults() -> dict[str, Any]:
    """The README's settings table: `key` -> its documented default, read as JSON."""
    rows = re.findall(r"^\| `([\w.]+)` \| `([^`]*)` \|", README, flags=re.MULTILINE)
    return {key: json.loads(value) for key, value in rows}


def _defaults() -> dict[str, Any]:
    """Every setting's default as config.py has it, under the README's (dotted camelCase) keys."""
    s = Settings()
    values = [getattr(s, f.name) for f in fields(s) if f.name not in GROUPS]
    for group in GROUPS:
        values += [getattr(getattr(s, group), f.name) for f in fields(getattr(s, group))]
    keys = documented_keys()  # in the same order: the settings' fields, then each group's
    assert len(keys) == len(values)
    return dict(zip(keys, values, strict=True))


def test_the_readme_is_for_users():
    """Development history (issue numbers, runs compared with runs) lives in docs/benchmarks.md, not here."""
    assert not re.findall(r"(?i)\bissues? \d+|\brun \d+\b", README)


def test_the_readme_settings_table_says_every_default_config_has():
    """Value by value: a default changed in config.py (or in the engine or syntax settings it reads) fails here
    until the README says so too."""
    documented, defaults = _readme_defaults(), _defaults()
    assert set(documented) == set(defaults), (set(documented) ^ set(defaults))
    wrong = {k: (documented[k], v) for k, v in defaults.items() if documented[k] != v}
    assert not wrong, f"README default != config.py default: {wrong}"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options={})
    )
    yield
    await lsp_client.shutdown_session()


def _configure(client: LanguageClient, settings: dict) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": settings}))


async def test_model_change_reloads_without_restart(client: LanguageClient, tmp_path: Path):
    other = tmp_path / "other-model"
    shutil.copytree(DEFAULT_MODEL, other)
    uri = "file:///cfg.py"
    text = "def f(x):\n    return x\n# done"
    open_doc(client, uri, text)
    assert await complete_texts(client, uri, position_at(text, len(text)))
    _configure(client, {"model": str(other)})
    for _ in range(200):
        st = await stats(client, recent=0)
        if st["model"] and st["model"]["path"] == str(other):
            break
        await asyncio.sleep(0.05)
    assert st["model"]["path"] == str(other)
    assert await complete_texts(client, uri, position_at(text, len(text)))


async def test_invalid_configuration_is_reported_and_ignored(client: LanguageClient):
    _configure(client, {"candidates": "many"})
    for _ in range(100):
        if any("candidates" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.05)
    assert any(m.type == lsp.MessageType.Error and "candidates" in m.message for m in client.messages)
    uri = "file:///still.py"
    text = "x = 1\n# ok"
    open_doc(client, uri, text)
    assert await complete_texts(client, uri, position_at(text, len(text)))


async def test_bad_model_path_is_reported_and_server_keeps_serving(client: LanguageClient, tmp_path: Path):
    _configure(client, {"model": str(tmp_path / "missing")})
    for _ in range(100):
        if any("missing" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.05)
    assert any(m.type == lsp.MessageType.Error and "does not exist" in m.message for m in client.messages)
    uri = "file:///keep.py"
    text = "y = 2\n# ok"
    open_doc(client, uri, text)
    assert await complete_texts(client, uri, position_at(text, len(text))), "the previous model keeps serving"
