"""Load an mlx-lm model once (local directory, local Hugging Face cache, or the embedded default) and warm it up.

Weights load into mlx-lm's model classes and the tokenizer loads with `tokenizers` alone: neither path imports
transformers (see lazy_mlx_lm.py), so start-up and memory do not depend on what else is installed.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import mlx.core as mx
from mlx import nn

from ...device import device_defaults, mlx_device_kind
from ...lines import CLOSERS, OPENERS, bracket_depths
from ..caches.prompt_caches import DocumentCache
from ..decoding.healing import HealMasks
from ..decoding.names import TokenTrie
from .fim import FimFormat, PromptBuilder, detect_fim
from .tokenizer import Tokenizer, TokenizerError, load_tokenizer
from .weights import dequantize, float_bytes, load_weights, quantization_label

_BRACKETS = frozenset(OPENERS + CLOSERS)

log = logging.getLogger(__name__)

DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "default"
# The embedded pause-tier model (tiers.py), where it is shipped: its absence means no pause tier by default.
PAUSE_MODEL_DIR = Path(__file__).resolve().parents[2] / "models" / "pause"
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
    # Each id's text, decoded in one batch at load, never on a keystroke; token healing groups them (healing.py).
    token_texts: list[str] = field(default_factory=list, repr=False)
    timings: dict[str, float] = field(default_factory=dict)
    healing: HealMasks = field(default_factory=lambda: HealMasks([]), repr=False)
    _token_trie: TokenTrie | None = field(default=None, repr=False)
    _bracket_depths: dict[int, tuple[int, int, int]] | None = field(default=None, repr=False)

    @property
    def bracket_depths(self) -> dict[int, tuple[int, int, int]]:
        """`lines.bracket_depths` of every token whose text has a bracket (the line rule's stop, decoding/stop.py),
        computed on first use (a few ms for a large vocabulary), never at load."""
        if self._bracket_depths is None:
            self._bracket_depths = {i: bracket_depths(t) for i, t in enumerate(self.token_texts)
                                    if not _BRACKETS.isdisjoint(t)}
        return self._bracket_depths

    @property
    def token_trie(self) -> TokenTrie:
        """The vocabulary as a token trie for name steering (decoding/names.py), built once, on the worker: piece
        by piece when it is idle after the first answer (`token_trie_pieces`, Engine), or all at once by the
        first request that steers before that is done."""
        if self._token_trie is None:
            for _piece in self.token_trie_pieces():
                pass
        assert self._token_trie is not None
        return self._token_trie

    @property
    def token_trie_built(self) -> bool:
        return self._token_trie is not None

    def token_trie_pieces(self) -> Iterator[str]:
        """Build the token trie a piece at a time (TokenTrie.in_pieces), yielding after each (its name); nothing
        once it is built. `timings["token_trie_ms"]` adds up the pieces' time."""
        building = TokenTrie.in_pieces(self.token_texts, len(self.token_texts))
        spent = 0.0
        while self._token_trie is None:
            t0 = time.perf_counter()
            try:
                next(building)
            except StopIteration as built:
                self._token_trie = built.value
            spent += (time.perf_counter() - t0) * 1000
            self.timings["token_trie_ms"] = spent
            yield "token trie"

    def heal_first_logits(self, logits: mx.array, heal: str) -> mx.array:
        """Logits masked so the first token starts with `heal` (or is a piece of it)."""
        return mx.where(self.healing.mask(heal), logits, mx.array(-float("inf"), dtype=logits.dtype))

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)


