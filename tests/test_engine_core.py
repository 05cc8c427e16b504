"""Engine core through the real server: cache reuse while typing, exact reuse, cancel, supersede, LRU, debounce,
documents decoding together, and a model architecture the compiled step does not know."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import mlx.core as mx
import pytest
import pytest_lsp
from conftest import SERVER_CMD
from lsphelpers import change, close_doc, complete_texts, completion_params, open_doc, position_at, stats
from lsprotocol import types as lsp
from mlx.utils import tree_flatten
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig, LanguageClient
from tinymodel import QWEN_SPECIALS, build_tokenizer

SOURCE = (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text()


# The latency tricks (answers without a model run, background work) are tested in test_latency_tricks.py.
ENGINE_ONLY = {"typedThrough": False, "speculative": False, "warmUp": False, "crossFileTokens": 0,
               "steerNames": False,  # steering waits a bounded time for its analysis: answers would vary with load
               "pause": {"model": "off"}}  # one model's engine (the two tiers: test_pause_engine, test_pause_tier)


def _tiny_qwen3() -> Path:
    """A random qwen3 model (q/k norms: not an architecture laya's compiled step reproduces), built once."""
    digest = hashlib.sha1(Path(__file__).read_bytes()).hexdigest()[:10]
    out = Path(tempfile.gettempdir()) / f"laya-test-qwen3-{digest}"
    if (out / "config.json").exists():
        return out
    from mlx_lm.models import qwen3

    tmp = out.with_name(out.name + f".{random.randrange(1 << 30)}")
    tmp.mkdir(parents=True)
    build_tokenizer(tmp)
    vocab = len(json.loads((tmp / "tokenizer.json").read_text())["model"]["vocab"])
    config = {"model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 192,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "rms_norm_eps": 1e-6,
              "vocab_size": vocab + len(QWEN_SPECIALS), "max_position_embeddings": 4096, "rope_theta": 10000.0,
              "tie_word_embeddings": True, "laya": {"fim_format": "qwen", "fim_layouts": ["spm", "psm"]}}
    mx.random.seed(1)
    model = qwen3.Model(qwen3.ModelArgs.from_dict(config))
    # Peaked logits (as tinymodel.py does), so greedy ties that float noise could flip are rare.
    params = {k: v * 4 if v.ndim == 2 else v for k, v in tree_flatten(model.parameters())}
    mx.save_safetensors(str(tmp / "model.safetensors"), params, metadata={"format": "mlx"})
    (tmp / "config.json").write_text(json.dumps(config))
    try:
        tmp.rename(out)
    except OSError:
        pass  # another process built the same model first
    return out


QWEN3_CMD = [sys.executable, "-m", "laya_lsp", "--model", str(_tiny_qwen3())]


def _client_fixture(options: dict, command: list[str] = SERVER_CMD):
    @pytest_lsp.fixture(config=ClientServerConfig(server_command=command))
    async def fixture(lsp_client: LanguageClient):
        caps = lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=False))
        # These tests are about the engine: every position is completed and raw model text comes back
        # (the tiny random model's text would not survive the syntax checks).
        raw = {"triggerRules": False, "postprocess": False, **ENGINE_ONLY, **options}
        await lsp_client.initialize_session(
            lsp.InitializeParams(capabilities=caps, process_id=None, initialization_options=raw)
        )
        yield
        await lsp_client.shutdown_session()

    return fixture


client = _client_fixture({"contextTokens": 2048, "candidates": 3, "maxTokens": 12, "debounceMs": 0})
small = _client_fixture({"contextTokens": 4096, "candidates": 2, "maxTokens": 8, "debounceMs": 0})
slow_prefill = _client_fixture({"contextTokens": 4096, "prefillChunk": 8, "candidates": 1, "maxTokens": 4})
tiny_budget = _client_fixture({"cacheBudgetMB": 1, "contextTokens": 1024, "candidates": 1, "maxTokens": 2})
debounced = _client_fixture({"debounceMs": 300, "candidates": 1, "maxTokens": 2})
# The debounce holds cold requests long enough that requests sent together all wait, then start together.
together = _client_fixture({"contextTokens": 2048, "candidates": 3, "maxTokens": 12, "debounceMs": 200})
other_arch = _client_fixture({"contextTokens": 2048, "candidates": 3, "maxTokens": 8, "debounceMs": 0}, QWEN3_CMD)


def _file_of_tokens(n_chars: int) -> str:
    return SOURCE[:n_chars]


