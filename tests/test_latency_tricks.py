"""Typed-through reuse, speculative next completion, cross-file context and idle warm-up, through the server."""

from __future__ import annotations

import asyncio

import pytest_lsp
from conftest import DEFAULT_SERVER_CMD
from lsphelpers import change, complete_texts, open_doc, position_at, stats
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

# The embedded model with post-processing on, as users run it; no debounce.
# The keystroke model's tricks, each record its own (the pause tier answering unsure positions: test_pause_tier).
BASE = {"debounceMs": 0, "candidates": 3, "maxTokens": 12, "pause": {"model": "off"}}

DOC = "import os\n\n\ndef main():\n    value = os.getcwd()\n    print(value)\n"


def _fixture(options: dict):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=DEFAULT_SERVER_CMD))
    async def fixture(lsp_client: LanguageClient):
        await lsp_client.initialize_session(
            lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), process_id=None,
                                 initialization_options={**BASE, **options})
        )
        yield
        await lsp_client.shutdown_session()

    return fixture


tricks = _fixture({"crossFileTokens": 0, "warmUp": False})
nospec = _fixture({"crossFileTokens": 0, "warmUp": False, "speculative": False})
crossfile = _fixture({"crossFileTokens": 512, "speculative": False, "warmUp": False, "typedThrough": False})
nocross = _fixture({"crossFileTokens": 0, "speculative": False, "warmUp": False, "typedThrough": False})
warm = _fixture({"crossFileTokens": 0, "speculative": False, "typedThrough": False})
# Warm-up with the default prompt context (cross-file chunks of the other open buffers first).
warm_context = _fixture({"speculative": False, "typedThrough": False})
# A warm-up of thousands of tokens in 8-token chunks: hundreds of chunks, each a point where it can be cancelled.
slow_warm = _fixture({"crossFileTokens": 0, "speculative": False, "typedThrough": False, "prefillChunk": 8,
                      "contextTokens": 4096})


async def _wait_for(client: LanguageClient, kind: str, status: str = "ok", timeout: float = 30.0) -> dict:
    for _ in range(int(timeout / 0.05)):
        recs = [r for r in (await stats(client, recent=50))["recent"] if r["kind"] == kind and r["status"] == status]
        if recs:
            return recs[-1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} request finished with {status}")


async def test_typed_through_answers_without_a_model_run(nospec: LanguageClient):
    uri = "file:///typed.py"
    text = DOC + "    result = "
    open_doc(nospec, uri, text)
    first = await complete_texts(nospec, uri, position_at(text, len(text)))
    assert first
    top = first[0]
    typed = top[0]
    change(nospec, uri, 2, position_at(text, len(text)), position_at(text, len(text)), typed)
    text += typed
    before = (await stats(nospec, recent=0))["summary"]["decode_tokens"]
    second = await complete_texts(nospec, uri, position_at(text, len(text)))
    after = await stats(nospec, recent=1)
    record = after["recent"][-1]
    assert record["source"] == "typed-through"
    assert after["summary"]["decode_tokens"] == before, "typed-through must not run the model"
    # The completion item's text replaces the word being typed; the inserted part is the rest of the line.
    assert any(s.endswith(top[1:]) for s in second)


async def test_typing_past_a_candidate_runs_the_model_again(nospec: LanguageClient):
    uri = "file:///past.py"
    text = DOC + "    result = "
    open_doc(nospec, uri, text)
    first = await complete_texts(nospec, uri, position_at(text, len(text)))
    odd = "\u2603"  # a character no candidate starts with
    assert not any(c.startswith(odd) for c in first)
    change(nospec, uri, 2, position_at(text, len(text)), position_at(text, len(text)), odd)
    text += odd
    await complete_texts(nospec, uri, position_at(text, len(text)))
    assert (await stats(nospec, recent=1))["recent"][-1]["source"] == "model"