def resolve_model(spec: str | None, allow_download: bool = False) -> Path:
    """Turn a model setting into a local directory. Offline unless `allow_download`.

    `spec` is a local mlx-lm model directory, a Hugging Face repo id (its snapshot in the local cache, found as
    huggingface_hub does: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub; `refs/main` names the
    snapshot), or empty for the embedded default model.
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
    if not _is_repo_id(spec):
        raise ModelLoadError(f"model directory {spec} does not exist")
    from huggingface_hub import constants, snapshot_download

    try:
        return Path(snapshot_download(spec, allow_patterns=MODEL_FILES, local_files_only=not allow_download))
    except Exception as exc:
        if allow_download:
            raise ModelLoadError(f"cannot download model {spec!r}: {type(exc).__name__}: {exc}") from exc
        raise ModelLoadError(
            f"model {spec!r} is not in the local Hugging Face cache ({constants.HF_HUB_CACHE}; set HF_HUB_CACHE or "
            f"HF_HOME to look elsewhere): fetch it once with `huggingface-cli download {spec}`, or set "
            f"`allowDownload`, or give `model` a local directory"
        ) from exc


def _is_repo_id(spec: str) -> bool:
    """"org/name" (what the Hugging Face hub names a repository), not a path."""
    return not spec.startswith((".", "/", "~")) and spec.count("/") == 1 and all(spec.split("/"))


def hub_snapshot(path: Path) -> tuple[str, str] | None:
    """(repo id, revision) when `path` is a snapshot in a Hugging Face cache (models--org--name/snapshots/REV)."""
    parts = path.absolute().parts
    if len(parts) >= 3 and parts[-2] == "snapshots" and parts[-3].startswith("models--"):
        return parts[-3].removeprefix("models--").replace("--", "/", 1), parts[-1]
    return None


def model_name(spec: str | None, path: Path, config: dict[str, Any]) -> str:
    """How the model is named to users: the repo id it was asked by (or whose cache snapshot `path` is), else
    the config's own name, else the directory's."""
    if spec and _is_repo_id(spec) and not Path(spec).expanduser().exists():
        return spec
    snapshot = hub_snapshot(path)
    if snapshot:
        return snapshot[0]
    return str(config.get("_name_or_path") or path.name)


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
    """Load, cast for the device, and detect the FIM format. Raises ModelLoadError with a readable reason.

    `timings` gets the load's parts (ms): resolve, tokenizer, weights (read, quantized layers built, cast),
    tables (each id's text and the whitespace and healing tables), fim, and load in all."""
    report = progress or (lambda _msg, _pct: None)
    clock = _Clock()
    report("resolving model", 5)
    path = resolve_model(spec, allow_download)
    config = _check_files(path)
    clock.lap("resolve_ms")
    report(f"loading {path.name}", 20)
    os.environ.setdefault("HF_HUB_OFFLINE", "0" if allow_download else "1")
    try:
        # Tokenizer first: in the other order, MLX work on a non-main thread after the tokenizer loads aborted
        # the process at exit ("terminate called without an active exception").
        tokenizer = load_tokenizer(path, config.get("eos_token_id"))
        clock.lap("tokenizer_ms")
        model = load_weights(path, config)
    except TokenizerError as exc:
        raise ModelLoadError(str(exc)) from exc
    except ValueError as exc:
        raise ModelLoadError(f"cannot load {path}: {exc} (unsupported architecture or mismatched weights?)") from exc
    except Exception as exc:
        raise ModelLoadError(f"cannot load {path}: {type(exc).__name__}: {exc}") from exc
    dtype = _cast_for_device(model, config)
    mx.eval(model.parameters())
    clock.lap("weights_ms")
    vocab_size = int(config.get("vocab_size") or len(tokenizer))
    newline_ids, blank_ids = _whitespace_ids(tokenizer, vocab_size)
    token_texts = tokenizer.token_texts(vocab_size)
    healing = HealMasks(token_texts)
    clock.lap("tables_ms")
    report("detecting prompt format", 70)
    fim = detect_fim(tokenizer, config)
    bos = tokenizer.bos_token_id if fim.name == "codellama" else None
    builder = PromptBuilder(tokenizer, fim, bos_id=bos)
    # Any special token (FIM markers, file separators, eos) ends a candidate: none of them is code.
    stop = set(builder.stop_ids) | tokenizer.eos_token_ids | set(tokenizer.all_special_ids)
    clock.lap("fim_ms")
    lm = LoadedModel(model=model, tokenizer=tokenizer, config=config, fim=fim, builder=builder, path=str(path),
                     name=model_name(spec, path, config), newline_ids=newline_ids, blank_ids=blank_ids,
                     stop_ids=stop, n_params=sum(v.size for v in _parameters(model)), dtype=dtype,
                     token_texts=token_texts, healing=healing)
    lm.timings.update(clock.laps, load_ms=clock.total())
    return lm


class _Clock:
    """Laps of a load, in ms."""

    def __init__(self) -> None:
        self.t0 = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = (now - self.last) * 1000
        self.last = now

    def total(self) -> float:
        return (time.perf_counter() - self.t0) * 1000


def _cast_for_device(model: nn.Module, config: dict[str, Any]) -> str:
    """Cast the weights as the device's defaults say (device.py); the dtype as reported ("4-bit affine, group
    64, float32; head float32": a quantized checkpoint whose output head was dequantized)."""
    stored = _stored_dtype(model)
    quantized = bool(config.get("quantization") or config.get("quantization_config"))
    defaults = device_defaults(mlx_device_kind(), quantized=quantized, stored_dtype=stored)
    if defaults.dtype is not None:
        model.set_dtype(getattr(mx, defaults.dtype))
    dtype = defaults.dtype or stored or "unknown"
    if not quantized:
        return dtype
    dtype = f"{quantization_label(config)}, {dtype}"
    if defaults.dequantize_share and defaults.dtype:
        import psutil

        to = getattr(mx, defaults.dtype)
        everything = float_bytes(model, to) <= defaults.dequantize_share * psutil.virtual_memory().total
        if dequantize(model, to, head_only=not everything):
            dtype += f"; dequantized to {defaults.dtype}" if everything else f"; head {defaults.dtype}"
    return dtype


@dataclass(frozen=True)
class WarmPlan:
    """What warm-up must cover: the prompt chunk, the branch counts requests use, and, for fixed shapes (the GPU
    default, `device.DeviceDefaults.fixed_shapes`), the one cache capacity and the most rows a branch step has
    (every branch with a full draft)."""

    prefill_chunk: int
    ks: tuple[int, ...]
    fixed: bool = False
    capacity: int = 0  # cache columns (fixed shapes)
    branch_rows: int = 1

    @classmethod
    def of(cls, chunk: int, ks: tuple[int, ...], fixed: bool, context: int, max_tokens: int, draft: int) -> WarmPlan:
        """The plan for a prompt budget of `context` tokens and branches of `max_tokens`, k in `ks` (and 1),
        verifying drafts of up to `draft` tokens: caches hold the longest prompt, the most branches' tokens and
        some slack for format tokens."""
        k = max(1, *ks)
        return cls(chunk, tuple(sorted({1, *ks})), fixed, context + k * max_tokens + 64, k * (1 + draft))


def warm_up(lm: LoadedModel, plan: WarmPlan, progress: Progress | None = None) -> None:
    """Run every step shape a request can meet once (`warm_pieces`), all now, reporting each piece (on a GPU's
    first start each compiles its kernels: seconds each)."""
    report = progress or (lambda _msg, _pct: None)
    report("warming up", 85)
    for i, piece in enumerate(warm_pieces(lm, plan)):
        report(f"warmed up: {piece}", min(99, 86 + i))


def warm_pieces(lm: LoadedModel, plan: WarmPlan) -> Iterator[str]:
    """Run every step shape a request can meet once, so no request pays for a trace (or, on a GPU, for attention
    plans and kernel compiles); yields after each piece (its name), so that it can run when the worker is idle.
    `lm.timings["warmup_ms"]` adds up the pieces' time."""
    lm.timings["warmup_ms"] = 0.0
    pieces = _warm_steps(lm, plan)
    while True:
        t0 = time.perf_counter()
        name = next(pieces, None)
        lm.timings["warmup_ms"] += (time.perf_counter() - t0) * 1000
        if name is None:
            return
        yield name


def _warm_steps(lm: LoadedModel, plan: WarmPlan) -> Iterator[str]:
    """Typing shapes (every backend): a short prompt, a prompt tail of each padded size an Extend uses, branch
    steps with each k in `plan.ks`. Fixed shapes add: caches allocated at `plan.capacity`, and every padded row
    count a step can have (prompt chunks through the step, tails with drafts, branch steps with drafts); the step
    is then frozen (step.CompiledStep.freeze), so a combination of documents that was not warmed runs as warmed
    shapes."""
    from mlx_lm.models.cache import make_prompt_cache

    from ..decoding.adapter import StepModel, decode_model
    from ..decoding.decode import CancelToken, DecodeSettings, complete_steps, run_alone, warm_steps

    dm = decode_model(lm.model)
    if plan.fixed and isinstance(dm, StepModel):
        dm.fix_shapes(plan.capacity, plan.prefill_chunk)
    sample = lm.builder.encode("def warm_up(x):\n    return x + 1\n" * 8)
    doc = DocumentCache(make_prompt_cache(lm.model))
    prompt = sample[: plan.prefill_chunk]
    run_alone(dm, warm_steps(dm, doc, prompt, CancelToken(), plan.prefill_chunk))
    yield "prompt chunk"
    tails = sorted({min(1 << i, dm.max_tail_rows) for i in range(dm.max_tail_rows.bit_length())})
    for n in tails:  # each padded size of a prompt's tail (a keystroke adds a few tokens)
        run_alone(dm, complete_steps(dm, doc, prompt + sample[:n], DecodeSettings(k=1, max_tokens=2), CancelToken(),
                                     plan.prefill_chunk))
        doc.trim_to(len(prompt))
        yield f"tail of {n}"
    for k in plan.ks:  # branch steps of each k requests use
        settings = DecodeSettings(k=max(1, k), max_tokens=2)
        run_alone(dm, complete_steps(dm, doc, prompt + sample[:1], settings, CancelToken(), plan.prefill_chunk))
        doc.trim_to(len(prompt))
        yield f"{k} branches"
    if isinstance(dm, StepModel):
        if dm.chunk_rows:  # fixed shapes: every row count any step pads to, then no new shape
            for rows in dm.row_sizes(plan.branch_rows):
                dm.warm_rows(doc, rows)
                yield f"steps of {rows} rows"
            dm.step.freeze()
        dm.step.mark_warm()
    mx.eval(lm.healing.mask(" "))  # the blank typed most ("return "): its healing mask is ready too
    yield "healing"
