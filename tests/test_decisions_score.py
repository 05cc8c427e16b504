"""engine/decoding/score.py on its own: batched option scores equal one-at-a-time full forward passes; the
document cache is reused and left covering the prompt only; constrained decoding obeys its processor; prompts
asked without a document are kept (prompt_caches.ContextCache: bounded, reused by prefix, scoring as a cold
cache does)."""

from __future__ import annotations

import mlx.core as mx
import pytest
from conftest import TINY_MODEL
from mlx_lm.models.cache import make_prompt_cache

from laya_lsp.engine.caches.prompt_caches import CacheStore, ContextCache, DocumentCache
from laya_lsp.engine.decoding.score import constrained_decode, score_options
from laya_lsp.engine.loading.model import load_model


@pytest.fixture(scope="module")
def lm():
    return load_model(str(TINY_MODEL))


def _reference(lm, prompt: list[int], option: list[int]) -> float:
    ids = prompt + option
    logits = lm.model(mx.array([ids]))[0]
    lp = logits - mx.logsumexp(logits, axis=-1, keepdims=True)
    return sum(float(lp[len(prompt) - 1 + i, t].item()) for i, t in enumerate(option))


def test_batched_scores_equal_single_forward_passes(lm):
    enc = lm.builder.encode
    prompt = enc("def add(a, b):\n    return a")
    options = [enc(" + b"), enc(" * b - 1 if a else b"), enc("+b\n"), enc(" ")]
    doc = DocumentCache(make_prompt_cache(lm.model))
    res = score_options(lm, doc, prompt, options, chunk=4)
    for opt, got in zip(options, res.scores):
        assert got.tokens == len(opt)
        assert got.logprob == pytest.approx(_reference(lm, prompt, opt), abs=1e-3)
    assert doc.ids == prompt, "the document cache covers the prompt, never the options"
    again = score_options(lm, doc, prompt, options)
    assert again.reused_tokens == len(prompt) - 1
    assert [s.logprob for s in again.scores] == pytest.approx([s.logprob for s in res.scores], abs=1e-4)


def test_many_options_span_several_batches(lm):
    enc = lm.builder.encode
    prompt = enc("x = ")
    options = [enc(str(i) * (1 + i % 3)) for i in range(40)]
    res = score_options(lm, None, prompt, options)
    for opt, got in zip(options[::7], res.scores[::7]):
        assert got.logprob == pytest.approx(_reference(lm, prompt, opt), abs=1e-3)


def test_constrained_decode_only_emits_allowed_tokens(lm):
    allowed = lm.builder.encode("abc")
    vocab = lm.model(mx.array([[0]])).shape[-1]
    mask = mx.array([i in allowed for i in range(vocab)])

    def processor(_tokens, logits):
        return mx.where(mask, logits, -mx.inf)

    res = constrained_decode(lm, None, lm.builder.encode("hello"), processor, lambda t: False, 12)
    assert len(res.ids) == 12 and set(res.ids) <= set(allowed) and not res.stopped


def test_calibration_fit_recovers_a_known_temperature():
    """Answers drawn from softmax(s / 2) for fixed scores: the fitted temperature comes out near 2."""
    import random

    from laya_lsp.calibrate import ece, fit, nll
    from laya_lsp.decisions.decide import softmax

    rng = random.Random(7)
    rows = []
    for _ in range(800):
        s = [rng.uniform(-8, 0) for _ in range(3)]
        p = softmax([x / 2.0 for x in s])
        rows.append((s, rng.choices(range(3), p)[0]))
    t = fit(rows)
    assert 1.5 < t < 2.6
    assert nll(rows, t) <= nll(rows, 1.0) and ece(rows, t) < 0.08


def test_a_diverging_prompt_leaves_the_document_cache_as_it_was(lm):
    enc = lm.builder.encode
    doc = DocumentCache(make_prompt_cache(lm.model))
    completion_prompt = enc("import os\n\ndef main():\n    path = os.getcwd()\n    print(path)\n")
    score_options(lm, doc, completion_prompt, [enc("x")])
    held = list(doc.ids)
    keys = [mx.array(c.keys_and_values()[0]) for c in doc.layers]
    decide_prompt = enc("import os\n\ndef main():\n    return")  # shares the first line or so, then diverges
    options = [enc(" 0"), enc(" os.sep")]
    got = score_options(lm, doc, decide_prompt, options)
    assert 0 < got.reused_tokens <= len(decide_prompt) - 1
    assert doc.ids == held and all(mx.array_equal(k, c.keys_and_values()[0]) for k, c in zip(keys, doc.layers))
    cold = score_options(lm, None, decide_prompt, options)
    assert [s.logprob for s in got.scores] == pytest.approx([s.logprob for s in cold.scores], abs=1e-3)