async def test_typing_reuses_most_prompt_tokens(client: LanguageClient):
    uri = "file:///typing.py"
    text = _file_of_tokens(5200)
    cursor = text.index("\n", 2600) + 1
    open_doc(client, uri, text)
    await stats(client, reset=True)
    typed = "    result = wrapper.w"[:20]
    for i, ch in enumerate(typed):
        pos = position_at(text, cursor)
        change(client, uri, i + 2, pos, pos, ch)
        text = text[:cursor] + ch + text[cursor:]
        cursor += 1
        await complete_texts(client, uri, position_at(text, cursor))
    st = await stats(client, recent=20)
    recent = st["recent"]
    assert len(recent) == 20 and all(r["status"] == "ok" for r in recent)
    assert min(r["prompt_tokens"] for r in recent) >= 1300, "the document should give a ~1,500-token prompt"
    reused = sum(r["reused_tokens"] for r in recent[1:])  # the first one pays for the cold cache
    prompt = sum(r["prompt_tokens"] for r in recent[1:])
    assert reused / prompt >= 0.9, f"reuse ratio {reused / prompt:.3f}"


def _random_edit(rng: random.Random, text: str) -> tuple[int, int, str]:
    pieces = ["x", " ", "\n", "foo(", ")", "日本語", "😀", "é", "    ", "return ", "# note\n", ""]
    start = rng.randrange(len(text) + 1)
    end = min(len(text), start + rng.choice([0, 0, 1, 3, 10]))
    return start, end, rng.choice(pieces)


async def test_reused_cache_equals_cold_over_random_edits(small: LanguageClient):
    """Greedy candidates from a reused cache equal those from a cold cache, after edits anywhere."""
    rng = random.Random(1234)
    uri = "file:///warm.py"
    text = _file_of_tokens(1200)
    open_doc(small, uri, text)
    version = 1
    for seq in range(200):
        for _ in range(rng.randint(1, 3)):
            start, end, new = _random_edit(rng, text)
            version += 1
            change(small, uri, version, position_at(text, start), position_at(text, end), new)
            text = text[:start] + new + text[end:]
        cursor = rng.randrange(len(text) + 1)
        warm = await complete_texts(small, uri, position_at(text, cursor))
        cold_uri = f"file:///cold-{seq}.py"
        open_doc(small, cold_uri, text)
        cold = await complete_texts(small, cold_uri, position_at(text, cursor))
        close_doc(small, cold_uri)
        w, c = (await stats(small, recent=2))["recent"]
        assert w["prompt_hash"] == c["prompt_hash"], "both documents should give the same prompt"
        assert c["reused_tokens"] == 0
        assert warm == cold, f"sequence {seq}: reused {warm!r} != cold {cold!r}"
    st = await stats(small, recent=0)
    assert st["summary"]["reused_tokens"] > 0


async def test_cancel_stops_prefill_and_keeps_the_prefilled_part(slow_prefill: LanguageClient):
    uri = "file:///long.py"
    text = SOURCE[:14000]
    open_doc(slow_prefill, uri, text)
    pos = position_at(text, len(text))

    # send_request_async is a coroutine: schedule it so the request goes out now.
    fut = asyncio.ensure_future(
        slow_prefill.protocol.send_request_async(
            lsp.TEXT_DOCUMENT_COMPLETION, completion_params(uri, pos), msg_id="long-1"
        )
    )
    # Cancel once the engine reports the prefill under way: part of the prompt cached, most of it not (~3,500
    # tokens in 8-token chunks: hundreds of chunks left to stop in).
    t0 = time.monotonic()
    while not ((q := (await stats(slow_prefill, recent=0))["queue"])["running"] == uri and q["runningTokens"]):
        assert not fut.done() and time.monotonic() - t0 < 30, "the request never started prefilling"
        await asyncio.sleep(0.01)  # the polling interval, not a guess at timing
    seen = q["runningTokens"]
    slow_prefill.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="long-1"))
    with pytest.raises(JsonRpcRequestCancelled):
        await fut
    # The worker is free again once the cancelled prefill stopped: a stats round-trip through it proves it.
    st = await stats(slow_prefill, recent=1)
    assert st["recent"][-1]["status"] == "cancelled"

    await complete_texts(slow_prefill, uri, pos)
    after = (await stats(slow_prefill, recent=1))["recent"][-1]
    assert after["status"] == "ok"
    # It starts from at least what was prefilled at the cancel, not all (a prefill that ran on to the end after
    # the cancel would have cached all of it).
    assert seen <= after["reused_tokens"] < after["prompt_tokens"] - 1, (seen, after)


async def test_newer_request_supersedes_older(client: LanguageClient):
    uri = "file:///super.py"
    text = _file_of_tokens(5200)
    open_doc(client, uri, text)
    first = asyncio.ensure_future(
        client.text_document_completion_async(completion_params(uri, position_at(text, 3000)))
    )
    await asyncio.sleep(0.05)  # the first is running (or debounced) when the second arrives
    second = asyncio.ensure_future(
        client.text_document_completion_async(completion_params(uri, position_at(text, 3001)))
    )
    r1, r2 = await asyncio.gather(first, second)
    assert not r1.items and r1.is_incomplete, "the superseded request must not return stale text"
    assert r2.items
    statuses = [r["status"] for r in (await stats(client, recent=2))["recent"]]
    assert "superseded" in statuses and statuses[-1] == "ok"


