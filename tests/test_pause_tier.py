"""The pause tier through the real server over stdio, with a stand-in pause model (a copy of the embedded model in a
temporary folder: the shipped one goes to laya_lsp/models/pause/). What a user relies on: an unsure keystroke answer
is answered by the pause tier in the same response, and the record says so; "off" is today's behaviour; a confident
keystroke answer never runs it; a newer version cancels it and never gets its answer; a missing pause model is
reported and the keystroke model serves on; both tiers' caches are freed on close and stay under the budget. Asserted
by behaviour (records, answers), never by time."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from conftest import DEFAULT_MODEL, DEFAULT_SERVER_CMD
from lsphelpers import change, close_doc, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

DOC = "def total(values):\n    result = 0\n    for v in values:\n        result = "
# The engine-only knobs (no typed-through, speculation or warm-up answering instead), a deadline that never
# passes here (whether the pause tier answers is asserted, never how fast), and no wider run.
BASE: dict[str, Any] = {"debounceMs": 0, "candidates": 1, "typingCandidates": 1, "maxTokens": 16, "speculative": False,
                        "typedThrough": False, "warmUp": False, "firstLineFirst": False, "crossFileTokens": 0,
                        "widerCandidates": 0}
PAUSE_WAITS = {"minConfidence": 0.99, "pause": {"minConfidence": 0, "deadlineMs": 60000}}


@pytest.fixture(scope="module")
def standin() -> Iterator[Path]:
    """The pause model's stand-in: the embedded model's files in a folder of their own (its calibration is found by
    its weights' fingerprint, as the shipped pause model's will be)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="laya-pause-standin-") as tmp:
        out = Path(tmp) / "pause-standin"
        shutil.copytree(DEFAULT_MODEL, out)
        yield out


def _session(options: dict[str, Any]) -> Any:
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
    async def client(lsp_client: LanguageClient, standin: Path):
        merged = {**BASE, **options, "pause": {"model": str(standin), **options.get("pause", {})}}
        await lsp_client.initialize_session(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=merged))
        yield
        await lsp_client.shutdown_session()

    return client


client = _session(PAUSE_WAITS)


async def inline(client: LanguageClient, uri: str, text: str, offset: int | None = None) -> tuple[list[str], dict]:
    """The inline answer at `offset` (default: the end) of `text` and its record."""
    res = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=position_at(text, len(text) if offset is None
                                                                                 else offset),
        context=lsp.InlineCompletionContext(trigger_kind=lsp.InlineCompletionTriggerKind.Invoked)))
    items = res.items if isinstance(res, lsp.InlineCompletionList) else (res or [])
    record = [r for r in (await stats(client, recent=20))["recent"] if r["kind"] == "inline"][-1]
    return [str(i.insert_text) for i in items], record


def configure(client: LanguageClient, settings: dict[str, Any]) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"laya": settings}))


async def pause_runs(client: LanguageClient) -> list[dict]:
    return [r for r in (await stats(client, recent=100))["recent"] if r["kind"] == "pause"]


async def test_a_withheld_keystroke_answer_is_answered_by_the_pause_tier_in_the_same_response(
        client: LanguageClient, standin: Path):
    uri = "file:///withheld.py"
    open_doc(client, uri, DOC)
    texts, record = await inline(client, uri, DOC)
    assert record["source"] == "pause" and record["extra"]["tier"] == "pause", record
    assert record["extra"]["pause"] == "answered" and record["extra"]["unsure"] is False, record
    assert texts and texts[0].strip(), texts
    runs = await pause_runs(client)
    assert len(runs) == 1 and runs[0]["status"] == "ok" and runs[0]["prompt_tokens"] > 0, runs
    report = await stats(client)
    assert report["pauseModel"]["path"] == str(standin) and report["pauseError"] is None
    # Asked again at the same version: the pause tier's answer, at once (no second pause run).
    again, record = await inline(client, uri, DOC)
    assert again == texts and record["source"] == "pause" and len(await pause_runs(client)) == 1


async def test_a_confident_keystroke_answer_never_runs_the_pause_tier(client: LanguageClient):
    configure(client, {"minConfidence": 0})
    uri = "file:///confident.py"
    open_doc(client, uri, DOC)
    before = len(await pause_runs(client))
    texts, record = await inline(client, uri, DOC)
    assert texts and record["source"] == "model" and record["extra"]["tier"] == "keystroke", record
    assert "pause" not in record["extra"] and len(await pause_runs(client)) == before
    configure(client, {"minConfidence": 0.99})


async def test_a_pause_answer_that_fails_its_own_cut_leaves_the_keystroke_answer(client: LanguageClient):
    configure(client, {"pause": {"minConfidence": 1.0}})  # nothing is that sure
    uri = "file:///cut.py"
    open_doc(client, uri, DOC)
    texts, record = await inline(client, uri, DOC)
    assert texts == [] and record["source"] == "model" and record["extra"]["pause"] == "unsure", record
    configure(client, {"pause": {"minConfidence": 0}})


