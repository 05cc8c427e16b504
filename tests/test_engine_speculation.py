"""Speculative decoding (engine level): drafts verified in the step change no output.

Greedy candidates decoded with drafts (right, partly right, wrong, running past the stop rule; per branch when
k > 1; with a history-dependent logits processor) equal the cold, one-token-at-a-time reference of
test_engine_exact over random edit sequences, and the analysis' name steering answers alike with drafts on
and off; accepted drafts save steps; prompt lookup proposes what followed a match; the policy stops drafting a
source the model keeps disagreeing with.
"""

from __future__ import annotations

import math
import random
from array import array
from typing import Any

import mlx.core as mx
import pytest
from conftest import TINY_MODEL
from hypothesis import given, settings
from hypothesis import strategies as st
from mlx_lm.models.cache import make_prompt_cache
from test_engine_exact import _edit, _stop, _vocab, reference

from laya_lsp.engine import CompletionRequest, Engine, EngineSettings, NameSet, NameSteer
from laya_lsp.engine.caches.prompt_caches import DocumentCache
from laya_lsp.engine.decoding.adapter import decode_model
from laya_lsp.engine.decoding.decode import CancelToken, DecodeSettings, Draft, complete_steps, run_alone
from laya_lsp.engine.decoding.draft import DraftPolicy, PromptLookup, find_after
from laya_lsp.engine.loading.model import load_model


@pytest.fixture(scope="module")
def lm() -> Any:
    return load_model(str(TINY_MODEL))


class NoisyOracle:
    """Drafts from the right answer (the reference's branches), spoilt at random: cut short, a token changed,
    run past the branch's end, or no draft at all."""

    def __init__(self, answers: list[list[int]], rng: random.Random, vocab: int) -> None:
        self.answers, self.rng, self.vocab = answers, rng, vocab
        self.judgements: list[tuple[int, int]] = []

    def propose(self, ids: list[int], limit: int) -> Draft | None:
        rng = self.rng
        truth = next((a[len(ids):] for a in self.answers if a[: len(ids)] == ids), [])
        if rng.random() < 0.15:
            return None
        draft = truth + [rng.randrange(5, self.vocab) for _ in range(rng.randint(0, 4))]  # past the end
        if draft and rng.random() < 0.4:
            at = rng.randrange(len(draft))
            draft[at] = rng.randrange(5, self.vocab)
        return Draft(draft[: rng.randint(0, limit)], "oracle")

    def judged(self, draft: Draft, accepted: int, tried: int) -> None:
        assert 0 <= accepted <= tried <= len(draft.tokens)
        self.judgements.append((accepted, tried))


def no_repeat(history: mx.array, logits: mx.array) -> mx.array:
    """A processor that depends on each row's history: never the same token twice in a row."""
    if history.shape[1] == 0:
        return logits
    banned = mx.arange(logits.shape[-1])[None] == history[:, -1:]
    return mx.where(banned, -mx.inf, logits)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), with_processor=st.booleans())
def test_drafts_change_no_output_over_random_edits(lm: Any, seed: int, with_processor: bool):
    dm = decode_model(lm.model)
    assert dm.drafts, "the tiny llama model should take the compiled step, which verifies drafts"
    rng = random.Random(seed)
    doc = DocumentCache(make_prompt_cache(lm.model))
    ids = [rng.randrange(5, _vocab(lm)) for _ in range(120)]
    for seq in range(4):
        ids = _edit(rng, ids, _vocab(lm))
        k = rng.choice([1, 1, 2, 3, 5])
        processors = [no_repeat] if with_processor else []
        plain = DecodeSettings(k=k, max_tokens=rng.randint(2, 12), stop=_stop(lm, rng.randint(1, 2)),
                               logits_processors=processors)
        want = reference(lm, ids, plain)
        oracle = NoisyOracle(want, rng, _vocab(lm))
        s = DecodeSettings(plain.k, plain.max_tokens, plain.stop, logits_processors=processors, draft=oracle)
        got = run_alone(dm, complete_steps(dm, doc, ids, s, CancelToken(), chunk=32))
        assert [b.ids for b in got.branches] == want, f"edit {seq} (k={k}, {len(ids)} tokens, seed {seed})"
        assert doc.ids == ids and doc.layers[0].offset == len(ids), "drafts never stay in the document's cache"
        assert s.progress.accepted == sum(a for a, _ in oracle.judgements)


