"""Name steering (issue 23): the token trie's masks, goldens per trigger kind proving the mask never removes the
right name where the analysis knows it, and exactness: steering that has nothing to say changes no output."""

from __future__ import annotations

import math
import re
from typing import Any

import mlx.core as mx
import numpy as np
import pytest
from conftest import TINY_MODEL

from laya_lsp.engine import CompletionRequest, Engine, EngineSettings, NameSet, NameSteer
from laya_lsp.engine.decoding.names import TokenTrie, name_trie, steering_processor
from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR, load_model
from laya_lsp.orchestrator.name_analysis import MASK, POLICY, policy_from_env, steering
from laya_lsp.syntax import SyntaxDocument
from laya_lsp.syntax.analysis import names_at, trigger_at

ALL_MASKED = {k: MASK for k in POLICY}


# -- the token trie ------------------------------------------------------------------------------------------
TEXTS = ["a", "ab", "abc", "b", "(", " a", " ab", "x", "ab(", "ab.c", "1", "\n", " ", "abx", "c"]


def _allowed(steer: NameSteer, gen: list[int]) -> set[int]:
    proc = steering_processor(TokenTrie(TEXTS, len(TEXTS)), TEXTS, steer)
    out = proc(mx.array([gen], dtype=mx.int32).reshape(1, len(gen)), mx.zeros((1, len(TEXTS))))
    return {i for i, v in enumerate(np.array(out[0]).tolist()) if v != -math.inf}


def test_before_a_name_tokens_must_spell_a_prefix_of_one_or_start_no_name() -> None:
    got = {TEXTS[i] for i in _allowed(NameSteer(NameSet(frozenset({"ab"}))), [])}
    # prefixes of "ab", "ab" followed by a non-name character, a blank before it, tokens that start no name
    assert got == {"a", "ab", "ab(", "ab.c", " a", " ab", "(", "1", "\n", " "}


def test_any_leading_blanks_lead_to_a_name() -> None:
    texts = [" ", "\t", " ab", "\tab", "  ab", " \tab", " x", "\tx"]
    steer = NameSteer(NameSet(frozenset({"ab"})))
    proc = steering_processor(TokenTrie(texts, len(texts)), texts, steer)
    out = np.array(proc(mx.zeros((1, 0), dtype=mx.int32), mx.zeros((1, len(texts))))[0]).tolist()
    assert [t for t, v in zip(texts, out) if v == -math.inf] == [" x", "\tx"]


def test_inside_a_name_and_after_it() -> None:
    steer = NameSteer(NameSet(frozenset({"ab", "abc"})))
    assert {TEXTS[i] for i in _allowed(steer, [0])} == {"b"}  # "a" is no whole name: only "b" goes on
    # "ab" is whole: what ends it is free again; "abc" may still go on
    after_ab = {TEXTS[i] for i in _allowed(steer, [1])}
    assert "c" in after_ab and "(" in after_ab and "x" not in after_ab and "1" not in after_ab


def test_a_row_whose_name_ended_is_free() -> None:
    steer = NameSteer(NameSet(frozenset({"ab"})))
    assert _allowed(steer, [1, 4]) == set(range(len(TEXTS)))  # "ab(" then anything


def test_members_after_a_receiver_the_model_writes() -> None:
    texts = ["self", ".", "width", "wid", "th", "zoo", "x"]
    steer = NameSteer(members={"self": NameSet(frozenset({"width"}))})
    proc = steering_processor(TokenTrie(texts, len(texts)), texts, steer)
    out = np.array(proc(mx.array([[0, 1]], dtype=mx.int32), mx.zeros((1, len(texts))))[0]).tolist()
    assert [texts[i] for i, v in enumerate(out) if v == -math.inf] == ["self", "th", "zoo", "x"]


