"""FIM format detection per model family, prompt layouts, and token budgeting of the context window."""

from __future__ import annotations

import itertools
import random

import pytest
from tokenizers import Tokenizer as RustTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

from laya_lsp.engine.caches.context_window import ContextWindow, suffix_ids
from laya_lsp.engine.loading.fim import PREFIX_ONLY, PromptBuilder, detect_fim, format_named, text_prompt
from laya_lsp.engine.loading.tokenizer import Tokenizer

CODE = ("def add(a, b):\n    return a + b\n\n\nclass Point:\n    def __init__(self, x, y):\n"
        "        self.x = x\n        self.y = y\n") * 20

FAMILIES = {
    "qwen": ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
             "<|repo_name|>", "<|file_sep|>"],
    "starcoder": ["<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim_pad>", "<file_sep>",
                  "<reponame>"],
    "santacoder": ["<|endoftext|>", "<fim-prefix>", "<fim-middle>", "<fim-suffix>", "<fim-pad>"],
    "codellama": ["</s>", "<PRE>", "<SUF>", "<MID>", "<EOT>"],
    "deepseek-coder": ["<｜end▁of▁sentence｜>", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"],
    "codestral": ["</s>", "[PREFIX]", "[SUFFIX]"],
    "prefix-only": ["<|endoftext|>"],
}


def make_tokenizer(specials: list[str]) -> Tokenizer:
    tok = RustTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator([CODE], trainer)
    return Tokenizer(tok, {"eos_token": specials[0]})


@pytest.mark.parametrize("family", list(FAMILIES))
def test_detects_each_family(family: str):
    fmt = detect_fim(make_tokenizer(FAMILIES[family]))
    assert fmt.name == family
    assert fmt.has_fim == (family != "prefix-only")


def test_config_declares_trained_layouts():
    tok = make_tokenizer(FAMILIES["qwen"])
    assert detect_fim(tok).preferred_layout == "psm"  # Qwen2.5-Coder itself: PSM only
    cfg = {"laya": {"fim_format": "qwen", "fim_layouts": ["spm", "psm"]}}
    assert detect_fim(tok, cfg).preferred_layout == "spm"


@pytest.mark.parametrize("family", ["qwen", "starcoder", "codestral", "prefix-only"])
def test_layouts_put_the_changing_prefix_last_where_possible(family: str):
    tok = make_tokenizer(FAMILIES[family])
    cfg = {"laya": {"fim_format": "qwen", "fim_layouts": ["spm", "psm"]}}
    b = PromptBuilder(tok, detect_fim(tok, cfg))
    pre, suf = b.encode("def add(a, b):\n    ret"), b.encode("\n\nclass Point:\n")
    parts = b.build(pre, suf)
    ids = parts.ids
    if b.fmt.preferred_layout == "psm":
        pytest.fail("these families have a suffix-first layout")
    assert ids[-len(pre):] == pre, "typing at the cursor must only extend the end of the prompt"
    if b.fmt.has_fim:
        assert suf == ids[ids.index(suf[0]) : ids.index(suf[0]) + len(suf)]


def test_psm_layout_order():
    tok = make_tokenizer(FAMILIES["deepseek-coder"])
    b = PromptBuilder(tok, detect_fim(tok))
    pre, suf = b.encode("x = 1\n"), b.encode("y = 2\n")
    ids = b.build(pre, suf).ids
    begin, hole, end = (tok.convert_tokens_to_ids(t) for t in ("<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"))
    assert ids == [begin, *pre, hole, *suf, end]


def test_prefix_only_for_models_without_fim():
    tok = make_tokenizer(FAMILIES["prefix-only"])
    fmt = detect_fim(tok)
    assert fmt is PREFIX_ONLY or fmt.name == "prefix-only"
    b = PromptBuilder(tok, fmt)
    pre = b.encode("print(")
    assert b.build(pre, b.encode(")")).ids == pre


