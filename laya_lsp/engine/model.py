"""Load an mlx-lm model once (local directory, local Hugging Face cache, or the embedded default) and warm it up.

Weights load into mlx-lm's model classes and the tokenizer loads with `tokenizers` alone: neither path imports
transformers (see lazy_mlx_lm.py), so start-up and memory do not depend on what else is installed.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, cast

import mlx.core as mx
from mlx import nn

from ..device import device_defaults, mlx_device_kind
from .cache import DocumentCache
from .fim import FimFormat, PromptBuilder, detect_fim
from .tokenizer import Tokenizer, TokenizerError, load_tokenizer

log = logging.getLogger(__name__)

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "default"
# What load_model reads from a Hugging Face snapshot: configs, weights, tokenizer files.
MODEL_FILES = ["*.json", "*.safetensors", "tokenizer.model", "*.tiktoken", "*.txt"]
Progress = Callable[[str, int], None]


class ModelLoadError(Exception):
    """A model could not be loaded; the message names the problem for the user."""


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Tokenizer
    config: dict[str, Any]
    fim: FimFormat
    builder: PromptBuilder
    path: str
    name: str
    newline_ids: frozenset[int]
    blank_ids: frozenset[int]
    stop_ids: set[int]
    n_params: int
    dtype: str
    # Each id's text (token healing's table), decoded in one batch at load, never on a keystroke.
    token_texts: list[str] = field(default_factory=list, repr=False)
    timings: dict[str, float] = field(default_factory=dict)
    _heal_masks: dict[str, Any] = field(default_factory=dict, repr=False)

    def heal_first_logits(self, logits: mx.array, heal: str) -> mx.array:
        """Logits masked so the first token starts with `heal` (or is a piece of it)."""
        mask = self._heal_masks.get(heal)
        if mask is None:
            texts = self.token_texts
            allowed = [bool(t) and (t.startswith(heal) or heal.startswith(t)) for t in texts]
            allowed += [False] * (logits.shape[-1] - len(allowed))
            mask = self._heal_masks[heal] = mx.array(allowed[: logits.shape[-1]])
        return mx.where(mask, logits, mx.array(-float("inf"), dtype=logits.dtype))

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)


def resolve_model(spec: str | None, allow_download: bool = False) -> Path:
    """Turn a model setting into a local directory. Offline unless `allow_download`.

    `spec` is a local mlx-lm model directory, a Hugging Face repo id (looked up in the local HF cache), or
    empty for the embedded default model.
    """
    if not spec:
        if not (DEFAULT_MODEL_DIR / "config.json").exists():
            raise ModelLoadError(
                f"the embedded default model is missing from {DEFAULT_MODEL_DIR}; set `model` to an mlx-lm model"
            )
        return DEFAULT_MODEL_DIR
    path = Path(spec).expanduser()
    if path.exists():
        if not path.is_dir():
            raise ModelLoadError(f"model path {path} is a file; expected an mlx-lm model directory")
        return path
    looks_like_path = spec.startswith((".", "/", "~")) or spec.count("/") != 1
    if looks_like_path:
        raise ModelLoadError(f"model directory {spec} does not exist")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(spec, allow_patterns=MODEL_FILES, local_files_only=not allow_download))
    except Exception as exc:
        hint = "" if allow_download else " (offline: set `allowDownload` to fetch it)"
        raise ModelLoadError(f"model {spec!r} is not in the local Hugging Face cache{hint}: {exc}") from exc


def _check_files(path: Path) -> dict[str, Any]:
    cfg_file = path / "config.json"
    if not cfg_file.exists():
        raise ModelLoadError(f"{path} has no config.json: not an mlx-lm model directory")
    try:
        config = json.loads(cfg_file.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{cfg_file} is not valid JSON: {exc}") from exc
    if not list(path.glob("*.safetensors")):
        pickles = [p.name for p in path.glob("*.bin")] + [p.name for p in path.glob("*.pt")]
        extra = f" (found {', '.join(pickles)}; pickled weights are never loaded)" if pickles else ""
        raise ModelLoadError(f"{path} has no .safetensors weights{extra}")
    if not (path / "tokenizer.json").exists() and not (path / "tokenizer.model").exists():
        raise ModelLoadError(f"{path} has no tokenizer (tokenizer.json or tokenizer.model)")
    return config


# Byte-level BPE spells space/newline/tab/CR as 'Ġ', 'Ċ', 'ĉ', 'č'; SentencePiece uses '▁' and <0x..> bytes.
_BLANK_CHARS = set("ĠĊĉč▁ \n\t\r")
_BLANK_BYTES = {"<0x0A>", "<0x09>", "<0x20>", "<0x0D>"}


def _whitespace_ids(tokenizer: Tokenizer, vocab_size: int) -> tuple[frozenset[int], frozenset[int]]:
    """(ids whose text contains a newline, ids whose text is only whitespace), from token strings alone."""
    n = min(vocab_size, len(tokenizer))
    toks = tokenizer.convert_ids_to_tokens(list(range(n)))
    newline = frozenset(i for i, t in enumerate(toks) if t and ("Ċ" in t or "\n" in t or t == "<0x0A>"))
    blank = frozenset(i for i, t in enumerate(toks) if t and (t in _BLANK_BYTES or set(t) <= _BLANK_CHARS))
    return newline, blank


def _quantized_as(quant: dict[str, Any], weights: dict[str, mx.array], path: str, module: nn.Module) -> Any:
    """mlx-lm's rule for affine checkpoints: the config's entry for a layer it names, else quantized where the file
    holds scales, with group size and bits read from the stored shapes."""
    if path in quant:
        return quant[path]
    if not hasattr(module, "to_quantized") or f"{path}.scales" not in weights:
        return False
    in_dims = module.weight.shape[-1]
    return {"group_size": in_dims // weights[f"{path}.scales"].shape[-1],
            "bits": weights[f"{path}.weight"].shape[-1] * 32 // in_dims, "mode": "affine"}


def _build_from_safetensors(path: Path, config: dict[str, Any]) -> nn.Module:
    """mlx-lm's model class for `config`, filled from the safetensors files: what mlx_lm.utils.load_model does for
    plain and affine-quantized MLX checkpoints, written here because mlx_lm.utils imports transformers."""
    arch = importlib.import_module(f"mlx_lm.models.{config['model_type']}")
    model = arch.Model(arch.ModelArgs.from_dict(config))
    weights: dict[str, mx.array] = {}
    for file in sorted(path.glob("model*.safetensors")):
        weights.update(cast(dict[str, mx.array], mx.load(str(file))))  # .safetensors load as a dict
    if hasattr(model, "sanitize"):
        weights = model.sanitize(weights)
    if (quant := config.get("quantization")) is not None:
        nn.quantize(model, group_size=quant["group_size"], bits=quant["bits"], mode="affine",
                    class_predicate=partial(_quantized_as, quant, weights))
    model.eval()
    model.load_weights(list(weights.items()), strict=True)
    return model


def _needs_mlx_lm_loader(config: dict[str, Any]) -> str | None:
    """Why this checkpoint needs mlx_lm.utils.load_model (formats it converts on load), or None."""
    quant_config = config.get("quantization_config") or (config.get("text_config") or {}).get("quantization_config")
    if quant_config:
        return f"quantization format {quant_config.get('quant_method', '?')!r}"
    mode = (config.get("quantization") or {}).get("mode", "affine")
    if mode != "affine":
        return f"quantization mode {mode!r}"
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


def _parameters(model: nn.Module) -> list[mx.array]:
    """Every parameter array of the model."""
    from mlx.utils import tree_flatten

    return [v for _, v in cast(list[tuple[str, mx.array]], tree_flatten(model.parameters()))]


def _stored_dtype(model: nn.Module) -> str | None:
    """The floating-point dtype most of the model's parameters are stored in."""
    floats = Counter(str(v.dtype).removeprefix("mlx.core.") for v in _parameters(model)
                     if mx.issubdtype(v.dtype, mx.floating))
    return floats.most_common(1)[0][0] if floats else None


