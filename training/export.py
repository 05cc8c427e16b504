"""Training checkpoint -> mlx-lm model directory (config.json, model.safetensors, tokenizer files, MODEL_CARD.md).

  python training/export.py --run training/out/d256-l4 --ckpt final --out laya_lsp/models/default \
      [--eval training/out/eval.json] [--card training/card.md]
  python training/export.py --check laya_lsp/models/default   # logits parity: mlx_lm.load (fp32) vs torch (fp32)

Weights keep the training dtype (bf16) to keep the package small; the server upcasts to fp32 on CPU.
The embedding is tied to the output head, so there is no lm_head.weight.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


def export(run: Path, ckpt: str, tokenizer: Path, out: Path, repo_level: bool, context: int) -> None:
    import mlx.core as mx

    out.mkdir(parents=True, exist_ok=True)
    cfg = json.loads((run / "config.json").read_text())
    keep = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "max_position_embeddings", "rms_norm_eps", "rope_theta", "tie_word_embeddings",
            "hidden_act", "attention_bias", "mlp_bias", "eos_token_id", "pad_token_id", "head_dim")
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
              **{k: cfg[k] for k in keep if k in cfg and cfg[k] is not None}}
    if "rope_theta" not in config:  # transformers 5 keeps it under rope_parameters
        config["rope_theta"] = (cfg.get("rope_parameters") or {}).get("rope_theta", 10000.0)
    config["max_position_embeddings"] = context  # the training context: longer prompts were never seen
    config["bos_token_id"] = None
    config["torch_dtype"] = "bfloat16"
    config["laya"] = {"fim_format": "qwen", "fim_layouts": ["spm", "psm"], "repo_level": repo_level}
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    # MLX reads and writes bf16 safetensors, so the export needs no torch (the --check does)
    tensors = {k: v for k, v in mx.load(str(run / f"{ckpt}.safetensors")).items()
               if k != "lm_head.weight" and "rotary_emb" not in k}
    mx.save_safetensors(str(out / "model.safetensors"), tensors, metadata={"format": "pt"})
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer / name, out / name)
    print(json.dumps({"out": str(out), "tensors": len(tensors),
                      "params": sum(t.size for t in tensors.values()),
                      "bytes": sum(p.stat().st_size for p in out.iterdir())}))


def check(path: Path) -> float:
    """Max |logit difference| between mlx_lm.load on CPU (fp32) and transformers' LlamaForCausalLM (fp32)."""
    import mlx.core as mx
    import numpy as np
    import torch
    from mlx.utils import tree_map
    from mlx_lm import load
    from safetensors.torch import load_file
    from transformers import LlamaConfig, LlamaForCausalLM

    model, tokenizer = load(str(path))
    model.update(tree_map(lambda x: x.astype(mx.float32), model.parameters()))
    text = "<|fim_prefix|><|fim_suffix|>\n    return total\n<|fim_middle|>def add(a, b):\n    total = a + b"
    ids = tokenizer.encode(text, add_special_tokens=False)
    mlx_logits = np.array(model(mx.array(ids)[None]).astype(mx.float32))
    cfg = json.loads((path / "config.json").read_text())
    cfg.pop("laya")
    tm = LlamaForCausalLM(LlamaConfig(**cfg)).float().eval()
    sd = {k: v.float() for k, v in load_file(str(path / "model.safetensors")).items()}
    missing, unexpected = tm.load_state_dict(sd, strict=False)
    assert set(missing) <= {"lm_head.weight"} and not unexpected, (missing, unexpected)
    tm.tie_weights()
    with torch.no_grad():
        t_logits = tm(torch.tensor([ids])).logits.numpy()
    diff = float(np.abs(mlx_logits - t_logits).max())
    same_argmax = float((mlx_logits.argmax(-1) == t_logits.argmax(-1)).mean())
    print(json.dumps({"max_abs_logit_diff": diff, "logit_scale": float(np.abs(t_logits).max()),
                      "argmax_agreement": same_argmax, "tokens": len(ids)}))
    return diff


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=Path)
    ap.add_argument("--ckpt", default="final")
    ap.add_argument("--tokenizer", type=Path, default=ROOT / "out" / "tokenizer")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--repo-level", action="store_true", default=True)
    ap.add_argument("--context", type=int, default=1024, help="training sequence length")
    ap.add_argument("--check", type=Path)
    args = ap.parse_args()
    if args.check:
        check(args.check)
    else:
        export(args.run, args.ckpt, args.tokenizer, args.out, args.repo_level, args.context)


if __name__ == "__main__":
    main()