def test_bias_lowers_instead_of_removing() -> None:
    steer = NameSteer(NameSet(frozenset({"ab"}), penalty=3.0))
    proc = steering_processor(TokenTrie(TEXTS, len(TEXTS)), TEXTS, steer)
    out = np.array(proc(mx.zeros((1, 0), dtype=mx.int32), mx.zeros((1, len(TEXTS))))[0]).tolist()
    assert out[TEXTS.index("x")] == -3.0 and out[TEXTS.index("ab")] == 0.0


def test_nothing_to_steer_returns_the_logits_themselves() -> None:
    steer = NameSteer(NameSet(frozenset({"ab"})), members={})
    proc = steering_processor(TokenTrie(TEXTS, len(TEXTS)), TEXTS, steer)
    logits = mx.zeros((1, len(TEXTS)))
    assert proc(mx.array([[TEXTS.index("ab(")]], dtype=mx.int32), logits) is logits


def test_name_trie_marks_whole_names() -> None:
    root = name_trie(frozenset({"ab", "abc"}))
    assert root.children["a"].children["b"].terminal and not root.children["a"].terminal


# -- goldens per trigger kind, with the embedded model's vocabulary ------------------------------------------
GOLDENS = [
    # (trigger kind, language, document with the cursor at █, the right continuation)
    ("after_dot", "python",
     ("class Shape:\n    def __init__(self, side):\n        self.side_length = side\n\n    def area(self):\n"
     "        return self.█\n"), "side_length ** 2"),
    ("after_dot", "python", "import os\n\nbase, name = '/', 'a'\npath = os.path.█\n", "join(base, name)"),
    ("after_dot", "python", "items = []\nitems.█\n", "append(3)"),
    ("arguments", "python", "def scale(value, factor=2):\n    return value * factor\n\nscale(3, █)\n", "factor=4"),
    ("arguments", "python", "total_count = 3\nprint(█)\n", "total_count)"),
    ("expression", "python", "def f(first_value):\n    return █\n", "first_value + 1"),
    ("expression", "python", "limit = 4\nwhile count < █\n", "limit:"),
    ("expression", "python", "flag = True\nif not █\n", "flag:"),
    ("statement", "python", "def f(x):\n    result = x\n    █\n", "return result"),
    ("statement", "python", 'def g(numbers):\n    """Doc."""\n█\n', "    for n in numbers:"),
    ("after_dot", "python", "class A:\n    def go(self):\n        self.spe█\n", "ed = 3"),
    ("after_dot", "javascript", "class Counter {\n  constructor() { this.count = 0; }\n  inc() { return this.█ }\n}\n",
     "count + 1;"),
    ("expression", "javascript", "const totalItems = 3;\nconst half = █\n", "totalItems / 2;"),
    ("arguments", "typescript", "function area(width: number) { return width; }\narea(█)\n", "width)"),
]


@pytest.fixture(scope="module")
def default_lm() -> Any:
    return load_model(str(DEFAULT_MODEL_DIR))


@pytest.mark.parametrize(
    "kind,language,marked,right", GOLDENS, ids=[f"{g[0]}-{g[1]}-{i}" for i, g in enumerate(GOLDENS)]
)
def test_the_mask_keeps_the_right_name(default_lm: Any, kind: str, language: str, marked: str, right: str) -> None:
    offset = marked.index("█")
    text = marked.replace("█", "")
    doc = SyntaxDocument(text, language)
    site = names_at(doc, offset)
    assert site.trigger == kind
    assert trigger_at(doc, offset)[0] == kind
    steer = steering(site, ALL_MASKED)
    lm = default_lm
    proc = steering_processor(lm.token_trie, lm.token_texts, steer)
    ids = lm.tokenizer.encode(right)
    vocab = len(lm.token_texts)
    for n, token in enumerate(ids):
        out = proc(mx.array([ids[:n]], dtype=mx.int32).reshape(1, n), mx.zeros((1, vocab)))
        assert out[0, token].item() != -math.inf, f"{lm.token_texts[token]!r} after {right[:n]!r} was masked"
    if "self.spe" in marked:  # a new attribute: no name starts so, so nothing is constrained
        assert site.names is None and steer.first is None
    else:
        assert site.names, "the analysis saw nothing here"
        wrong = lm.tokenizer.encode("zq_no_such_name")
        masked = [proc(mx.array([wrong[:n]], dtype=mx.int32).reshape(1, n), mx.zeros((1, vocab)))[0, t].item()
                  for n, t in enumerate(wrong)]
        assert -math.inf in masked, "a name that exists nowhere went through"



