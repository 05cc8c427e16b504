"""Small helpers for driving the server with pytest-lsp's client."""

from __future__ import annotations

from typing import Any

import pytest_lsp
from conftest import as_dict
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient


def open_doc(client: LanguageClient, uri: str, text: str, language: str = "python", version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id=language, version=version, text=text))
    )


def close_doc(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))


def position_at(text: str, offset: int) -> lsp.Position:
    """LSP position (UTF-16 columns) of a str offset."""
    before = text[:offset]
    line = before.count("\n")
    col_text = before[before.rfind("\n") + 1 :]
    return lsp.Position(line=line, character=len(col_text.encode("utf-16-le")) // 2)


def change(client: LanguageClient, uri: str, version: int, start: lsp.Position, end: lsp.Position, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=end), text=text)],
        )
    )


def completion_params(uri: str, pos: lsp.Position) -> lsp.CompletionParams:
    return lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)


async def complete_texts(client: LanguageClient, uri: str, pos: lsp.Position) -> list[str]:
    """The candidates' inserted text (the edit minus the word it replaces), in rank order."""
    result = await client.text_document_completion_async(completion_params(uri, pos))
    assert isinstance(result, lsp.CompletionList)
    return [item.text_edit.new_text for item in result.items]  # type: ignore[union-attr]


async def stats(client: LanguageClient, recent: int = 50, reset: bool = False) -> dict[str, Any]:
    return as_dict(await client.protocol.send_request_async("laya/stats", {"recent": recent, "reset": reset}))


def server_session(command: list[str], options: dict[str, Any]) -> Any:
    """A pytest-lsp `client` fixture: the server started by `command`, initialized with `options` (a client that
    declares no capabilities), shut down after the test. In a test module: `client = server_session(CMD, BASE)`."""

    @pytest_lsp.fixture(config=ClientServerConfig(server_command=command))
    async def client(lsp_client: LanguageClient):
        await lsp_client.initialize_session(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=options))
        yield
        await lsp_client.shutdown_session()

    return client
