"""Builds a small random-initialised mlx-lm model directory at test time (never a download).

The tokenizer is a real byte-level BPE trained on CPython's own sources, with Qwen2.5-Coder's
fill-in-the-middle tokens, so FIM detection, prompt building and caching run exactly as with a real model.
"""

from __future__ import annotations

import json
import os
import sysconfig
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten

QWEN_SPECIALS = [
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
]


def _training_text() -> list[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts = []
    for name in ["ast.py", "textwrap.py", "json/encoder.py", "string.py", "functools.py"]:
        p = stdlib / name
        if p.exists():
            texts.append(p.read_text(encoding="utf-8"))
    texts.append("def f():\n    return 1\n# 日本語 😀 café\n")
    return texts


def build_tokenizer(out: Path, vocab_size: int = 600) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=QWEN_SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_training_text(), trainer)
    tok.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "eos_token": "<|endoftext|>",
                "pad_token": "<|fim_pad|>",
                "additional_special_tokens": QWEN_SPECIALS[1:],
                "model_max_length": 4096,
                "clean_up_tokenization_spaces": False,
            }
        )
    )


def build_tiny_model(
    out: Path,
    *,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    seed: int = 0,
    init_scale: float = 0.5,
    spm: bool = True,
) -> Path:
    """Write a random llama model + FIM tokenizer to `out`; returns `out`."""
    from mlx_lm.models import llama

    out.mkdir(parents=True, exist_ok=True)
    build_tokenizer(out)
    vocab = json.loads((out / "tokenizer.json").read_text())["model"]["vocab"]
    vocab_size = len(vocab) + len(QWEN_SPECIALS)
    config = {
        "model_type": "llama",
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "intermediate_size": hidden * 3,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "rms_norm_eps": 1e-5,
        "vocab_size": vocab_size,
        "max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "tie_word_embeddings": True,
        "eos_token_id": vocab.get("<|endoftext|>", 0),
        "laya": {"fim_format": "qwen", "fim_layouts": ["spm", "psm"] if spm else ["psm"]},
    }
    mx.random.seed(seed)
    model = llama.Model(llama.ModelArgs.from_dict(config))
    # Larger-than-default init makes logits peaked, so greedy ties (which float noise could flip) are rare.
    params = {k: v * init_scale * 8 if v.ndim == 2 else v for k, v in tree_flatten(model.parameters())}
    mx.save_safetensors(str(out / "model.safetensors"), params, metadata={"format": "mlx"})
    (out / "config.json").write_text(json.dumps(config, indent=2))
    return out


if __name__ == "__main__":
    import sys

    build_tiny_model(Path(sys.argv[1] if len(sys.argv) > 1 else os.getcwd()))
