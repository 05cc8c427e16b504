"""Write an mlx-lm llama-architecture model directory as a GGUF file (f32 or f16) for llama.cpp.

    python -m benchmarks.peers.gguf_export MODEL_DIR OUT.gguf [--dtype f16]
Same weights, renamed to llama.cpp's tensor names. HF/mlx llama rotates query/key halves ("rotate_half"
RoPE); llama.cpp's llama kernels rotate adjacent pairs, so q and k rows are permuted exactly as llama.cpp's
convert_hf_to_gguf.py `LlamaModel.permute` does. The tokenizer is written as a byte-level BPE ("gpt2") vocab
with its merges, padded to the model's vocab size; benchmarks feed token ids directly, so only its validity
matters. Quantized mlx weights (with `.scales`/`.biases`) are dequantized first.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, cast

import numpy as np

TENSOR_NAMES = {
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
    "input_layernorm.weight": "attn_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
}


def permute(weights: np.ndarray, n_head: int, n_head_kv: int | None) -> np.ndarray:
    """llama.cpp convert_hf_to_gguf.py `LlamaModel.permute` (rotate-half rows → interleaved pairs)."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2)
            .reshape(weights.shape))


def load_weights(model_dir: Path) -> dict[str, np.ndarray]:
    """All safetensors of the directory as fp32 numpy arrays (mlx-quantized layers dequantized)."""
    import mlx.core as mx

    config = json.loads((model_dir / "config.json").read_text())
    raw: dict[str, Any] = {}
    for f in sorted(model_dir.glob("*.safetensors")):
        raw.update(cast(dict[str, Any], mx.load(str(f))))
    q = config.get("quantization") or config.get("quantization_config") or {}
    out: dict[str, np.ndarray] = {}
    for name, w in raw.items():
        if name.endswith((".scales", ".biases")):
            continue
        base = name[: -len(".weight")] if name.endswith(".weight") else None
        if base is not None and f"{base}.scales" in raw:
            w = mx.dequantize(w, raw[f"{base}.scales"], raw.get(f"{base}.biases"), group_size=q.get("group_size", 64),
                              bits=q.get("bits", 4))
        out[name] = np.array(w.astype(mx.float32))
    return out


def vocab_entries(model_dir: Path, vocab_size: int) -> tuple[list[str], list[int], list[str], dict[str, int]]:
    """(tokens, token types, merges, special ids) from tokenizer.json, padded to `vocab_size`."""
    import gguf

    tj = json.loads((model_dir / "tokenizer.json").read_text())
    vocab: dict[str, int] = dict(tj["model"]["vocab"])
    added = {t["content"]: t for t in tj.get("added_tokens", [])}
    for content, t in added.items():
        vocab[content] = t["id"]
    by_id = {i: tok for tok, i in vocab.items()}
    tokens, types = [], []
    for i in range(vocab_size):
        tok = by_id.get(i)
        if tok is None:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif tok in added:
            types.append(gguf.TokenType.CONTROL if added[tok].get("special") else gguf.TokenType.USER_DEFINED)
            tokens.append(tok)
        else:
            tokens.append(tok)
            types.append(gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in tj["model"].get("merges", [])]
    specials = {t["content"]: t["id"] for t in tj.get("added_tokens", []) if t.get("special")}
    return tokens, [int(t) for t in types], merges, specials


def export_gguf(model_dir: Path, out: Path, dtype: str = "f32", context: int = 4096) -> dict[str, Any]:
    """Write `out`; returns a short description (tensor count, bytes, dtype)."""
    import gguf

    config = json.loads((model_dir / "config.json").read_text())
    if config.get("model_type") not in ("llama", "mistral"):
        raise ValueError(f"only llama-architecture models are exported (got {config.get('model_type')})")
    n_head, n_kv = (
        int(config["num_attention_heads"]),
        int(config.get("num_key_value_heads", config["num_attention_heads"])),
    )
    hidden, layers = int(config["hidden_size"]), int(config["num_hidden_layers"])
    head_dim = int(config.get("head_dim") or hidden // n_head)
    vocab_size = int(config["vocab_size"])
    weights = load_weights(model_dir)
    w = gguf.GGUFWriter(str(out), "llama")
    w.add_name(model_dir.name)
    w.add_context_length(min(int(config.get("max_position_embeddings", context)), context))
    w.add_embedding_length(hidden)
    w.add_block_count(layers)
    w.add_feed_forward_length(int(config["intermediate_size"]))
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(float(config.get("rope_theta", 10000.0)))
    w.add_layer_norm_rms_eps(float(config.get("rms_norm_eps", 1e-5)))
    w.add_vocab_size(vocab_size)
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if dtype == "f32" else gguf.LlamaFileType.MOSTLY_F16)
    tokens, types, merges, specials = vocab_entries(model_dir, vocab_size)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    eos = config.get("eos_token_id")
    eos = eos[0] if isinstance(eos, list) else eos
    if eos is None:
        eos = specials.get("<|endoftext|>", 0)
    w.add_eos_token_id(int(eos))
    w.add_add_bos_token(False)

    traditional = bool(config.get("rope_traditional", False))  # already pairwise: no permutation needed
    half = np.float16 if dtype == "f16" else np.float32
    n_bytes = 0

    def put(name: str, arr: np.ndarray) -> None:
        nonlocal n_bytes
        arr = arr.astype(np.float32 if arr.ndim == 1 else half)  # norms stay f32, as llama.cpp expects
        n_bytes += arr.nbytes
        w.add_tensor(name, np.ascontiguousarray(arr))

    put("token_embd.weight", weights["model.embed_tokens.weight"])
    for i in range(layers):
        pre = f"model.layers.{i}."
        for src, dst in TENSOR_NAMES.items():
            arr = weights[pre + src]
            if not traditional and src == "self_attn.q_proj.weight":
                arr = permute(arr, n_head, n_head)
            elif not traditional and src == "self_attn.k_proj.weight":
                arr = permute(arr, n_head, n_kv)
            put(f"blk.{i}.{dst}", arr)
    put("output_norm.weight", weights["model.norm.weight"])
    if "lm_head.weight" in weights and not config.get("tie_word_embeddings", False):
        put("output.weight", weights["lm_head.weight"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {"path": str(out), "dtype": dtype, "bytes": out.stat().st_size, "tensor_bytes": n_bytes}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model_dir", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--dtype", choices=["f32", "f16"], default="f32")
    args = p.parse_args()
    print(json.dumps(export_gguf(args.model_dir, args.out, args.dtype)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
