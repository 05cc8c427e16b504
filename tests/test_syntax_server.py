"""The syntax decisions in effect through the real server (stdio, tiny test model that writes gibberish)."""

from __future__ import annotations

import ast

import pytest_lsp
from conftest import SERVER_CMD
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

URI = "file:///work/shapes.py"
TEXT = '''import math


def area(radius):
    """Area of a circle."""
    return math.pi * radius ** 2


def describe(shape):
    # describe the shape
    name = shape.name
    return f"{name}: {area(shape.radius)}"
'''


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual_studio_code"), process_id=None,
        initialization_options={"typedThrough": False, "completeInComments": False}))
    yield
    await lsp_client.shutdown_session()


async def _items(client: LanguageClient, line: int, character: int) -> list[lsp.CompletionItem]:
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=line, character=character)))
    if result is None:
        return []
    return list(result.items if isinstance(result, lsp.CompletionList) else result)


def _apply(text: str, line: int, character: int, item: lsp.CompletionItem) -> str:
    edit = item.text_edit
    assert isinstance(edit, lsp.TextEdit)
    lines = text.split("\n")
    start = sum(len(ln) + 1 for ln in lines[: edit.range.start.line]) + edit.range.start.character
    end = sum(len(ln) + 1 for ln in lines[:line]) + character
    return text[:start] + edit.new_text + text[end:]


async def test_decisions_through_the_server(client: LanguageClient) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=URI, language_id="python", version=1, text=TEXT)))
    lines = TEXT.split("\n")
    # Mid-word, and with code after the cursor: the plan declines, nothing is offered.
    assert await _items(client, 3, len("def ar")) == []
    assert await _items(client, 11, len("    name = sha")) == []
    # In a comment, turned off by the completeInComments setting.
    assert await _items(client, 9, len(lines[9])) == []
    # Where completing is allowed, every offered candidate leaves the file parsing (Python's own parser):
    # gibberish that would break it was rejected or repaired by post-processing. Inside the docstring almost
    # anything is valid, so something is offered there.
    offered = 0
    docstring = (4, len('    """Area of a circle.'))
    for line, character in [docstring, (11, len(lines[11])), (6, 0), (5, len(lines[5]))]:
        items = await _items(client, line, character)
        offered += len(items)
        for item in items:
            ast.parse(_apply(TEXT, line, character, item))
    assert offered > 0
