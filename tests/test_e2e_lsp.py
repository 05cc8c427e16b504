"""The real server over stdio, driven by pytest-lsp with recorded client capability profiles."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from conftest import DEFAULT_SERVER_CMD, SERVER_CMD, as_dict
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

PROFILES = ["neovim@v0.7.0", "neovim@v0.11.0", "visual_studio_code", "emacs"]
URI = "file:///work/example.py"
TEXT = '''import os


def read_config(path):
    """Read a config file."""
    with open(path) as handle:
        return handle.read()


def main():
    cfg = read_config(os.environ["CONFIG"])
    print(cfg)  # show the config
'''


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD), params=PROFILES)
async def client(request, lsp_client: LanguageClient):
    caps = client_capabilities(request.param)
    lsp_client.init_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        lsp.InitializeParams(capabilities=caps, process_id=None, initialization_options={"typedThrough": False})
    )
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, text: str = TEXT, uri: str = URI, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=version, text=text))
    )


def _position_valid(text: str, pos: lsp.Position) -> bool:
    lines = text.split("\n")
    return 0 <= pos.line < len(lines) and 0 <= pos.character <= len(lines[pos.line].encode("utf-16-le")) // 2


async def test_session_completion_and_inline(client: LanguageClient):
    _open(client)
    # The cursor ends a comment, so any one-line text is valid there (the tiny test model writes gibberish);
    # the word being typed is "config".
    line = "    print(cfg)  # show the config"
    pos = lsp.Position(line=11, character=len(line))
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=URI), position=pos)
    )
    assert isinstance(result, lsp.CompletionList)
    assert result.items, "the model returned no candidates"
    for rank, item in enumerate(result.items):
        edit = item.text_edit
        assert isinstance(edit, lsp.TextEdit)
        assert edit.range.end == pos
        assert edit.range.start == lsp.Position(line=11, character=len(line) - len("config"))
        assert edit.new_text.startswith("config")
        assert item.label == edit.new_text.split("\n")[0] or not edit.new_text.split("\n")[0].strip()
        assert item.sort_text == f"{rank:04d}"
        assert item.detail and item.detail.startswith("laya")
        assert _position_valid(TEXT, edit.range.start) and _position_valid(TEXT, edit.range.end)

    # An incremental edit, then inline completion at the new cursor.
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(start=pos, end=pos),
                    text="\n    # then ",
                )
            ],
        )
    )
    inline = await client.text_document_inline_completion_async(
        lsp.InlineCompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI),
            position=lsp.Position(line=12, character=len("    # then ")),
            context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked),
        )
    )
    assert inline is not None
    items = inline.items if isinstance(inline, lsp.InlineCompletionList) else inline
    assert items, "no inline candidates"
    for item in items:
        assert isinstance(item.insert_text, str) and item.insert_text
        assert item.range is not None and item.range.start == lsp.Position(line=12, character=len("    # then "))


async def test_initialize_advertises_both_completions(client: LanguageClient):
    caps = client.init_result.capabilities  # type: ignore[attr-defined]
    assert caps.completion_provider is not None
    assert caps.inline_completion_provider is not None


async def test_stats_report_cache_reuse(client: LanguageClient):
    _open(client)
    doc = lsp.TextDocumentIdentifier(uri=URI)
    pos = lsp.Position(line=11, character=len("    print(cfg)  # show the config"))
    await client.text_document_completion_async(lsp.CompletionParams(text_document=doc, position=pos))
    await client.text_document_completion_async(lsp.CompletionParams(text_document=doc, position=pos))
    stats = as_dict(await client.protocol.send_request_async("laya/stats", {"recent": 20}))
    recent = [r for r in stats["recent"] if r["kind"] == "completion"]  # not background work
    assert len(recent) == 2 and all(r["status"] == "ok" for r in recent)
    second = recent[-1]
    assert second["prompt_tokens"] > 0
    assert second["reused_tokens"] == second["prompt_tokens"] - 1, "the second identical request should reuse all"
    assert {d["uri"]: d["cacheBytes"] for d in stats["documents"]}[URI] > 0


@pytest.mark.skipif(sys.platform != "linux", reason="progress assertions use the VS Code profile only")
async def test_progress_reported_when_supported(client: LanguageClient):
    if not (client.capabilities and client.capabilities.window and client.capabilities.window.work_done_progress):
        pytest.skip("this client profile does not support work done progress")
    _open(client)
    await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=0, character=0)
        )
    )
    reports = [r for tok, rs in client.progress_reports.items() if str(tok).startswith("laya-load") for r in rs]
    kinds = [type(r).__name__ for r in reports]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"
    assert "WorkDoneProgressReport" in kinds


BLOCK_TEXT = ("import os\n\n\ndef read_config(path):\n    with open(path) as handle:\n        return handle.read()\n"
              "\n\ndef main():\n    \n")


def _caps(formats: list[lsp.MarkupKind] | None) -> lsp.ClientCapabilities:
    item = lsp.ClientCompletionItemOptions(documentation_format=formats)
    return lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
        completion=lsp.CompletionClientCapabilities(completion_item=item)))


DECLARED = {"markdown": [lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText], "plaintext": [lsp.MarkupKind.PlainText],
            "nothing": None}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD), params=list(DECLARED))
async def declared(request, lsp_client: LanguageClient):
    formats = DECLARED[request.param]
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=_caps(formats), process_id=None))
    lsp_client.declared = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_block_documentation_comes_in_the_format_the_client_declared(declared: LanguageClient):
    """A block candidate's whole text is the item's documentation: Markdown (fenced) only for a client that
    declared it, plain text for one that declared only that, a plain string for one that declared nothing (pytest-lsp
    warns, as a strict client would fail, on any MarkupContent of a kind not declared)."""
    _open(declared, BLOCK_TEXT)
    result = await declared.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=lsp.Position(line=9, character=4)))
    assert isinstance(result, lsp.CompletionList)
    blocks = [item for item in result.items if item.text_edit and "\n" in item.text_edit.new_text]
    assert blocks, [item.label for item in result.items]  # the embedded model writes a block after `def main():`
    for item in blocks:
        doc, text = item.documentation, item.text_edit.new_text if item.text_edit else ""
        if declared.declared == "markdown":  # type: ignore[attr-defined]
            assert doc == lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=f"```\n{text}\n```")
        elif declared.declared == "plaintext":  # type: ignore[attr-defined]
            assert doc == lsp.MarkupContent(kind=lsp.MarkupKind.PlainText, value=text)
        else:
            assert doc == text