def test_unresolved_receivers_are_not_constrained() -> None:
    text = "import not_installed_anywhere\nnot_installed_anywhere.\n"
    site = names_at(SyntaxDocument(text, "python"), len(text) - 1)
    assert site.trigger == "after_dot" and site.names is None
    assert steering(site, ALL_MASKED).first is None


def test_policy_overrides_from_the_environment() -> None:
    policy = policy_from_env("exact:statement=bias:2,members=mask,written:after_dot=off")
    assert policy["exact:statement"] == 2.0 and policy["members"] == MASK and policy["written:after_dot"] is None
    with pytest.raises(ValueError, match="unknown trigger"):
        policy_from_env("nowhere=mask")


# -- exactness: steering with nothing to say changes nothing -------------------------------------------------
@pytest.fixture(scope="module")
def engine() -> Any:
    eng = Engine(EngineSettings(candidates=3, max_tokens=12, debounce_ms=0))
    eng.load(str(TINY_MODEL))
    yield eng
    eng.shutdown()


def _complete(eng: Engine, doc_id: str, names: Any) -> list[tuple[str, float]]:
    text = "def add(a, b):\n    return a + b\n\nx = add(1, 2)\ny = "
    req = CompletionRequest(doc_id, text, len(text), candidates=3, max_tokens=12, debounce=False, names=names)
    return [(c.text, round(c.logprob, 4)) for c in eng.complete(req).future.result(timeout=120).candidates]


def test_analysis_off_or_blind_leaves_output_unchanged(engine: Engine) -> None:
    plain = _complete(engine, "file:///a.py", None)
    assert plain
    assert _complete(engine, "file:///b.py", lambda: None) == plain  # the analysis could not see
    assert _complete(engine, "file:///c.py", lambda: NameSteer()) == plain  # it saw no trigger


def test_a_set_holding_every_name_written_changes_no_text(engine: Engine) -> None:
    plain = _complete(engine, "file:///d.py", None)
    written = frozenset(w for text, _ in plain for w in re.findall(r"[A-Za-z_]\w*", text))
    steered = _complete(engine, "file:///e.py", lambda: NameSteer(NameSet(written | {"zz"})))
    # the same texts; their order may change (a step's probabilities are renormalised over what the mask keeps)
    assert sorted(t for t, _ in steered) == sorted(t for t, _ in plain)


def test_the_token_trie_built_in_pieces_equals_the_one_built_at_once():
    texts = [f"{' ' * (i % 3)}{chr(97 + i % 26)}{i}" if i % 7 else "" for i in range(2 * TokenTrie.PIECE + 5)]
    texts += ["\n", "(", " =", "_x"]
    whole = TokenTrie(texts, len(texts))
    building = TokenTrie.in_pieces(texts, len(texts))
    pieces = 0
    try:
        while True:
            next(building)
            pieces += 1
    except StopIteration as built:
        pieced = built.value
    assert pieces == 3  # a request waits for one piece at most
    assert (pieced.free_before == whole.free_before).all() and (pieced.free_after == whole.free_after).all()
    assert sorted(pieced.subtree(pieced.root)) == sorted(whole.subtree(whole.root))
    names = name_trie(frozenset({"a1", "b27", "_x"}))
    assert (pieced.allowed(names, True) == whole.allowed(names, True)).all()
