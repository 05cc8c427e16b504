"""The context before the prompt (orchestrator/prompt_context.py): the outline of the text above the window
rides along only where that text exists, stays put while typing, and reaches the model through the server."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest
import pytest_lsp
from conftest import SERVER_CMD, TINY_MODEL
from lsphelpers import change, complete_texts, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient
from tokenizers import Tokenizer

from laya_lsp import bootstrap
from laya_lsp.config import Settings, parse_settings
from laya_lsp.orchestrator import Kind
from laya_lsp.orchestrator.prompt_context import PromptContext, outline_cut
from laya_lsp.syntax import CompletionPlan, SyntaxDocument

HEAD = "import os\n\n\ndef far_away_helper(alpha, beta):\n    return alpha + beta\n\n\n"
# Code without definitions: the window's worth of it pushes the head above the window.
FILLER = "def filler(x):\n" + "".join(f"    y{i} = x * {i} + y{i - 1 if i else ''}\n" for i in range(300))
TEXT = HEAD + FILLER + "def last(value):\n    return "
WINDOW = 2000


def test_the_cut_is_zero_while_the_window_holds_the_whole_prefix():
    assert outline_cut(TEXT, WINDOW // 2, WINDOW) == 0
    assert outline_cut(TEXT, int(WINDOW * 0.75), WINDOW) == 0


def test_the_cut_is_a_line_start_about_three_quarters_of_a_window_above_the_cursor():
    for offset in range(3000, len(TEXT), 97):
        cut = outline_cut(TEXT, offset, WINDOW)
        assert cut == 0 or TEXT[cut - 1] == "\n"
        assert offset - WINDOW - 60 <= cut <= offset - 0.75 * WINDOW  # (60: the longest line, snapped back)


def test_the_cut_moves_once_per_quarter_window_of_cursor_movement():
    step = WINDOW // 4
    cuts = [outline_cut(TEXT, offset, WINDOW) for offset in range(3000, len(TEXT))]
    moves = [i for i, (a, b) in enumerate(pairwise(cuts)) if a != b]
    assert moves and all(b - a >= step - 60 for a, b in pairwise(moves))


def _doc(text: str) -> SyntaxDocument:
    return SyntaxDocument(text, "python", "file:///proj/long.py")


SETTINGS = replace(Settings(), cross_file_tokens=0)


def test_the_outline_of_the_text_above_the_window_is_the_last_chunk():
    ctx = PromptContext()
    doc = _doc(TEXT)
    chunks = ctx.chunks("file:///proj/long.py", doc, len(TEXT), SETTINGS)
    assert len(chunks) == 1
    path, outline = chunks[0]
    assert path == "file:///proj/long.py"
    assert outline.startswith("import os\ndef far_away_helper(alpha, beta): ...\n")
    assert "def last" not in outline and len(outline) <= SETTINGS.outline_tokens * 3


def test_no_outline_for_a_short_document_or_when_off():
    ctx = PromptContext()
    short = HEAD + "def last(value):\n    return "
    assert ctx.chunks("file:///a.py", _doc(short), len(short), SETTINGS) == []
    off = replace(SETTINGS, outline_tokens=0)
    assert ctx.chunks("file:///b.py", _doc(TEXT), len(TEXT), off) == []


def test_typing_at_the_cursor_leaves_the_outline_alone():
    ctx = PromptContext()
    uri = "file:///proj/long.py"
    text = TEXT
    first = ctx.chunks(uri, _doc(text), len(text), SETTINGS)
    for ch in "alpha + beta  # done":
        text += ch
        assert ctx.chunks(uri, _doc(text), len(text), SETTINGS) == first


def test_an_edit_in_the_outlined_text_changes_the_outline():
    ctx = PromptContext()
    uri = "file:///proj/long.py"
    before = ctx.chunks(uri, _doc(TEXT), len(TEXT), SETTINGS)
    edited = TEXT.replace("import os\n", "import os\nimport sys\n")
    after = ctx.chunks(uri, _doc(edited), len(edited), SETTINGS)
    assert after != before and "import sys" in after[0][1]


def test_other_files_come_first_and_share_the_budget():
    ctx = PromptContext()
    ctx.ring.observe_file("file:///proj/other.py", "def other_thing(a, b):\n    return a * b + far_away_helper(a, b)\n")
    s = replace(SETTINGS, cross_file_tokens=256)
    chunks = ctx.chunks("file:///proj/long.py", _doc(TEXT), len(TEXT), s)
    assert [path for path, _ in chunks] == ["file:///proj/other.py", "file:///proj/long.py"]


# Through the server: a model run at every position, one short candidate, nothing in the background.
SERVED = {"triggerRules": False, "debounceMs": 0, "candidates": 1, "maxTokens": 2,
          "crossFileTokens": 0, "warmUp": False, "speculative": False, "typedThrough": False, "contextTokens": 1024}
URI = "file:///proj/long.py"


def _fixture(options: dict):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_CMD))
    async def fixture(lsp_client: LanguageClient):
        await lsp_client.initialize_session(
            lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=options)
        )
        yield
        await lsp_client.shutdown_session()

    return fixture


outlined = _fixture(SERVED)
plain = _fixture({**SERVED, "outlineTokens": 0})


def _prompt_in_process(options: dict, text: str) -> list[int]:
    """The prompt the orchestrator and engine build for a completion at the end of `text` (the server's code)."""
    settings = replace(parse_settings(options), model=str(TINY_MODEL))
    orchestrator = bootstrap.start(settings)
    engine, flow = orchestrator.engine, orchestrator.completions
    try:
        req = flow.request_for(URI, SyntaxDocument(text, "python", URI), len(text), Kind.COMPLETION,
                               CompletionPlan(True, "test"), None, False)
        return engine.prompt_for(req)
    finally:
        engine.shutdown()


def _hash(ids: list[int]) -> str:
    return format(hash(tuple(ids)) & 0xFFFFFFFFFFFF, "x")  # as the engine records `prompt_hash`


async def _served_prompt(client: LanguageClient) -> dict:
    open_doc(client, URI, TEXT)
    await complete_texts(client, URI, position_at(TEXT, len(TEXT)))
    return (await stats(client, recent=1))["recent"][-1]


def _decoded(ids: list[int]) -> str:
    return Tokenizer.from_file(str(TINY_MODEL / "tokenizer.json")).decode(ids, skip_special_tokens=False)


async def test_a_name_defined_above_the_window_reaches_the_prompt(outlined: LanguageClient):
    record = await _served_prompt(outlined)
    ids = _prompt_in_process(SERVED, TEXT)
    assert record["prompt_hash"] == _hash(ids), "the server sent the prompt built here"
    assert record["prompt_tokens"] == len(ids) <= SERVED["contextTokens"]
    prompt = _decoded(ids)
    assert "<|file_sep|>proj/long.py\nimport os\ndef far_away_helper(alpha, beta): ...\n" in prompt
    assert prompt.count("far_away_helper") == 1  # the window itself does not reach the definition


async def test_without_the_outline_the_name_is_out_of_the_prompt(plain: LanguageClient):
    record = await _served_prompt(plain)
    ids = _prompt_in_process({**SERVED, "outlineTokens": 0}, TEXT)
    assert record["prompt_hash"] == _hash(ids)
    assert "far_away_helper" not in _decoded(ids)


async def test_typing_below_the_outline_reuses_the_whole_prompt_head(outlined: LanguageClient):
    first = await _served_prompt(outlined)
    text = TEXT
    for version, ch in enumerate("alpha + beta", start=2):
        pos = position_at(text, len(text))
        change(outlined, URI, version, pos, pos, ch)
        text += ch
        await complete_texts(outlined, URI, position_at(text, len(text)))
        record = (await stats(outlined, recent=1))["recent"][-1]
        assert record["prompt_tokens"] - record["reused_tokens"] <= 4, f"typing {ch!r} recomputed the prompt head"
    assert record["prompt_hash"] != first["prompt_hash"]


@pytest.mark.parametrize("outline_tokens", [64, 192, 16384])
def test_the_prompt_stays_within_the_context_budget_whatever_the_outline_budget(outline_tokens: int):
    options = {**SERVED, "outlineTokens": outline_tokens, "contextTokens": 768}
    ids = _prompt_in_process(options, TEXT)
    assert len(ids) <= 768
    assert "def far_away_helper(alpha, beta): ..." in _decoded(ids)
