"""Exactness of the decode step (engine level): greedy candidates from a reused, compiled, branched cache equal a
cold, uncompiled, single-branch run of mlx-lm's own model call, over random edit sequences; a cancel landing
mid-step changes no later result; documents decoding in one batched step answer as they do alone."""

from __future__ import annotations

import random
import threading
from typing import Any

import mlx.core as mx
import pytest
from conftest import TINY_MODEL
from mlx_lm.models.cache import make_prompt_cache

from laya_lsp.engine import CompletionRequest, Engine, EngineSettings
from laya_lsp.engine.caches.prompt_caches import DocumentCache
from laya_lsp.engine.decoding.adapter import DecodeModel, PlainModel, StepModel, decode_model
from laya_lsp.engine.decoding.decode import (
    Branch,
    Cancelled,
    CancelToken,
    DecodeSettings,
    complete_steps,
    run_alone,
)
from laya_lsp.engine.decoding.stop import LineStop
from laya_lsp.engine.loading.model import load_model


@pytest.fixture(scope="module")
def lm() -> Any:
    return load_model(str(TINY_MODEL))


def _stop(lm: Any, max_lines: int = 1) -> LineStop:
    return LineStop(max_lines, frozenset(lm.stop_ids), lm.newline_ids, lm.blank_ids)


def reference(lm: Any, prompt: list[int], s: DecodeSettings) -> list[list[int]]:
    """Each branch decoded on its own from a cold cache with mlx-lm's model call, one token at a time (the
    logits processors applied to each step with the branch's tokens so far)."""
    model = lm.model

    def process(ids: list[int], logits: mx.array) -> mx.array:
        rows = logits[None]
        for p in s.logits_processors:
            rows = p(mx.array([ids], dtype=mx.int32).reshape(1, len(ids)), rows)
        return rows[0]

    logits = process([], model(mx.array(prompt)[None], cache=make_prompt_cache(model))[0, -1])
    lp = logits - mx.logsumexp(logits)
    firsts = mx.argsort(-lp)[: s.k].tolist()
    out = []
    for first in firsts:
        cache = make_prompt_cache(model)
        model(mx.array(prompt)[None], cache=cache)
        branch, token = Branch([]), first
        branch.feed(token, 0.0, s.stop)
        for _ in range(1, s.max_tokens):
            if branch.done:
                break
            step = process(branch.ids, model(mx.array([[token]]), cache=cache)[0, -1])
            token = int(mx.argmax(step).item())
            branch.feed(token, 0.0, s.stop)
        out.append(branch.ids)
    return out


def _edit(rng: random.Random, ids: list[int], vocab: int) -> list[int]:
    """Mostly typing at the end (a few tokens in or out), sometimes an edit anywhere or a paste."""
    kind = rng.random()
    if kind < 0.5:
        return ids + [rng.randrange(5, vocab) for _ in range(rng.randint(1, 3))]
    if kind < 0.65:
        return ids[: max(1, len(ids) - rng.randint(1, 3))]
    if kind < 0.85:
        at = rng.randrange(len(ids))
        return ids[:at] + [rng.randrange(5, vocab)] + ids[at + 1 :]
    return ids + [rng.randrange(5, vocab) for _ in range(rng.randint(17, 60))]  # longer than a step's tail


def _vocab(lm: Any) -> int:
    return int(lm.config["vocab_size"])


def _adapter(lm: Any, name: str) -> DecodeModel:
    if name == "plain":
        return PlainModel(lm.model)
    if name == "compiled":
        return decode_model(lm.model)
    # the GPU defaults: fixed-size caches, prompt chunks through the step, not mx.compiled
    fixed = StepModel(lm.model, compiled=name != "fixed-eager")
    fixed.fix_shapes(512, 32)
    return fixed