def test_every_adapter_scores_continuations_alike(lm):
    """The compiled step's branches over the cached prompt (the prompt's last tokens in the same step) and the
    plain adapter's padded batch in cache copies give the same logits for the prompt's end and every option
    token."""
    from laya_lsp.engine.decoding.adapter import PlainModel, StepModel
    from laya_lsp.engine.decoding.decode import CancelToken, prefill_chunked

    enc = lm.builder.encode
    prompt = enc("def add(a, b):\n    return a")
    inputs = [enc(" + b"), [], enc(" * b - 1 if a else b"), enc("+")]
    doc = DocumentCache(make_prompt_cache(lm.model))
    prefill_chunked(lm.model, doc, prompt[:-3], 8, CancelToken())
    tail = prompt[len(doc.ids):]
    step_last, step = StepModel(lm.model).continuations(doc, tail, inputs)
    assert doc.ids == prompt and doc.layers[0].offset == len(prompt)
    doc.trim_to(len(prompt) - len(tail))
    plain_last, plain = PlainModel(lm.model).continuations(doc, tail, inputs)
    assert doc.ids == prompt and doc.layers[0].offset == len(prompt), "the tail stays in the cache, nothing else"
    assert step_last is not None and plain_last is not None and mx.allclose(step_last, plain_last, atol=1e-3).item()
    for x, a, b in zip(inputs, step, plain):
        if x:
            assert a.shape == b.shape == (len(x), a.shape[-1])
            assert mx.allclose(a, b, atol=1e-3).item()


def test_kept_contexts_answer_as_a_cold_cache_does(lm):
    """A prompt asked again, one extending it and one it extends reuse the kept KV state (all but the last
    token, whose logits start the scoring), and score as a scratch cache does."""
    enc = lm.builder.encode
    base = enc("A window manager. The user said: put the browser on the left half of the screen.\nAction:")
    options = [enc(" tile left"), enc(" tile right"), enc(" maximize the window"), enc(" close it")]
    contexts = ContextCache(1 << 30)
    cases = [(base, 0), (base, len(base) - 1), (base + enc(" now"), len(base)), (base[:12], 11)]
    for prompt, reused in cases:
        kept = score_options(lm, None, prompt, options, contexts=contexts)
        cold = score_options(lm, None, prompt, options)
        assert (kept.reused_tokens, cold.reused_tokens) == (reused, 0), prompt
        assert [s.logprob for s in kept.scores] == pytest.approx([s.logprob for s in cold.scores], abs=1e-4)
    # base + " now" replaced base (it holds it too); the 12-token prefix is its own entry (mlx-lm keeps both).
    assert len(contexts) == 2


def test_constrained_decoding_reuses_a_kept_context(lm):
    prompt = lm.builder.encode("def add(a, b):\n    return")
    contexts = ContextCache(1 << 30)

    def run(ctx: ContextCache | None):
        return constrained_decode(lm, None, prompt, lambda _t, logits: logits, lambda t: False, 6, contexts=ctx)

    first, again, cold = run(contexts), run(contexts), run(None)
    assert (first.reused_tokens, again.reused_tokens) == (0, len(prompt) - 1)
    assert first.ids == again.ids == cold.ids


def test_kept_contexts_are_bounded_in_count_and_bytes_and_give_way_to_documents(lm):
    enc = lm.builder.encode
    options = [enc(" yes"), enc(" no")]
    contexts = ContextCache(1 << 30, max_size=3)
    for i in range(5):
        score_options(lm, None, enc(f"question {i}: is it so?"), options, contexts=contexts)
    assert len(contexts) == 3
    store = CacheStore(lm.model, 1 << 30)
    for i in range(4):
        score_options(lm, None, enc(f"question {i}: is it so?"), options, contexts=store.contexts)
    one = store.contexts.nbytes // 4
    doc = store.get("a.py")
    score_options(lm, doc, enc("x = 1\n" * 40), options)
    store.budget_bytes = doc.nbytes + 2 * one
    store.enforce_budget(keep="a.py")
    assert len(store.contexts) == 2 and store.total_bytes() <= store.budget_bytes
    assert "a.py" in store, "the document stays: contexts give way first"
