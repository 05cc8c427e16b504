"""A checkpoint's weights in mlx-lm's model classes, read from its safetensors files without mlx_lm.utils.

mlx_lm.utils imports transformers at module level (see lazy_mlx_lm.py), so the checkpoints mlx-lm writes (plain,
and quantized by `mlx_lm.convert -q` in any mode and bit width, with per-layer overrides) are read here with
mlx-lm's own rules; formats it converts on load (AWQ, GPTQ, bitnet, custom model code, ...) still go through it.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from functools import partial
from pathlib import Path
from typing import Any, cast

import mlx.core as mx
from mlx import nn

log = logging.getLogger(__name__)


def _layer_quantization(path: str, module: nn.Module, weights: dict[str, mx.array]) -> dict[str, Any]:
    """How the file packed one layer, read from its stored shapes (mlx_lm.utils.infer_quant_config's rule):
    only affine keeps its scales in the weights' float dtype; each other mode has one (bits, group size)."""
    scales = weights[f"{path}.scales"]
    in_dims = module.weight.shape[-1]
    group_size = in_dims // scales.shape[-1]
    bits = weights[f"{path}.weight"].shape[-1] * 32 // in_dims
    mode = "affine" if scales.dtype != mx.uint8 else _FLOAT_MODES.get((bits, group_size))
    if mode is None:
        raise ValueError(f"cannot tell how {path} is quantized: {bits} bits, group size {group_size}")
    params: dict[str, Any] = {"group_size": group_size, "bits": bits, "mode": mode}
    if f"{path}.global_scale" in weights and "global_scale" in inspect.signature(module.to_quantized).parameters:
        params["global_scale"] = True  # (an nvfp4 tensor scale, in the MLX versions that have one)
    return params


_FLOAT_MODES = {(4, 16): "nvfp4", (4, 32): "mxfp4", (8, 32): "mxfp8"}


def _quantized_as(quant: dict[str, Any], weights: dict[str, mx.array], path: str, module: nn.Module) -> Any:
    """mlx-lm's rule: the config's entry for a layer it names (per-layer bits, or false), else quantized where
    the file holds scales, as the stored shapes say."""
    if path in quant:
        return quant[path]
    if not hasattr(module, "to_quantized") or f"{path}.scales" not in weights:
        return False
    return _layer_quantization(path, module, weights)


def _build_from_safetensors(path: Path, config: dict[str, Any]) -> nn.Module:
    """mlx-lm's model class for `config`, filled from the safetensors files: what mlx_lm.utils.load_model does for
    plain checkpoints and the ones mlx-lm quantizes (every mode and bit width, per-layer overrides), written here
    because mlx_lm.utils imports transformers."""
    arch = importlib.import_module(f"mlx_lm.models.{config['model_type']}")
    model = arch.Model(arch.ModelArgs.from_dict(config))
    weights: dict[str, mx.array] = {}
    for file in sorted(path.glob("model*.safetensors")):
        weights.update(cast(dict[str, mx.array], mx.load(str(file))))  # .safetensors load as a dict
    if hasattr(model, "sanitize"):
        weights = model.sanitize(weights)
    if (quant := config.get("quantization")) is not None:
        nn.quantize(model, group_size=quant.get("group_size"), bits=quant.get("bits"),
                    mode=quant.get("mode", "affine"), class_predicate=partial(_quantized_as, quant, weights))
    model.eval()
    model.load_weights(list(weights.items()), strict=True)
    return model


def _needs_mlx_lm_loader(config: dict[str, Any]) -> str | None:
    """Why this checkpoint needs mlx_lm.utils.load_model (formats it converts on load), or None.

    Like mlx-lm, a `quantization` block (what mlx_lm.convert writes, with a copy as `quantization_config` for
    other tools) wins; a `quantization_config` alone is another tool's format (AWQ, GPTQ, bitnet, ...)."""
    if config.get("quantization") is None:
        text_config = config.get("text_config") or {}
        quant_config = config.get("quantization_config") or text_config.get("quantization_config")
        if quant_config:
            return f"quantization format {quant_config.get('quant_method', '?')!r}"
    if config.get("quantize_activations") or config.get("model_file"):
        return "activation quantization or custom model code"
    return None


def load_weights(path: Path, config: dict[str, Any]) -> nn.Module:
    """The model of the checkpoint at `path`; anything beyond plain or affine-quantized MLX weights (other formats,
    architectures mlx-lm renames) goes through mlx_lm.utils.load_model, which imports transformers: logged."""
    reason = _needs_mlx_lm_loader(config)
    if reason is None:
        try:
            return _build_from_safetensors(path, config)
        except (ImportError, ValueError, KeyError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
    log.warning("%s: %s; loading through mlx_lm.utils (imports transformers)", path, reason)
    from mlx_lm.utils import load_model as mlx_lm_load_model

    model, _ = mlx_lm_load_model(path, lazy=True, trust_remote_code=False)
    return model


def head_module(model: nn.Module) -> tuple[str, nn.Module] | None:
    """(path, module) of the model's output head: `lm_head`, else the embedding it ties the head to."""
    named = dict(model.named_modules())
    for path in ("lm_head", "model.embed_tokens"):
        if path in named and (path == "lm_head" or not hasattr(model, "lm_head")):
            return path, named[path]
    return None


QUANTIZED = (nn.QuantizedLinear, nn.QuantizedEmbedding)


def float_bytes(model: nn.Module, dtype: mx.Dtype) -> int:
    """The model's size with every quantized layer dequantized to `dtype` (floats already there counted as
    stored)."""
    total = 0
    for _, m in model.named_modules():
        if isinstance(m, QUANTIZED):
            total += m.weight.shape[0] * (m.weight.shape[1] * 32 // m.bits) * dtype.size
        elif not m.children():
            total += sum(v.nbytes for _, v in _leaves(m.parameters()))
    return total


def dequantize(model: nn.Module, dtype: mx.Dtype, head_only: bool) -> int:
    """Replace quantized layers (every one, or only the output head) by their dequantized copies in `dtype`;
    the bytes it adds (0: nothing quantized there).

    On a CPU float products are the fast ones (BLAS): MLX's quantized CPU kernels cost ~3x an fp32 product for
    one row and grow with every row, so k branches and prompt chunks pay it k (or chunk) times
    (docs/benchmarks.md, "The vocabulary's cost"). A tied embedding becomes a float embedding: its lookups stay
    cheap. The values are the checkpoint's own, so greedy output is the same model's.
    """
    head = head_module(model)
    targets = [head] if head_only and head is not None else [] if head_only else list(model.named_modules())
    swaps, added = [], 0
    for path, q in targets:
        if not isinstance(q, QUANTIZED):
            continue
        weight = mx.dequantize(q.weight, q.scales, q.biases, group_size=q.group_size, bits=q.bits,
                               mode=q.mode).astype(dtype)
        added += weight.nbytes - sum(v.nbytes for k, v in _leaves(q.parameters()) if k != "bias")
        if isinstance(q, nn.QuantizedEmbedding):
            layer: nn.Module = nn.Embedding(*weight.shape)
        else:
            bias = q.get("bias")
            layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
            if bias is not None:
                layer.bias = bias.astype(dtype)
        layer.weight = weight
        layer.eval()
        mx.eval(layer.parameters())
        swaps.append((path, layer))
    if swaps:
        model.update_modules(_unflatten(swaps))
    return int(added)


def _leaves(tree: Any) -> list[tuple[str, mx.array]]:
    from mlx.utils import tree_flatten

    return cast(list[tuple[str, mx.array]], tree_flatten(tree))


def _unflatten(items: list[tuple[str, Any]]) -> Any:
    from mlx.utils import tree_unflatten

    return tree_unflatten(items)


def quantization_label(config: dict[str, Any]) -> str:
    """How a checkpoint is quantized, for people: "4-bit affine, group 64" (+ per-layer overrides)."""
    quant = config.get("quantization")
    if not isinstance(quant, dict):
        legacy = config.get("quantization_config") or {}
        return f"quantized ({legacy.get('quant_method', 'unknown format')})"
    overrides = sum(1 for v in quant.values() if isinstance(v, (dict, bool)))
    label = f"{quant.get('bits')}-bit {quant.get('mode', 'affine')}, group {quant.get('group_size')}"
    return label + (f", {overrides} layers overridden" if overrides else "")
