"""Load an mlx-lm model once (local directory, local Hugging Face cache, or the embedded default) and warm it up."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mlx.core as mx

from .cache import DocumentCache
from .fim import FimFormat, PromptBuilder, detect_fim

log = logging.getLogger(__name__)

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "default"
Progress = Callable[[str, int], None]


class ModelLoadError(Exception):
    """A model could not be loaded; the message names the problem for the user."""


@dataclass
class LoadedModel:
    model: Any
    tokenizer: Any
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
    timings: dict[str, float] = field(default_factory=dict)
    _token_texts: list[str] | None = field(default=None, repr=False)
    _heal_masks: dict[str, Any] = field(default_factory=dict, repr=False)

    def token_texts(self) -> list[str]:
        """Each token's text, decoded once (lazily: only token healing needs them)."""
        if self._token_texts is None:
            n = int(self.config.get("vocab_size") or len(self.tokenizer))
            self._token_texts = [self.tokenizer.decode([i]) if i < len(self.tokenizer) else "" for i in range(n)]
        return self._token_texts

    def heal_first_logits(self, logits: mx.array, heal: str) -> mx.array:
        """Logits masked so the first token starts with `heal` (or is a piece of it)."""
        mask = self._heal_masks.get(heal)
        if mask is None:
            texts = self.token_texts()
            allowed = [bool(t) and (t.startswith(heal) or heal.startswith(t)) for t in texts]
            allowed += [False] * (logits.shape[-1] - len(allowed))
            mask = self._heal_masks[heal] = mx.array(allowed[: logits.shape[-1]])
        return mx.where(mask, logits, mx.array(-float("inf"), dtype=logits.dtype))

    def decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False))


def default_model_path() -> Path:
    return DEFAULT_MODEL_DIR


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
    from mlx_lm.utils import DEFAULT_ALLOW_PATTERNS

    try:
        return Path(
            snapshot_download(spec, allow_patterns=DEFAULT_ALLOW_PATTERNS, local_files_only=not allow_download)
        )
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


def _whitespace_ids(tokenizer: Any, vocab_size: int) -> tuple[frozenset[int], frozenset[int]]:
    """(ids whose text contains a newline, ids whose text is only whitespace), from token strings alone."""
    n = min(vocab_size, len(tokenizer))
    toks = tokenizer.convert_ids_to_tokens(list(range(n)))
    newline = frozenset(i for i, t in enumerate(toks) if t and ("Ċ" in t or "\n" in t or t == "<0x0A>"))
    blank = frozenset(i for i, t in enumerate(toks) if t and (t in _BLANK_BYTES or set(t) <= _BLANK_CHARS))
    return newline, blank


def load_model(spec: str | None, allow_download: bool = False, progress: Progress | None = None) -> LoadedModel:
    """Load, cast for the device, and detect the FIM format. Raises ModelLoadError with a readable reason."""
    from mlx_lm.utils import load_model as mlx_load_model
    from mlx_lm.utils import load_tokenizer as mlx_load_tokenizer

    report = progress or (lambda _msg, _pct: None)
    t0 = time.perf_counter()
    report("resolving model", 5)
    path = resolve_model(spec, allow_download)
    config = _check_files(path)
    report(f"loading {path.name}", 20)
    os.environ.setdefault("HF_HUB_OFFLINE", "0" if allow_download else "1")
    try:
        # mlx_lm.load's two steps, tokenizer first: in the other order, MLX work on a non-main thread after
        # the tokenizer loads aborts the process at exit ("terminate called without an active exception").
        tokenizer = mlx_load_tokenizer(path, eos_token_ids=config.get("eos_token_id"))
        model, _ = mlx_load_model(path, lazy=False, trust_remote_code=False)
    except ValueError as exc:
        raise ModelLoadError(f"cannot load {path}: {exc} (unsupported architecture or mismatched weights?)") from exc
    except Exception as exc:
        raise ModelLoadError(f"cannot load {path}: {type(exc).__name__}: {exc}") from exc
    # Prompts are budgeted by the engine; the HF length warning would only be noise on stderr.
    hf = getattr(tokenizer, "_tokenizer", tokenizer)
    if hasattr(hf, "model_max_length"):
        hf.model_max_length = 10**9
    dtype = "mixed"
    if mx.default_device() == mx.cpu:
        # fp32 is the fast dtype on MLX's CPU backend; fp16/bf16 matmuls are much slower there.
        model.set_dtype(mx.float32)
        dtype = "float32"
    mx.eval(model.parameters())
    report("detecting prompt format", 70)
    fim = detect_fim(tokenizer, config)
    bos = tokenizer.bos_token_id if fim.name == "codellama" else None
    builder = PromptBuilder(tokenizer, fim, bos_id=bos)
    # Any special token (FIM markers, file separators, eos) ends a candidate: none of them is code.
    stop = set(builder.stop_ids) | set(getattr(tokenizer, "eos_token_ids", set()) or set())
    stop |= set(getattr(tokenizer, "all_special_ids", []) or [])
    if tokenizer.eos_token_id is not None:
        stop.add(tokenizer.eos_token_id)
    from mlx.utils import tree_flatten

    n_params = sum(v.size for _, v in tree_flatten(model.parameters()))
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
    )
    lm.timings["load_ms"] = (time.perf_counter() - t0) * 1000
    return lm


def warm_up(lm: LoadedModel, prefill_chunk: int, k: int, progress: Progress | None = None) -> None:
    """Run every step shape typing uses once, so the first real request pays no tracing or page-in cost.

    A short prompt (one prefill chunk), then: a prompt tail of each padded size an Extend uses (a keystroke adds
    a few tokens), and branch steps with 1 and with k branches.
    """
    from mlx_lm.models.cache import make_prompt_cache

    from .adapter import decode_model
    from .decode import CancelToken, DecodeSettings, complete_steps, run_alone, warm_steps

    t0 = time.perf_counter()
    report = progress or (lambda _msg, _pct: None)
    report("warming up", 85)
    lm.token_texts()  # token healing's table: built now, not on the first keystroke that needs it
    dm = decode_model(lm.model)
    sample = lm.builder.encode("def warm_up(x):\n    return x + 1\n" * 8)
    doc = DocumentCache(make_prompt_cache(lm.model))
    prompt = sample[:prefill_chunk]
    run_alone(dm, warm_steps(dm, doc, prompt, CancelToken(), prefill_chunk))
    tails = sorted({min(1 << i, dm.max_tail_rows) for i in range(dm.max_tail_rows.bit_length())})
    for i, n in enumerate(tails):
        kk = max(1, k) if i == len(tails) - 1 else 1
        settings = DecodeSettings(k=kk, max_tokens=2)
        run_alone(dm, complete_steps(dm, doc, prompt + sample[:n], settings, CancelToken(), prefill_chunk))
        doc.trim_to(len(prompt))
    lm.timings["warmup_ms"] = (time.perf_counter() - t0) * 1000
    report("ready", 100)
