"""Incremental tokenisation of the prefix window equals full tokenisation, for every pipeline family we cut.

Each tokenizer below is a real `tokenizers` pipeline of one family (the shipped model's newline split, Qwen2.5's
regex, trained here and as Qwen's own NFC tokenizer.json, GPT-2's byte-level regex with and without digit
splitting, a SentencePiece-style one that gets no cut rule), driven through random edit sequences over multi-byte
text, CRLF and edits above the window.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TINY_MODEL
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers
from tokenizers import Tokenizer as RustTokenizer

from benchmarks.checkpoints import tokenizer_dir
from laya_lsp.engine.caches.context_window import ContextWindow
from laya_lsp.engine.loading.cuts import QWEN_PATTERNS
from laya_lsp.engine.loading.fim import PromptBuilder, detect_fim
from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR
from laya_lsp.engine.loading.tokenizer import Tokenizer, load_tokenizer

# Code, blank lines, CRLF, lone CR, tabs, trailing blanks, CJK, emoji (with ZWJ), combining marks, Unicode spaces.
PIECES = ["def ", "f(x)", ":", "\n", "\n\n", "\r\n", "\r", "    ", "\t", "  \n", "return ", "x", "'s", "123",
          "日本語", "😀", "👩\u200d💻", "e\u0301", "\u00a0", "\u3000", "\u2028", "# café", "\n    ", "\n\t",
          " ", "=", "\"\"\"", "{", "}", ".", "\x0b", "\x1c"]
TRAINING = ["".join(PIECES) * 3, (DEFAULT_MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")[:20_000]]


def _trained(pre: pre_tokenizers.PreTokenizer | None, normalizer: normalizers.Normalizer | None = None,
             byte_level: bool = True) -> Tokenizer:
    tok = RustTokenizer(models.BPE(byte_fallback=not byte_level))
    tok.normalizer = normalizer
    tok.pre_tokenizer = pre
    tok.decoder = decoders.ByteLevel() if byte_level else decoders.Metaspace()
    alphabet = pre_tokenizers.ByteLevel.alphabet() if byte_level else []
    trainer = trainers.BpeTrainer(vocab_size=500, special_tokens=["<|endoftext|>", "<|fim_prefix|>",
                                  "<|fim_suffix|>", "<|fim_middle|>"], initial_alphabet=alphabet, show_progress=False)
    tok.train_from_iterator(TRAINING, trainer)
    return Tokenizer(tok, {"eos_token": "<|endoftext|>"})


def _pipelines() -> dict[str, Tokenizer]:
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    return {
        "shipped (newline split)": load_tokenizer(DEFAULT_MODEL_DIR),
        "newline split + NFC": _trained(pre_tokenizers.Sequence([
            pre_tokenizers.Split("\n", behavior="merged_with_previous"), byte_level]), normalizers.NFC()),
        "qwen2.5": _trained(pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN_PATTERNS[0]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])),
        "qwen2.5 (its real tokenizer.json: NFC)": load_tokenizer(tokenizer_dir()),
        "gpt-2 (tiny model)": load_tokenizer(Path(TINY_MODEL)),
        "starcoder (digits + gpt-2)": _trained(pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True), byte_level])),
        "sentencepiece-style": _trained(None, normalizers.Sequence([normalizers.Prepend("▁"),
                                        normalizers.Replace(" ", "▁")]), byte_level=False),
    }


PIPELINES = _pipelines()
EXPECTED_RULES = {
    "shipped (newline split)": "every line start",
    "newline split + NFC": "every line start",
    "qwen2.5": "Qwen",
    "qwen2.5 (its real tokenizer.json: NFC)": "Qwen",
    "gpt-2 (tiny model)": "GPT-2",
    "starcoder (digits + gpt-2)": "GPT-2",
    "sentencepiece-style": None,
}


def _builder(tok: Tokenizer) -> PromptBuilder:
    return PromptBuilder(tok, detect_fim(tok))


@pytest.mark.parametrize("name", list(PIPELINES))
def test_each_pipeline_gets_the_rule_proven_for_it(name: str):
    rule = PIPELINES[name].cut_rule
    expected = EXPECTED_RULES[name]
    if expected is None:
        assert rule is None, "a pipeline that merges across lines must be encoded whole"
    else:
        assert rule is not None and expected in rule.name


texts = st.lists(st.sampled_from(PIECES), min_size=0, max_size=60).map("".join)
edits = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), texts.map(lambda t: t[:40])), min_size=1,
                 max_size=25)


@pytest.mark.parametrize("name", list(PIPELINES))
@settings(max_examples=40, deadline=None)
@given(start=texts, steps=edits)
def test_incremental_equals_full_over_random_edits(name: str, start: str, steps: list[tuple[float, int, str]]):
    builder = _builder(PIPELINES[name])
    window = ContextWindow()
    text = start
    assert window.encode(builder, text) == builder.encode(text)
    for where, deleted, inserted in steps:
        pos = int(where * len(text))
        text = text[:pos] + inserted + text[pos + deleted:]
        assert window.encode(builder, text) == builder.encode(text), f"after editing at {pos}: {text!r}"


@pytest.mark.parametrize("name", list(PIPELINES))
@settings(max_examples=25, deadline=None)
@given(body=texts, steps=edits, budget=st.integers(8, 120))
def test_prefix_window_tokens_equal_full_tokens_of_its_text(name: str, body: str, steps: list, budget: int):
    """Typing at a cursor, and edits anywhere above it (also above the window): the window's ids are always the
    full tokenisation of the text it starts at."""
    builder = _builder(PIPELINES[name])
    window = ContextWindow()
    text = body * 4
    cursor = len(text)
    for where, deleted, inserted in steps:
        pos = int(where * cursor)
        deleted = min(deleted, cursor - pos)
        text = text[:pos] + inserted + text[pos + deleted:]
        cursor += len(inserted) - deleted
        ids, start = window.prefix_ids(builder, text[:cursor], budget)
        assert ids == builder.encode(text[start:cursor])
        assert len(ids) <= budget


class CountingBuilder(PromptBuilder):
    """Counts the characters handed to the tokenizer."""

    encoded_chars = 0

    def encode(self, text: str) -> list[int]:
        self.encoded_chars += len(text)
        return super().encode(text)


def test_a_keystroke_re_encodes_only_its_line():
    tok = PIPELINES["shipped (newline split)"]
    builder = CountingBuilder(tok, detect_fim(tok))
    window = ContextWindow()
    code = (DEFAULT_MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")[:4000]
    window.encode(builder, code)
    builder.encoded_chars = 0
    typed = code + "retu"
    assert window.encode(builder, typed) == tok.encode(typed)
    assert builder.encoded_chars == len(typed) - typed.rfind("\n") - 1, "only the edited line is encoded again"


def test_pipelines_without_a_rule_encode_whole_texts():
    tok = PIPELINES["sentencepiece-style"]
    builder = CountingBuilder(tok, detect_fim(tok))
    window = ContextWindow()
    window.encode(builder, "a\nb\n")
    assert builder.encoded_chars == len("a\nb\n")
    assert window.encode(builder, "a\nb\nc") == tok.encode("a\nb\nc")
    assert builder.encoded_chars == len("a\nb\n") + len("a\nb\nc")