@pytest.mark.parametrize("adapter", ["compiled", "plain", "fixed", "fixed-eager"])
def test_reused_branched_cache_equals_cold_reference_over_random_edits(lm: Any, adapter: str):
    dm = _adapter(lm, adapter)
    assert isinstance(decode_model(lm.model), StepModel), "the tiny llama model should take the compiled step"
    rng = random.Random(16)
    doc = DocumentCache(make_prompt_cache(lm.model))
    ids = [rng.randrange(5, _vocab(lm)) for _ in range(300)]
    for seq in range(40):
        ids = _edit(rng, ids, _vocab(lm))
        s = DecodeSettings(k=rng.choice([1, 2, 3, 5]), max_tokens=rng.randint(2, 8), stop=_stop(lm, rng.randint(1, 2)))
        got = run_alone(dm, complete_steps(dm, doc, ids, s, CancelToken(), chunk=32))
        assert got.reused + got.computed == len(ids)
        assert [b.ids for b in got.branches] == reference(lm, ids, s), f"edit {seq} (k={s.k}, {len(ids)} tokens)"
        assert doc.ids == ids and doc.layers[0].offset == len(ids), "the cache covers the prompt, never the answer"


class CancelAfter:
    """A driver that cancels the request's token after `n` pieces of work were computed (mid-decode)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.token = CancelToken()

    def run(self, dm: DecodeModel, steps: Any) -> None:
        done = 0
        work = next(steps)
        while True:
            result = None if work is None else dm.forward([work])[0]
            done += 1
            if done == self.n:
                self.token.cancel()
            work = steps.send(result)


def test_cancel_mid_step_changes_no_later_result(lm: Any):
    dm = decode_model(lm.model)
    rng = random.Random(7)
    doc = DocumentCache(make_prompt_cache(lm.model))
    ids = [rng.randrange(5, _vocab(lm)) for _ in range(200)]
    s = DecodeSettings(k=3, max_tokens=12)  # no stop rule: every branch decodes all 12 tokens
    for n in range(1, 10):
        ids = _edit(rng, ids, _vocab(lm))
        cancel = CancelAfter(n)
        with pytest.raises(Cancelled):
            cancel.run(dm, complete_steps(dm, doc, ids, s, cancel.token, chunk=32))
        again = run_alone(dm, complete_steps(dm, doc, ids, s, CancelToken(), chunk=32))
        assert [b.ids for b in again.branches] == reference(lm, ids, s), f"after a cancel at work item {n}"


@pytest.mark.parametrize("fixed", [False, True])
def test_documents_in_one_batched_step_answer_as_alone(lm: Any, fixed: bool):
    """Requests of four documents start together (the worker is held while they queue), share steps, and
    answer exactly what each answers alone. With fixed shapes no step is traced after warm-up: combinations of
    documents that warm-up did not trace run one document at a time."""
    engine = Engine(EngineSettings(candidates=3, max_tokens=8, debounce_ms=0, max_in_flight=4, fixed_shapes=fixed))
    engine.load(str(TINY_MODEL))
    warm = engine.step_traces()
    assert warm["fixed"] == fixed
    try:
        texts = [f"def f{i}(x):\n    return x * {i} + " + "y" * i for i in range(4)]
        alone = [engine.complete(CompletionRequest(f"alone{i}", t, len(t))).future.result(60) for i, t in
                 enumerate(texts)]
        gate = threading.Event()
        engine.scheduler.call(gate.wait)
        jobs = [engine.complete(CompletionRequest(f"doc{i}", t, len(t))) for i, t in enumerate(texts)]
        gate.set()
        together = [j.future.result(60) for j in jobs]
        traced = engine.step_traces()
    finally:
        engine.shutdown()
    if fixed:
        assert traced["traces"] == warm["traces"], traced["last"]
    assert [[c.text for c in r.candidates] for r in together] == [[c.text for c in r.candidates] for r in alone]
    assert all(r.timings.shared_steps > 0 for r in together), [r.timings.shared_steps for r in together]
    assert all(r.timings.shared_steps == 0 for r in alone)
