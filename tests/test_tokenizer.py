"""Loading without transformers gives what mlx-lm + transformers give: the same tokens, texts, special ids, weights.

transformers is imported here, in the test, only to be the reference.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import mlx.core as mx
import pytest
from conftest import TINY_MODEL
from mlx.utils import tree_flatten

from laya_lsp.engine.loading.model import DEFAULT_MODEL_DIR, load_model
from laya_lsp.engine.loading.tokenizer import load_tokenizer, whole_characters
from laya_lsp.engine.loading.weights import load_weights

TEXTS = ["", "def add(a, b):\n    return a + b\n", "x = '日本語 😀 café'\r\n\tpass", "<|endoftext|>print(1)<|fim_pad|>",
         "   \n\n\n  spaces  ", "e\u0301\u00a0\u3000 👩\u200d💻", "0123456789 'll 's"]


def _sentencepiece_only_model(out: Path) -> Path:
    """A model directory whose tokenizer is only a SentencePiece tokenizer.model (as many Llama-era repos ship)."""
    import sentencepiece as spm

    lines = (DEFAULT_MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8").splitlines()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(out / "tokenizer"),
                                   vocab_size=600, model_type="bpe", byte_fallback=True, unk_id=0, bos_id=1,
                                   eos_id=2, pad_id=-1, minloglevel=2)
    (out / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}))
    return out


@pytest.fixture(scope="module")
def sentencepiece_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _sentencepiece_only_model(tmp_path_factory.mktemp("spm"))


def _model_dirs(spm_dir: Path) -> list[Path]:
    return [DEFAULT_MODEL_DIR, Path(TINY_MODEL), spm_dir]


def test_tokens_texts_and_special_ids_match_transformers(sentencepiece_dir: Path):
    from transformers import AutoTokenizer

    for path in _model_dirs(sentencepiece_dir):
        ours, ref = load_tokenizer(path), AutoTokenizer.from_pretrained(path)
        for text in TEXTS:
            ids = ours.encode(text)
            assert ids == ref.encode(text, add_special_tokens=False), (path.name, text)
            assert ours.decode(ids) == ref.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        for name in ("eos_token_id", "bos_token_id", "unk_token_id", "pad_token_id"):
            assert getattr(ours, name) == getattr(ref, name), (path.name, name)
        assert set(ref.all_special_ids) <= set(ours.all_special_ids), path.name
        assert len(ours) == len(ref)
        some = list(range(0, len(ours), 7))
        assert ours.convert_ids_to_tokens(some) == ref.convert_ids_to_tokens(some)


def test_token_text_table_is_built_at_load_and_matches_one_by_one_decodes():
    from transformers import AutoTokenizer

    lm = load_model(str(DEFAULT_MODEL_DIR))
    ref = AutoTokenizer.from_pretrained(DEFAULT_MODEL_DIR)
    assert len(lm.token_texts) == lm.config["vocab_size"]
    assert lm.token_texts == [ref.decode([i], clean_up_tokenization_spaces=False) for i in range(len(ref))]


def test_a_sentencepiece_only_model_falls_back_to_mlx_lm_and_says_so(sentencepiece_dir: Path,
                                                                    caplog: pytest.LogCaptureFixture):
    with caplog.at_level(logging.WARNING, logger="laya_lsp.engine.loading.tokenizer"):
        tok = load_tokenizer(sentencepiece_dir)
    assert "no tokenizer.json" in caplog.text and "transformers" in caplog.text
    assert tok.decode(tok.encode("def f(x):\n    return x")) == "def f(x):\n    return x"


def _quantized_tiny(out: Path) -> Path:
    """The tiny model quantized by mlx-lm itself: 4-bit, with the embedding at 8 bits (a mixed checkpoint)."""
    from mlx_lm.utils import load_model as mlx_lm_load_model
    from mlx_lm.utils import quantize_model, save_config, save_model

    model, config = mlx_lm_load_model(Path(TINY_MODEL))
    model, config = quantize_model(
        model,
        config,
        group_size=32,
        bits=4,
        quant_predicate=lambda p, _m: {"group_size": 32, "bits": 8} if "embed" in p else True,
    )
    save_model(out, model)
    save_config(config, out / "config.json")
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(Path(TINY_MODEL) / name, out / name)
    return out


@pytest.mark.parametrize("quantized", [False, True])
def test_weights_load_as_mlx_lm_loads_them(quantized: bool, tmp_path: Path):
    from mlx_lm.utils import load_model as mlx_lm_load_model

    path = _quantized_tiny(tmp_path) if quantized else Path(TINY_MODEL)
    ref, config = mlx_lm_load_model(path)
    ours = load_weights(path, json.loads((path / "config.json").read_text()))
    ref_params, our_params = dict(tree_flatten(ref.parameters())), dict(tree_flatten(ours.parameters()))
    assert ref_params.keys() == our_params.keys()
    for key, value in ref_params.items():
        assert value.dtype == our_params[key].dtype and mx.array_equal(value, our_params[key]).item(), key
    prompt = mx.array([[5, 17, 42, 99, 3]])
    assert mx.array_equal(ours(prompt), ref(prompt)).item()
    assert bool(config.get("quantization")) == quantized


def test_whole_characters_cuts_before_a_character_the_tokens_have_not_finished():
    tok = load_tokenizer(DEFAULT_MODEL_DIR)
    ids = tok.encode("x = '𝔘'")  # 𝔘 is four byte tokens
    texts = [whole_characters(tok.decode(ids[:n])) for n in range(len(ids) + 1)]
    assert not [t for t in texts if "\ufffd" in t]
    assert texts[4:7] == ["x = '"] * 3 and texts[7] == "x = '𝔘"
    assert whole_characters("ab\ufffdcd") == "ab"  # bytes that form no character: the text before them
    # The document has U+FFFD itself: a generated one may be a copy; an unfinished one at the end still goes.
    assert whole_characters("a\ufffdb\ufffd", document="s = '\ufffd'") == "a\ufffdb"