def load_model(spec: str | None, allow_download: bool = False, progress: Progress | None = None) -> LoadedModel:
    """Load, cast for the device, and detect the FIM format. Raises ModelLoadError with a readable reason."""
    report = progress or (lambda _msg, _pct: None)
    t0 = time.perf_counter()
    report("resolving model", 5)
    path = resolve_model(spec, allow_download)
    config = _check_files(path)
    report(f"loading {path.name}", 20)
    os.environ.setdefault("HF_HUB_OFFLINE", "0" if allow_download else "1")
    try:
        # Tokenizer first: in the other order, MLX work on a non-main thread after the tokenizer loads aborted
        # the process at exit ("terminate called without an active exception").
        tokenizer = load_tokenizer(path, config.get("eos_token_id"))
        model = load_weights(path, config)
    except TokenizerError as exc:
        raise ModelLoadError(str(exc)) from exc
    except ValueError as exc:
        raise ModelLoadError(f"cannot load {path}: {exc} (unsupported architecture or mismatched weights?)") from exc
    except Exception as exc:
        raise ModelLoadError(f"cannot load {path}: {type(exc).__name__}: {exc}") from exc
    stored = _stored_dtype(model)
    quantized = bool(config.get("quantization") or config.get("quantization_config"))
    defaults = device_defaults(mlx_device_kind(), quantized=quantized, stored_dtype=stored)
    if defaults.dtype is not None:
        model.set_dtype(getattr(mx, defaults.dtype))
    dtype = defaults.dtype or (f"{stored}, quantized" if quantized else stored) or "unknown"
    mx.eval(model.parameters())
    report("detecting prompt format", 70)
    fim = detect_fim(tokenizer, config)
    bos = tokenizer.bos_token_id if fim.name == "codellama" else None
    builder = PromptBuilder(tokenizer, fim, bos_id=bos)
    # Any special token (FIM markers, file separators, eos) ends a candidate: none of them is code.
    stop = set(builder.stop_ids) | tokenizer.eos_token_ids | set(tokenizer.all_special_ids)
    n_params = sum(v.size for v in _parameters(model))
    vocab_size = int(config.get("vocab_size") or len(tokenizer))
    newline_ids, blank_ids = _whitespace_ids(tokenizer, vocab_size)
    lm = LoadedModel(
        model=model,
        tokenizer=tokenizer,
        config=config,
        fim=fim,
        builder=builder,
        path=str(path),
        name=config.get("_name_or_path") or path.name,
        newline_ids=newline_ids,
        blank_ids=blank_ids,
        stop_ids=stop,
        n_params=n_params,
        dtype=dtype,
        token_texts=tokenizer.token_texts(vocab_size),
    )
    lm.timings["load_ms"] = (time.perf_counter() - t0) * 1000
    return lm


