"""Name steering through the real server over stdio, with the embedded default model: after `self.` the
candidates become attributes the class has, where unsteered the model writes one it does not."""

from __future__ import annotations

import re
import sys

import pytest_lsp
from lsphelpers import complete_texts, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

SERVER_DEFAULT_MODEL = [sys.executable, "-m", "laya_lsp"]
TEXT = ("class Queue:\n    def __init__(self):\n        self.pending_jobs = []\n        self.worker_count = 0\n\n"
        "    def push(self, job):\n        self.\n")
CURSOR = TEXT.index("self.\n") + len("self.")
ATTRIBUTES = {"pending_jobs", "worker_count", "push"}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_DEFAULT_MODEL))
async def client(lsp_client: LanguageClient):
    # The analysis is waited for as long as it takes (the default bound is for typing, not for a test).
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None,
        initialization_options={"steerWaitMs": 10000, "candidates": 2, "typedThrough": False, "speculative": False}))
    yield
    await lsp_client.shutdown_session()


def _first_name(text: str) -> str:
    m = re.match(r"\w+", text)
    return m.group(0) if m else ""


async def test_steering_turns_a_made_up_attribute_into_an_existing_one(client: LanguageClient):
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"laya": {"steerNames": False}})
    )
    open_doc(client, "file:///work/plain/account.py", TEXT)
    plain = await complete_texts(client, "file:///work/plain/account.py", position_at(TEXT, CURSOR))
    # the model alone makes one up among its candidates (run 4's weights: `queue.append(job)` second)
    assert plain and any(_first_name(t) not in ATTRIBUTES for t in plain), plain

    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": {"steerNames": True}}))
    open_doc(client, "file:///work/steered/account.py", TEXT)
    steered = await complete_texts(client, "file:///work/steered/account.py", position_at(TEXT, CURSOR))
    assert steered and all(_first_name(t) in ATTRIBUTES for t in steered), steered
    records = (await stats(client, recent=5))["recent"]
    assert records[-1]["extra"]["steered"] is True
