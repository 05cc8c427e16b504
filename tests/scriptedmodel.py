"""A model that always answers one scripted text, for tests of what the server does with a known answer.

A one-layer llama whose attention and MLP add nothing (their output projections are zero), so the next token is
a function of the current one: a bigram table. After `<|fim_middle|>` (the last token of a prefix-suffix-middle
prompt) it writes the script's tokens one by one, then `<|endoftext|>`. Each token may appear once in the
script, so the script is split into vocabulary pieces that are all different (any split decodes to the text).
Built at test time with tinymodel.py's tokenizer, never downloaded.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten
from tinymodel import build_tokenizer


@lru_cache(maxsize=1)
def _byte_chars() -> dict[int, str]:
    from tokenizers import pre_tokenizers

    alphabet = pre_tokenizers.ByteLevel.alphabet()  # GPT-2's byte-to-character map, as a set
    printable = [b for b in range(256) if chr(b) in alphabet]
    others = [b for b in range(256) if b not in printable]
    return {**{b: chr(b) for b in printable}, **{b: chr(256 + i) for i, b in enumerate(others)}}


def distinct_split(text: str, vocab: dict[str, int]) -> list[int]:
    """Token ids that spell `text`, each id used once (ValueError: no such split)."""
    chars = _byte_chars()
    target = "".join(chars[b] for b in text.encode("utf-8"))
    pieces = sorted((p for p in vocab if target.find(p) >= 0), key=len, reverse=True)

    def split(at: int, used: frozenset[int]) -> list[int] | None:
        if at == len(target):
            return []
        for piece in pieces:
            token = vocab[piece]
            if token not in used and target.startswith(piece, at):
                rest = split(at + len(piece), used | {token})
                if rest is not None:
                    return [token, *rest]
        return None

    ids = split(0, frozenset())
    if ids is None:
        raise ValueError(f"no split of {text!r} into distinct tokens")
    return ids


def build_scripted_model(out: Path, script: str) -> Path:
    """Write the model answering `script` (and its tokenizer) to `out`; returns `out`."""
    from mlx_lm.models import llama

    out.mkdir(parents=True, exist_ok=True)
    build_tokenizer(out)
    tokenizer = json.loads((out / "tokenizer.json").read_text())
    vocab: dict[str, int] = tokenizer["model"]["vocab"]
    specials = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    chain = [specials["<|fim_middle|>"], *distinct_split(script, vocab), specials["<|endoftext|>"]]
    hidden = 64 * ((len(chain) + 63) // 64)
    vocab_size = max([*vocab.values(), *specials.values()]) + 1
    config = {
        "model_type": "llama", "hidden_size": hidden, "num_hidden_layers": 1, "intermediate_size": hidden,
        "num_attention_heads": 4, "num_key_value_heads": 4, "rms_norm_eps": 1e-5, "vocab_size": vocab_size,
        "max_position_embeddings": 4096, "rope_theta": 10000.0, "tie_word_embeddings": False,
        "eos_token_id": specials["<|endoftext|>"], "laya": {"fim_format": "qwen", "fim_layouts": ["psm"]},
    }
    model = llama.Model(llama.ModelArgs.from_dict(config))
    params = {k: mx.zeros_like(v) if k.endswith(("o_proj.weight", "down_proj.weight")) else v
              for k, v in tree_flatten(model.parameters())}
    embed, head = mx.zeros((vocab_size, hidden)), mx.zeros((vocab_size, hidden))
    for slot, (token, following) in enumerate(pairwise(chain)):
        embed[token, slot] = 1.0
        head[following, slot] = 8.0
    params["model.embed_tokens.weight"], params["lm_head.weight"] = embed, head
    mx.save_safetensors(str(out / "model.safetensors"), params, metadata={"format": "mlx"})
    (out / "config.json").write_text(json.dumps(config, indent=2))
    return out


def scripted_model_dir(script: str) -> Path:
    """The model answering `script`, built once per script and scriptedmodel.py version in the temp dir."""
    import hashlib
    import os
    import tempfile

    digest = hashlib.sha1(Path(__file__).read_bytes() + script.encode()).hexdigest()[:10]
    out = Path(tempfile.gettempdir()) / f"laya-test-scripted-{digest}"
    if not (out / "config.json").exists():
        tmp = out.with_name(out.name + f".{os.getpid()}")
        build_scripted_model(tmp, script)
        try:
            tmp.rename(out)
        except OSError:
            pass  # another process won the race; its copy is identical
    return out