async def test_a_newer_version_cancels_the_pause_run_and_never_gets_its_answer(client: LanguageClient):
    configure(client, {"prefillChunk": 8})  # a long prefill, a check between each 8 tokens
    uri = "file:///newer.py"
    body = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(120))
    text = body + DOC
    open_doc(client, uri, text)
    first = asyncio.ensure_future(inline(client, uri, text))
    for _ in range(2000):  # until the pause tier runs for version 1 (its prefill takes many chunks)
        running = (await stats(client, recent=0))["queue"]["running"] or ""
        if running.endswith("\0pause") or first.done():
            break
        await asyncio.sleep(0.01)
    assert not first.done(), "the pause tier was never seen running: the document is too short for this machine"
    end = position_at(text, len(text))
    change(client, uri, 2, end, end, "v")
    typed = text + "v"
    texts, record = await inline(client, uri, typed)  # version 2
    old_texts, _old = await first  # version 1's request: its text is gone, so nothing of its pause answer
    assert not old_texts or old_texts == texts, (old_texts, texts)
    for _ in range(200):  # the cancelled run's record is booked as its job ends
        runs = await pause_runs(client)
        if any(r["status"] == "cancelled" for r in runs):
            break
        await asyncio.sleep(0.05)
    assert any(r["status"] == "cancelled" for r in runs), runs
    if record["source"] == "pause":  # a pause answer for version 2 is its own: asked for this text
        assert record["extra"]["pause"] == "answered"
    configure(client, {"prefillChunk": 128})


async def test_both_tiers_caches_are_freed_on_close_and_stay_under_the_budget(client: LanguageClient):
    configure(client, {"cacheBudgetMB": 8})
    uris = [f"file:///budget{i}.py" for i in range(4)]
    for i, uri in enumerate(uris):
        text = "".join(f"value_{i}_{j} = {j}\n" for j in range(60)) + DOC
        open_doc(client, uri, text)
        await inline(client, uri, text)
        report = await stats(client, recent=0)
        assert report["cacheBytesTotal"] <= 8 * 2**20, report
    report = await stats(client, recent=0)
    assert report["pauseDocuments"], "the pause tier keeps per-document caches of its own"
    for uri in uris + ["file:///withheld.py", "file:///confident.py", "file:///cut.py", "file:///newer.py"]:
        close_doc(client, uri)
    report = await stats(client, recent=0)
    assert report["documents"] == [] and report["pauseDocuments"] == [], report
    configure(client, {"cacheBudgetMB": 512})



@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
async def off_client(lsp_client: LanguageClient):
    """`pause.model: "off"`: today's behaviour exactly."""
    options = {**BASE, **PAUSE_WAITS, "pause": {**PAUSE_WAITS["pause"], "model": "off"}}
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=options))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
async def missing_client(lsp_client: LanguageClient):
    """A pause model that does not exist."""
    options = {**BASE, "pause": {"model": "/nonexistent/laya-pause-model"}}
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=options))
    yield
    await lsp_client.shutdown_session()


async def test_off_gives_the_keystroke_answer_and_no_pause_run(off_client: LanguageClient):
    client = off_client
    uri = "file:///off.py"
    open_doc(client, uri, DOC)
    texts, record = await inline(client, uri, DOC)
    assert texts == [] and record["source"] == "model" and "pause" not in record["extra"], record
    report = await stats(client)
    assert await pause_runs(client) == [] and report["pauseModel"] == "off" and report["pauseDocuments"] == []


async def test_a_missing_pause_model_is_reported_and_the_keystroke_model_serves(missing_client: LanguageClient):
    client = missing_client
    for _ in range(200):
        if any("pause-tier model not loaded" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.05)
    errors = [m for m in client.messages if m.type == lsp.MessageType.Error]
    assert any("pause-tier model not loaded" in m.message and "does not exist" in m.message for m in errors), \
        client.messages
    configure(client, {"minConfidence": 0})
    uri = "file:///missing.py"
    open_doc(client, uri, DOC)
    texts, record = await inline(client, uri, DOC)
    assert texts and record["source"] == "model", record
    assert (await stats(client))["pauseModel"] == "none" and await pause_runs(client) == []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
async def warm_client(lsp_client: LanguageClient, standin: Path):
    """Warm-up on (the default): opening a document prefills both tiers' caches in the background."""
    options = {**BASE, "warmUp": True, "pause": {"model": str(standin)}}
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), process_id=None, initialization_options=options))
    yield
    await lsp_client.shutdown_session()


async def test_opening_a_document_prefills_the_pause_tiers_cache_too(warm_client: LanguageClient):
    """Once the pause model is loaded: so the first unsure answer at a pause pays for the new tokens only, not for a
    cold prompt."""
    client = warm_client
    open_doc(client, "file:///first.py", DOC)
    await inline(client, "file:///first.py", DOC)  # the pause model loads when the worker is next idle
    for _ in range(600):  # bounded: the load ends within it
        if (await stats(client, recent=0))["pauseModel"] not in ("queued", "none"):
            break
        await asyncio.sleep(0.1)
    uri = "file:///warm.py"
    open_doc(client, uri, DOC * 3)
    for _ in range(600):  # bounded: the background prefill (the pause model loads first) ends within it
        report = await stats(client, recent=0)
        warmed = {d["uri"] for d in report["pauseDocuments"] if d["cacheBytes"] > 0}
        if uri in warmed:
            break
        await asyncio.sleep(0.1)
    assert uri in warmed and uri in {d["uri"] for d in report["documents"]}, report
    assert [r for r in await pause_runs(client) if r["doc"] == uri] == [], "warmed, not answered: no pause run"