def test_repo_level_context_is_stable_and_budgeted():
    tok = make_tokenizer(FAMILIES["qwen"])
    b = PromptBuilder(tok, detect_fim(tok))
    chunks = [("file:///p/a.py", "def a():\n    return 1\n"), ("file:///p/b.py", "def b():\n    return 2\n")]
    first = b.repo_context(chunks, "file:///p/c.py", 10_000)
    assert first == b.repo_context(chunks, "file:///p/c.py", 10_000)
    assert first[0] == tok.convert_tokens_to_ids("<|repo_name|>")
    assert first.count(tok.convert_tokens_to_ids("<|file_sep|>")) == 3  # two chunks + the current file
    small = b.repo_context(chunks, "file:///p/c.py", len(first) - 5)
    assert len(small) < len(first) and small.count(tok.convert_tokens_to_ids("<|file_sep|>")) == 2
    no_repo = PromptBuilder(
        make_tokenizer(FAMILIES["deepseek-coder"]), detect_fim(make_tokenizer(FAMILIES["deepseek-coder"]))
    )
    assert no_repo.repo_context(chunks, "file:///p/c.py", 10_000) == []


def test_prefix_window_respects_budget_and_slides_in_big_steps():
    tok = make_tokenizer(FAMILIES["qwen"])
    b = PromptBuilder(tok, detect_fim(tok))
    window = ContextWindow()
    text = CODE * 3
    budget = 200
    starts = []
    rng = random.Random(0)
    cursor = len(text) // 2
    for i in range(300):  # typing one character at a time, a new line every 30 characters
        text = text[:cursor] + ("\n" if i % 30 == 29 else rng.choice("abc ")) + text[cursor:]
        cursor += 1
        ids, start = window.prefix_ids(b, text[:cursor], budget)
        assert len(ids) <= budget
        assert text[start - 1] == "\n" or start == 0, "the window starts at a line boundary"
        starts.append(start)
    moves = sum(1 for a, c in itertools.pairwise(starts) if a != c)
    assert moves <= 300 // 40, f"the window start moved {moves} times in 300 keystrokes"


def test_one_enormous_line_still_fits_and_rarely_moves():
    tok = make_tokenizer(FAMILIES["qwen"])
    b = PromptBuilder(tok, detect_fim(tok))
    window = ContextWindow()
    text = "x = [" + ", ".join(str(i) for i in range(2000))
    starts = []
    for i in range(100):
        text += "7"
        ids, start = window.prefix_ids(b, text, 200)
        assert len(ids) <= 200
        starts.append(start)
    assert len(set(starts)) <= 100 // 20


def test_window_rebuilds_when_the_cursor_jumps_up():
    tok = make_tokenizer(FAMILIES["qwen"])
    b = PromptBuilder(tok, detect_fim(tok))
    window = ContextWindow()
    text = CODE * 3
    window.prefix_ids(b, text, 200)
    ids, start = window.prefix_ids(b, text[:300], 200)
    assert start == 0 and len(ids) <= 200


def test_suffix_ids_take_the_first_tokens_after_the_cursor():
    tok = make_tokenizer(FAMILIES["qwen"])
    b = PromptBuilder(tok, detect_fim(tok))
    ids = suffix_ids(b, CODE, 50)
    assert len(ids) == 50
    assert b.encode(CODE)[:45] == ids[:45]
    assert suffix_ids(b, "", 50) == [] and suffix_ids(b, CODE, 0) == []


@pytest.mark.parametrize(("family", "name"), [("qwen", "qwen"), ("qwen", "qwen/spm"), ("starcoder", "starcoder/spm"),
                                              ("deepseek-coder", "deepseek-coder"), ("codestral", "codestral")])
def test_text_prompts_are_the_engines_prompts_as_text(family: str, name: str):
    """A serving engine gets the prompt the engine would compute, as text: tokenized by the model's tokenizer
    (which reads the markers as special tokens) it is the engine's token prompt for the same layout."""
    tok = make_tokenizer(FAMILIES[family])
    fmt, layout = format_named(name)
    b = PromptBuilder(tok, detect_fim(tok))
    chunks = [("file:///p/a.py", "def a():\n    return 1\n")]
    prefix, suffix = "def add(a, b):\n    ret", "\n\nclass Point:\n"
    ctx = b.repo_context(chunks, "file:///p/c.py", 10_000)
    ids = b.build(b.encode(prefix), b.encode(suffix), ctx, layout).ids
    assert tok.encode(text_prompt(fmt, prefix, suffix, chunks, "file:///p/c.py", layout)) == ids


def test_fim_setting_names():
    assert format_named("qwen")[1] == "psm" and format_named("qwen/spm")[1] == "spm"
    assert format_named("prefix")[0] is PREFIX_ONLY and format_named("codestral")[1] == "native-spm"
    with pytest.raises(ValueError, match="unknown FIM format"):
        format_named("qwen/xyz")