async def test_speculative_answer_used_after_accepting(tricks: LanguageClient):
    uri = "file:///spec.py"
    text = DOC + "    result = "
    open_doc(tricks, uri, text)
    first = await complete_texts(tricks, uri, position_at(text, len(text)))
    await _wait_for(tricks, "speculative")
    accepted = first[0].split("\n")[0] if first[0].strip() else first[0]
    pos = position_at(text, len(text))
    change(tricks, uri, 2, pos, pos, accepted)  # the editor inserts the accepted candidate
    text += accepted
    before = (await stats(tricks, recent=0))["summary"]["decode_tokens"]
    answer = await complete_texts(tricks, uri, position_at(text, len(text)))
    st = await stats(tricks, recent=1)
    assert answer
    assert st["recent"][-1]["source"] == "speculative"
    assert st["summary"]["decode_tokens"] == before


async def test_real_request_cancels_background_work(slow_warm: LanguageClient):
    """A warm-up under way (a long prefill in small chunks) is cancelled by a real request for another document,
    which is answered by the model; the part already prefilled stays cached."""
    big = "file:///bg.py"
    text = DOC * 120
    open_doc(slow_warm, big, text)  # starts the warm-up
    for _ in range(400):  # wait until the engine reports it prefilling (not a guess at its timing)
        q = (await stats(slow_warm, recent=0))["queue"]
        if (q["running"] or "").startswith(big) and q["runningTokens"]:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"the warm-up never started prefilling: {q}")
    small = "file:///real.py"
    open_doc(slow_warm, small, DOC + "    result = ")
    assert await complete_texts(slow_warm, small, position_at(DOC + "    result = ", len(DOC) + 13))
    recent = (await stats(slow_warm, recent=20))["recent"]
    warm = [r for r in recent if r["kind"] == "warm-up" and r["doc"] == big]
    assert len(warm) == 1 and warm[0]["status"] == "cancelled", warm
    assert [r["status"] for r in recent if r["doc"] == small and r["kind"] == "completion"] == ["ok"]
    assert (await stats(slow_warm, recent=0))["queue"]["queued"] == 0


LIB = '''def compute_invoice_total(items, tax_rate):
    """Sum the line items of an invoice and add tax."""
    subtotal = sum(item.price * item.quantity for item in items)
    return round(subtotal * (1 + tax_rate), 2)
'''
USER = "from billing import compute_invoice_total\n\n\ndef report(items):\n    total = "


async def _crossfile_prompt(client: LanguageClient) -> tuple[list[str], dict]:
    open_doc(client, "file:///proj/billing.py", LIB)
    uri = "file:///proj/report.py"
    open_doc(client, uri, USER)
    texts = await complete_texts(client, uri, position_at(USER, len(USER)))
    return texts, (await stats(client, recent=1))["recent"][-1]


async def test_cross_file_chunks_enter_the_prompt(crossfile: LanguageClient):
    _texts, rec = await _crossfile_prompt(crossfile)
    # The other file's chunk (LIB: 72 tokens with the embedded model's tokenizer; USER: 25) is in the prompt.
    assert rec["prompt_tokens"] > 90
    await complete_texts(crossfile, "file:///proj/report.py", position_at(USER, len(USER)))
    again = (await stats(crossfile, recent=1))["recent"][-1]
    assert again["prompt_hash"] == rec["prompt_hash"], "the cross-file head must be stable between requests"
    assert again["reused_tokens"] == again["prompt_tokens"] - 1


async def test_without_cross_file_the_prompt_is_the_document_only(nocross: LanguageClient):
    _texts, rec = await _crossfile_prompt(nocross)
    assert rec["prompt_tokens"] < 90