def test_accepted_drafts_save_steps_and_the_stop_rule_ends_inside_a_draft(lm: Any):
    dm = decode_model(lm.model)
    rng = random.Random(3)
    plain = DecodeSettings(k=1, max_tokens=40, stop=_stop(lm, 1))
    for _ in range(50):  # a prompt whose answer the stop rule ends, a few tokens long
        ids = [rng.randrange(5, _vocab(lm)) for _ in range(200)]
        want = reference(lm, ids, plain)
        if 2 < len(want[0]) < plain.max_tokens:
            break

    class Exact:  # the right answer and then more: the stop rule must end the branch where it ends alone
        def propose(self, got: list[int], limit: int) -> Draft:
            return Draft((want[0][len(got):] + [7, 8, 9, 10])[:limit], "exact")

        def judged(self, draft: Draft, accepted: int, tried: int) -> None:
            pass

    s = DecodeSettings(1, plain.max_tokens, plain.stop, draft=Exact())
    doc = DocumentCache(make_prompt_cache(lm.model))
    got = run_alone(dm, complete_steps(dm, doc, ids, s, CancelToken(), chunk=64))
    assert [b.ids for b in got.branches] == want
    assert 2 < len(want[0]) < plain.max_tokens, "the case needs an answer the stop rule ends"
    assert s.progress.steps == 0, "the whole answer is verified in the prompt's own step: no step after it"
    assert s.progress.accepted == len(want[0])


def test_find_after_matches_whole_tokens_only():
    # 0x01000000, 0x02000000, 0: their bytes hold those of [1, 2] three bytes in, across token boundaries
    corpus = [1, 2, 7, 1, 2, 0x01000000, 0x02000000, 0, 5]
    raw = array("i", corpus).tobytes()
    assert find_after(raw, [1, 2], len(corpus) - 1) == 5  # the latest whole-token match, not the straddling one
    assert find_after(raw, [1, 2], 4) == 2  # one that ends by token 4
    assert find_after(raw, [6], len(corpus) - 1) == -1
    assert find_after(raw, [5], len(corpus) - 1) == -1  # nothing follows the last token


def test_prompt_lookup_proposes_what_followed_and_the_policy_learns():
    policy = DraftPolicy(max_draft=4)
    prompt = [50, 10, 11, 12, 13, 14, 60, 61, 10, 11]
    look = PromptLookup(prompt, policy, [("answer", PromptLookup.after(prompt, [99, 98, 97]))])
    d = look.propose([], 8)
    assert d is not None and d.tokens[:1] == [99] and d.source == "answer:3"  # the answer follows the prompt
    d = look.propose([12], 8)
    assert d is not None and d.tokens == [13, 14, 60, 61][: len(d.tokens)] and d.source == "doc:3"
    for _ in range(40):
        policy.judged("doc:3", 0, 1)  # the model never agrees with this source
    lengths = [policy.length("doc:3", 4)[0] for _ in range(32)]
    assert lengths.count(0) >= 30 and 1 in lengths, "rarely drafted, still tried now and then"
    for _ in range(40):
        policy.judged("answer:3", 4, 4)
    assert policy.length("answer:3", 4)[0] == 4


def test_engine_answers_the_same_with_and_without_speculation():
    """Through the engine facade: a document typed into key by key answers the same with drafts on (its last
    answer, the prompt and the other buffer as sources) as with them off; drafts were accepted."""
    text = ("def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n"
            "    return 2 * (width + height)\n\n\ndef volume(width, height, depth):\n    return ")
    answers: dict[int, list[list[str]]] = {}
    for draft_tokens in (0, 8):
        engine = Engine(EngineSettings(candidates=2, max_tokens=16, debounce_ms=0, draft_tokens=draft_tokens))
        engine.load(str(TINY_MODEL))
        try:
            engine.complete(CompletionRequest("other", text[:60], 60)).future.result(60)
            out, accepted, steps = [], 0, 0
            for end in range(len(text) - 12, len(text) + 1):
                res = engine.complete(CompletionRequest("doc", text[:end], end, max_lines=3)).future.result(60)
                out.append([c.text for c in res.candidates])
                accepted, steps = accepted + res.timings.accepted_tokens, steps + res.timings.decode_steps
            answers[draft_tokens] = out
        finally:
            engine.shutdown()
    assert answers[8] == answers[0]
    assert accepted > 0 and steps > 0


@pytest.mark.parametrize("penalty", [math.inf, 4.0])
def test_name_steering_answers_the_same_with_and_without_speculation(penalty: float):
    """The analysis' steering processor (engine/decoding/names.py) is applied to every verified position with
    that position's own history: steered answers are the same with drafts on and off (mask and bias)."""
    text = "def add(a, b):\n    return a + b\n\n\nx = add(1, 2)\ny = add(x, 3)\nz = "
    steer = NameSteer(scope=NameSet(frozenset({"add", "x", "y", "zeta"}), penalty))
    answers: dict[int, list[list[tuple[str, float]]]] = {}
    for draft_tokens in (0, 8):
        engine = Engine(EngineSettings(candidates=2, max_tokens=16, debounce_ms=0, draft_tokens=draft_tokens))
        engine.load(str(TINY_MODEL))
        try:
            out, drafted = [], 0
            for end in range(len(text) - 8, len(text) + 1):
                req = CompletionRequest("doc", text[:end], end, max_lines=2, names=lambda: steer)
                res = engine.complete(req).future.result(60)
                out.append([(c.text, round(c.logprob, 3)) for c in res.candidates])
                drafted += res.timings.draft_tokens
                assert res.extra.get("steered"), "the processor steered this request"
            answers[draft_tokens] = out
        finally:
            engine.shutdown()
    assert answers[8] == answers[0]
    assert drafted > 0, "drafts were verified under the processor"