@dataclass(frozen=True)
class WarmPlan:
    """What warm-up must cover: the prompt chunk, the branch counts requests use, and, for fixed shapes (the GPU
    default, `device.DeviceDefaults.fixed_shapes`), the one cache capacity and how many documents share a step."""

    prefill_chunk: int
    ks: tuple[int, ...]
    fixed: bool = False
    capacity: int = 0  # cache columns (fixed shapes)
    batch: int = 1  # documents decoding in one step (fixed shapes)
    typing_k: int = 1  # the branch count batched across documents (other batches run one document at a time)


def warm_up(lm: LoadedModel, plan: WarmPlan, progress: Progress | None = None) -> None:
    """Run every step shape a request can meet once, so no request pays for a trace (or, on a GPU, for attention
    plans and kernel compiles).

    Typing shapes (every backend): a short prompt, a prompt tail of each padded size an Extend uses, branch steps
    with each k in `plan.ks`. Fixed shapes add: caches allocated at `plan.capacity`, prompt chunks through the
    step at each padded size, and the typing branch steps of 2..`plan.batch` documents at once; the step is then frozen
    (step.CompiledStep.freeze), so a combination of documents that was not warmed runs as warmed shapes.
    """
    from mlx_lm.models.cache import make_prompt_cache

    from .adapter import BranchStep, Extend, StepModel, decode_model
    from .decode import CancelToken, DecodeSettings, complete_steps, run_alone, warm_steps

    t0 = time.perf_counter()
    report = progress or (lambda _msg, _pct: None)
    report("warming up", 85)
    dm = decode_model(lm.model)
    fixed = plan.fixed and isinstance(dm, StepModel)
    if plan.fixed and isinstance(dm, StepModel):
        dm.fix_shapes(plan.capacity, plan.prefill_chunk)
    sizes = dm.row_sizes() if isinstance(dm, StepModel) else [1]
    sample = lm.builder.encode("def warm_up(x):\n    return x + 1\n" * 32)
    sample = (sample * (1 + 2 * max(sizes) // max(1, len(sample))))[: 2 * max(sizes) + plan.prefill_chunk]
    docs = [DocumentCache(make_prompt_cache(lm.model)) for _ in range(plan.batch if fixed else 1)]
    prompt = sample[: plan.prefill_chunk]
    for doc in docs:
        run_alone(dm, warm_steps(dm, doc, prompt, CancelToken(), plan.prefill_chunk))
    doc = docs[0]
    for n in sizes:  # each padded row count of a prompt's tail (fixed shapes: of a prompt chunk too)
        if n <= dm.max_tail_rows or fixed:
            mx.eval(dm.forward([Extend(doc, sample[len(prompt) : len(prompt) + n])])[0])
            doc.trim_to(len(prompt))
    for k in plan.ks:
        settings = DecodeSettings(k=max(1, k), max_tokens=2)
        run_alone(dm, complete_steps(dm, doc, prompt + sample[:3], settings, CancelToken(), plan.prefill_chunk))
        doc.trim_to(len(prompt))
        for n in range(2, len(docs) + 1 if k == plan.typing_k else 0):  # fixed shapes: n documents' typing steps
            states = [dm.open(d, k, 2) for d in docs[:n]]
            mx.eval(dm.forward([BranchStep(b, mx.zeros((b.k,), dtype=mx.int32)) for b in states]))
            for b in states:
                dm.close(b)
    if isinstance(dm, StepModel):
        dm.step.mark_warm()
        if fixed:
            dm.step.freeze()
    lm.timings["warmup_ms"] = (time.perf_counter() - t0) * 1000
    report("ready", 100)