async def test_lru_keeps_cache_under_budget(tiny_budget: LanguageClient):
    text = _file_of_tokens(3000)
    for i in range(20):
        uri = f"file:///doc{i}.py"
        open_doc(tiny_budget, uri, text)
        await complete_texts(tiny_budget, uri, position_at(text, len(text) // 2))
    st = await stats(tiny_budget, recent=0)
    assert st["cacheBytesTotal"] <= st["cacheBudgetBytes"]
    assert st["evictions"] > 0
    assert 0 < len(st["documents"]) < 20


async def test_close_frees_the_document_cache(client: LanguageClient):
    uri = "file:///closing.py"
    text = _file_of_tokens(800)
    open_doc(client, uri, text)
    await complete_texts(client, uri, position_at(text, 400))
    assert uri in [d["uri"] for d in (await stats(client, recent=0))["documents"]]
    close_doc(client, uri)
    assert uri not in [d["uri"] for d in (await stats(client, recent=0))["documents"]]


async def test_debounce_skipped_when_the_cache_covers_nearly_all(debounced: LanguageClient):
    uri = "file:///deb.py"
    text = _file_of_tokens(2000)
    open_doc(debounced, uri, text)
    await complete_texts(debounced, uri, position_at(text, 300))  # the document's first request: not debounced
    await complete_texts(debounced, uri, position_at(text, 1000))  # many new tokens: debounced
    pos = position_at(text, 1000)
    change(debounced, uri, 2, pos, pos, "a")
    text = text[:1000] + "a" + text[1000:]
    await complete_texts(debounced, uri, position_at(text, 1001))  # one new token: no debounce
    first, far, near = (await stats(debounced, recent=3))["recent"]
    assert first["debounce_ms"] == 0
    assert far["debounce_ms"] >= 250
    assert near["debounce_ms"] == 0


async def test_candidates_are_distinct_single_lines(client: LanguageClient):
    uri = "file:///cands.py"
    text = _file_of_tokens(3000)
    open_doc(client, uri, text)
    texts = await complete_texts(client, uri, position_at(text, 1500))
    assert 1 <= len(texts) <= 3
    assert len(set(texts)) == len(texts)
    assert all("\n" not in t for t in texts)


async def test_documents_decoding_at_once_share_steps_and_answer_as_alone(together: LanguageClient):
    """Requests of three documents at once are decoded in shared steps, and each answers what it answers alone."""
    texts = [SOURCE[i * 2000 : i * 2000 + 3000] for i in range(3)]
    cursors = [position_at(t, 1500) for t in texts]
    for i, t in enumerate(texts):
        open_doc(together, f"file:///together{i}.py", t)
        open_doc(together, f"file:///alone{i}.py", t)
    at_once = await asyncio.gather(*[complete_texts(together, f"file:///together{i}.py", c)
                                     for i, c in enumerate(cursors)])
    shared = [r["shared_steps"] for r in (await stats(together, recent=3))["recent"]]
    alone = [await complete_texts(together, f"file:///alone{i}.py", c) for i, c in enumerate(cursors)]
    assert at_once == alone
    assert all(texts for texts in at_once)
    assert sum(shared) > 0, f"the three requests never shared a step: {shared}"


async def test_an_architecture_the_step_does_not_know_still_serves(other_arch: LanguageClient):
    """qwen3 runs through mlx-lm's own model call; answers from a reused cache still equal a cold cache's."""
    rng = random.Random(99)
    text = _file_of_tokens(1500)
    uri = "file:///qwen3.py"
    open_doc(other_arch, uri, text)
    for seq in range(6):
        start, end, new = _random_edit(rng, text)
        change(other_arch, uri, seq + 2, position_at(text, start), position_at(text, end), new)
        text = text[:start] + new + text[end:]
        cursor = rng.randrange(len(text) + 1)
        warm = await complete_texts(other_arch, uri, position_at(text, cursor))
        cold_uri = f"file:///qwen3-cold-{seq}.py"
        open_doc(other_arch, cold_uri, text)
        assert warm == await complete_texts(other_arch, cold_uri, position_at(text, cursor)), f"edit {seq}"
        assert warm, "the model answered nothing"


async def test_no_replacement_character_the_document_did_not_have(client: LanguageClient):
    """The random model emits byte tokens that form no character, and budgets end inside characters: the server
    sends the text before them, never U+FFFD (tests/test_tokenizer.py checks the cut itself)."""
    text = "# naïve café — ☕ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ünïcödé\n" + SOURCE[:1500]
    open_doc(client, "file:///fffd.py", text)
    sent: list[str] = []
    for offset in range(40, len(text), 23):
        sent += await complete_texts(client, "file:///fffd.py", position_at(text, offset))
    assert sent, "no candidates at all"
    assert not [t for t in sent if "\ufffd" in t]