async def test_focus_warm_up_prefills_before_the_first_keystroke(warm: LanguageClient):
    uri = "file:///warm.py"
    text = DOC * 20
    open_doc(warm, uri, text)
    cursor = text.index("print(value)", len(text) // 2) + len("print(value)")
    warm.protocol.notify("laya/focus", {"textDocument": {"uri": uri}, "position": position_at(text, cursor)})
    # Two warm-ups: on open (cursor at the top; done or superseded) and for the focused position (done).
    rec = None
    for _ in range(1200):
        recs = [r for r in (await stats(warm, recent=50))["recent"] if r["kind"] == "warm-up"]
        if len(recs) == 2 and recs[-1]["status"] == "ok":
            rec = recs[-1]
            break
        await asyncio.sleep(0.05)
    assert rec is not None, "the focus warm-up did not finish"
    assert rec["prompt_tokens"] > 200 and rec["decode_tokens"] == 0
    pos = position_at(text, cursor)
    change(warm, uri, 2, pos, pos, "\n")
    text = text[:cursor] + "\n" + text[cursor:]
    await complete_texts(warm, uri, position_at(text, cursor + 1))
    first = (await stats(warm, recent=1))["recent"][-1]
    assert first["source"] == "model"
    assert first["prompt_tokens"] - first["reused_tokens"] <= 4, "the first keystroke should pay only new tokens"


async def test_focus_warm_up_prefills_the_prompt_the_request_there_sends(warm_context: LanguageClient):
    """The focus warm-up builds the prompt a completion at the focused spot builds (its window, the other buffers'
    chunks before it), so that completion computes one token: its last, whose logits it decodes from."""
    other, uri = "file:///proj/lib_other.py", "file:///proj/main_focus.py"
    open_doc(warm_context, other, DOC.replace("main", "helper") * 6)
    text = DOC * 20
    open_doc(warm_context, uri, text)
    cursor = text.index("value = os.getcwd()", len(text) // 2) + len("value = os.getcwd()")
    pos = position_at(text, cursor)

    async def warm_ups() -> list[dict]:
        return [r for r in (await stats(warm_context, recent=50))["recent"]
                if r["kind"] == "warm-up" and r["doc"] == uri and r["status"] == "ok"]

    for _ in range(600):  # the open's warm-up runs first (cursor at the top): the focus comes after it
        if await warm_ups():
            break
        await asyncio.sleep(0.05)
    before = len(await warm_ups())
    warm_context.protocol.notify("laya/focus", {"textDocument": {"uri": uri}, "position": pos})
    rec = None
    for _ in range(1200):
        recs = await warm_ups()
        if len(recs) > before and recs[-1]["prompt_tokens"] > 300:
            rec = recs[-1]
            break
        await asyncio.sleep(0.05)
    assert rec is not None, "the focus warm-up did not finish"
    await complete_texts(warm_context, uri, pos)
    first = (await stats(warm_context, recent=1))["recent"][-1]
    assert first["source"] == "model" and first["kind"] == "completion"
    assert first["prompt_hash"] == rec["prompt_hash"], "the warm-up prefilled another prompt than the request's"
    assert first["reused_tokens"] == first["prompt_tokens"] - 1


async def test_each_request_is_booked_once_and_never_changed(nospec: LanguageClient):
    """One record per request, built when its answer is known: a model run (with its post-processing time) and
    a typed-through answer (no engine cost) are two records; later requests leave them as they were."""
    uri = "file:///booked.py"
    text = DOC + "    result = "
    open_doc(nospec, uri, text)
    before = {r["id"] for r in (await stats(nospec, recent=50))["recent"]}
    first = await complete_texts(nospec, uri, position_at(text, len(text)))
    pos = position_at(text, len(text))
    change(nospec, uri, 2, pos, pos, first[0][0])
    text += first[0][0]
    await complete_texts(nospec, uri, position_at(text, len(text)))
    mine = [r for r in (await stats(nospec, recent=50))["recent"] if r["id"] not in before]
    assert [(r["kind"], r["source"]) for r in mine] == [("completion", "model"), ("completion", "typed-through")]
    model, typed = mine
    assert model["postprocess_ms"] > 0 and model["total_ms"] > model["postprocess_ms"] and model["decode_tokens"] > 0
    assert typed["decode_tokens"] == typed["prompt_tokens"] == 0 and typed["extra"]["plan"] == model["extra"]["plan"]
    await complete_texts(nospec, uri, position_at(text, len(text) - 1))
    again = {r["id"]: r for r in (await stats(nospec, recent=50))["recent"]}
    assert [again[r["id"]] for r in mine] == mine
