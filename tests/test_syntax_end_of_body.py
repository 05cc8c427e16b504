"""Issue 17.1 through the real server (stdio, the embedded default model): at the end of a body longer than
the lines the cursor context reads, post-processing once cut every candidate to nothing; it must answer."""

from __future__ import annotations

import ast
import sys

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR

URI = "file:///work/store.py"
BODY = "".join(f"        self.value_{i} = {i}\n" for i in range(30))
HEAD = "class Store:\n    def __init__(self):\n" + BODY
NEXT_METHOD = "\n    def clear(self):\n        self.items = []\n"
# The last line of a 30-line body before the next method: an empty indented line, and after `return self.`.
CURSOR_LINES = ["        ", "        return self."]


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "laya_lsp", "--model", str(DEFAULT_MODEL_DIR)]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual_studio_code"), process_id=None,
        initialization_options={"typedThrough": False, "speculative": False, "warmUp": False,
                                "crossFileTokens": 0}))
    yield
    await lsp_client.shutdown_session()


async def test_end_of_a_long_body_gets_candidates_that_keep_the_file_parsing(client: LanguageClient) -> None:
    for version, cursor_line in enumerate(CURSOR_LINES, 1):
        text = HEAD + cursor_line + "\n" + NEXT_METHOD
        line = text.count("\n", 0, len(HEAD))
        if version == 1:
            client.text_document_did_open(lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=URI, language_id="python", version=version, text=text)))
        else:
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=URI, version=version),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        result = await client.text_document_completion_async(lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI),
            position=lsp.Position(line=line, character=len(cursor_line))))
        items = list(result.items if isinstance(result, lsp.CompletionList) else result or [])
        assert items, f"no candidate after {cursor_line!r} at the end of a 30-line body"
        for item in items:
            edit = item.text_edit
            assert isinstance(edit, lsp.TextEdit)
            start = len(HEAD) + edit.range.start.character
            ast.parse(text[:start] + edit.new_text + text[len(HEAD) + len(cursor_line):])
