"""The `laya` settings: typed, fully defaulted, validated in one place.

Read from `initializationOptions` and `workspace/didChangeConfiguration` (section `laya`), with camelCase keys
as editors write them. Unknown keys are reported, never silently dropped into the code.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import cattrs
from cattrs.gen import make_dict_structure_fn, override

from .decisions.decide import DEFAULT_DECISION_TOKENS, DEFAULT_THRESHOLD
from .engine import EngineSettings, format_names
from .syntax import SyntaxSettings


@dataclass
class FallbackSettings:
    """Hand-off of low-confidence work to a bigger model on an OpenAI-compatible server (off when url is empty)."""

    url: str = ""
    model: str = ""
    threshold: float = DEFAULT_THRESHOLD
    timeout_ms: int = 3000
    api_key: str = ""
    # Completions: "unsure" hands off where the local answer is unsure, "always" at every model run, "off" never.
    completions: str = "unsure"
    # The prompt a completion hand-off sends: the FIM format the server's model was trained on, "suffix" (the
    # prefix as `prompt`, the rest as `suffix`: servers whose /v1/completions take one) or "prefix" (no FIM).
    fim: str = "qwen"
    # A completion hand-off not answered within this is dropped; the local answer stands.
    deadline_ms: int = 2000
    # How much of the document around the cursor a completion hand-off sends (four fifths before the cursor, one
    # after, at line boundaries): fit it to the server's model's context (a 1,024-token model: ~3,000).
    context_chars: int = 10000


# `pause.minConfidence` below 0: the pause model's own calibrated threshold (confidence.json, by its weights'
# fingerprint), else the `minConfidence` default.
PAUSE_OWN_THRESHOLD = -1.0
PAUSE_OFF = "off"


@dataclass
class PauseSettings:
    """The pause tier: a larger local model that answers where the keystroke model's answer is unsure, in the
    same response (orchestrator/latency/pause_tier.py)."""

    # "" = the embedded pause model (laya_lsp/models/pause/) where it is shipped, else none; "off" = none; else an
    # mlx-lm model directory or Hugging Face repo id, as `model`.
    model: str = ""
    # Its answer is cut at this calibrated confidence (under its own calibration); below 0 (the default): its
    # calibration's threshold, else the `minConfidence` default.
    min_confidence: float = PAUSE_OWN_THRESHOLD
    # How long an inline request whose keystroke answer is unsure waits for the pause tier's (completion lists never
    # wait); later, the keystroke answer stands (the pause tier's is kept for the next request at that text).
    deadline_ms: int = 600


_ENGINE = EngineSettings()  # each default is written once: the engine's and the syntax layer's knobs own theirs
_SYNTAX = SyntaxSettings()


@dataclass
class Settings:
    """Every documented configuration key (README, "Settings")."""

    model: str = ""  # local mlx-lm directory or Hugging Face repo id; empty = embedded default model
    allow_download: bool = False
    candidates: int = _ENGINE.candidates
    # Requests made while typing (ghost text triggered automatically, a completion list asked again as the user
    # types) get this many: two arrive in time for about twice as many keystrokes as five, and survive the
    # syntax checks more often than one (docs/benchmarks.md, "Candidates while typing"); an explicit request
    # (Ctrl+Space, "show inline suggestions") gets `candidates`.
    typing_candidates: int = _ENGINE.typing_candidates
    max_tokens: int = _ENGINE.max_tokens
    debounce_ms: int = int(_ENGINE.debounce_ms)
    context_tokens: int = _ENGINE.context_tokens
    threads: int = 0  # 0 = leave MLX/BLAS thread defaults
    cache_budget_mb: float = _ENGINE.cache_budget_mb
    prefill_chunk: int = _ENGINE.prefill_chunk
    # "on": caches at one fixed size and every step shape warmed at load, so no keystroke waits for a trace or a
    # kernel compile; "auto": on with a GPU, off on the CPU (device.DeviceDefaults.fixed_shapes).
    fixed_shapes: str = "auto"
    # Where the model runs: "gpu" where MLX has one, "cpu", or "auto": the GPU, but while it compiles its kernels
    # the first time (once per machine, MLX version and model shape) a small model answers from the CPU and moves
    # to the GPU when they are ready (first_compile.py).
    device: str = "auto"
    inline_max_lines: int = _SYNTAX.max_lines
    complete_in_comments: bool = _SYNTAX.complete_in_comments
    complete_in_strings: bool = _SYNTAX.complete_in_strings
    trigger_rules: bool = True  # syntax may decline to complete (mid-word, code after the cursor, ...)
    postprocess: bool = True  # clean candidates with tree-sitter; false gives the model's raw lines
    typed_through: bool = True  # answer from a shown candidate while the user types through it
    speculative: bool = True  # after an answer, precompute the next one as if the top line were accepted
    # While typing, where a block may come: answer with its first line, decode the block in the background.
    first_line_first: bool = True
    warm_up: bool = True  # prefill a buffer's cache on open and on `laya/focus`
    cross_file_tokens: int = 256  # budget for chunks of other recently used files (0 = off)
    outline_tokens: int = 192  # budget for an outline of the document above the prefix window (0 = off)
    # Longest draft a decode step verifies (prompt lookup over the document, its last answer and the other buffers;
    # the output is the same, only the number of steps changes); 0 = no speculation.
    draft_tokens: int = _ENGINE.draft_tokens
    # Steer the next identifier towards names that exist there. Off by default, by measurement (docs/analysis.md):
    # no quality gain with the embedded model, and the analysis per keystroke slows typing on a 2-core machine.
    steer_names: bool = False
    steer_wait_ms: int = 150  # how long after a request its first decoding step waits for the name analysis
    # When every candidate fails the syntax checks, one more run asks for this many (0 = off): docs/analysis.md.
    wider_candidates: int = 8
    # Show a suggestion only as far as the calibrated probability that it is right as far as it goes stays at
    # least this (orchestrator/confidence.py): ghost text shows nothing less sure, the list ranks it last.
    # 0 shows everything; the default is the calibration's threshold (confidence.json; a test keeps them equal).
    min_confidence: float = 0.425
    decision_tokens: int = DEFAULT_DECISION_TOKENS
    decision_threshold: float = DEFAULT_THRESHOLD
    fallback: FallbackSettings = field(default_factory=FallbackSettings)
    pause: PauseSettings = field(default_factory=PauseSettings)

    def syntax(self) -> SyntaxSettings:
        """What the syntax layer needs: where to complete and how many lines a block may have."""
        return SyntaxSettings(
            complete_in_comments=self.complete_in_comments,
            complete_in_strings=self.complete_in_strings,
            max_lines=self.inline_max_lines,
            multiline=self.inline_max_lines > 1,
        )

    def engine(self) -> EngineSettings:
        """The engine's knobs for these settings."""
        return EngineSettings(
            candidates=self.candidates,
            typing_candidates=self.typing_candidates,
            max_tokens=self.max_tokens,
            context_tokens=self.context_tokens,
            prefill_chunk=self.prefill_chunk,
            cache_budget_mb=self.cache_budget_mb,
            debounce_ms=float(self.debounce_ms),
            fixed_shapes=None if self.fixed_shapes == "auto" else self.fixed_shapes == "on",
            draft_tokens=self.draft_tokens,
        )


LIMITS: dict[str, tuple[float, float]] = {
    "candidates": (1, 10),
    "typing_candidates": (1, 10),
    "max_tokens": (1, 1024),
    "debounce_ms": (0, 2000),
    "context_tokens": (32, 32768),
    "threads": (0, 256),
    "cache_budget_mb": (1, 65536),
    "prefill_chunk": (8, 4096),
    "inline_max_lines": (1, 200),
    "draft_tokens": (0, 32),
    "decision_tokens": (16, 8192),
    "cross_file_tokens": (0, 16384),
    "outline_tokens": (0, 16384),
    "steer_wait_ms": (0, 10000),
    "wider_candidates": (0, 10),
    "decision_threshold": (0.0, 1.0),
    "min_confidence": (0.0, 1.0),
    "threshold": (0.0, 1.0),
    "timeout_ms": (1, 600000),
    "deadline_ms": (1, 600000),
    "context_chars": (200, 1000000),
    "pause.min_confidence": (-1.0, 1.0),
    "pause.deadline_ms": (0, 60000),
}
# Settings whose limits are their group's own (a nested group's key before the bare field name).
GROUPS = ("fallback", "pause")


def limits_of(group: str, name: str) -> tuple[float, float] | None:
    """The limits of setting `name` of `group` ("" for the top level, "fallback", "pause"), None without any."""
    return LIMITS.get(f"{group}.{name}") or LIMITS.get(name)


# String settings that take one of a few values.
CHOICES: dict[str, tuple[str, ...]] = {
    "fixed_shapes": ("auto", "on", "off"),
    "device": ("auto", "gpu", "cpu"),
    "completions": ("unsure", "always", "off"),
    "fim": (*format_names(), "suffix"),
}

_SPELLINGS = {"cache_budget_mb": "cacheBudgetMB"}


def _camel(name: str) -> str:
    if name in _SPELLINGS:
        return _SPELLINGS[name]
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True)
    for cls in (FallbackSettings, PauseSettings, Settings):  # nested classes first: the outer hook captures theirs
        overrides: dict[str, Any] = {f.name: override(rename=_camel(f.name)) for f in fields(cls)}
        conv.register_structure_hook(
            cls, make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True, **overrides)
        )
    return conv


_CONVERTER = _converter()


_NESTED: dict[str, type] = {"fallback": FallbackSettings, "pause": PauseSettings}  # the groups, in GROUPS' order


class SettingsError(ValueError):
    """Invalid configuration: the message says which key and why."""


def _accept_snake_case(raw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        k = _camel(key) if "_" in key else key
        out[k] = _accept_snake_case(value) if isinstance(value, dict) else value
    return out


def parse_settings(raw: Any, base: Settings | None = None) -> Settings:
    """Merge `raw` (the `laya` object) over `base`; raises SettingsError naming the bad key."""
    base = base or Settings()
    if raw is None:
        return base
    if not isinstance(raw, dict):
        raise SettingsError(f"laya settings must be an object, got {type(raw).__name__}")
    if "laya" in raw and isinstance(raw["laya"], dict) and len(raw) == 1:
        raw = raw["laya"]
    raw = _accept_snake_case(raw)
    _check_known(raw, Settings, "laya.")
    for group, cls in _NESTED.items():
        if isinstance(raw.get(group), dict):
            _check_known(raw[group], cls, f"laya.{group}.")
    merged = _unstructure(base)
    for k, v in raw.items():
        if k in _NESTED and isinstance(v, dict):
            merged[k] = {**merged[k], **v}
        else:
            merged[k] = v
    try:
        settings = _CONVERTER.structure(merged, Settings)
    except cattrs.ClassValidationError as exc:
        msgs = cattrs.transform_error(exc, path="laya")
        raise SettingsError("; ".join(msgs)) from None
    except (TypeError, ValueError) as exc:
        raise SettingsError(str(exc)) from None
    _check_types_and_limits(merged, settings, "laya.")
    _check_types_and_limits(merged["fallback"], settings.fallback, "laya.fallback.")
    _check_types_and_limits(merged["pause"], settings.pause, "laya.pause.")
    return settings


def _check_known(raw: dict[str, Any], cls: type, where: str) -> None:
    """An unknown key is named with the known one closest to it (a typo says what it meant)."""
    known = [_camel(f.name) for f in fields(cls)]
    for key in raw:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"; did you mean {where}{close[0]}?" if close else f" (known: {', '.join(known)})"
            raise SettingsError(f"unknown setting {where}{key}{hint}")


def _check_types_and_limits(raw: dict[str, Any], s: Settings | FallbackSettings | PauseSettings, where: str) -> None:
    group = where.removeprefix("laya.").rstrip(".")
    for f in fields(s):
        v = raw.get(_camel(f.name))
        key = where + _camel(f.name)
        # cattrs coerces "5" to 5 and 1.5 to 1; editors' JSON should say what it means.
        if f.type in ("int", "float") and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise SettingsError(f"{key} must be a number, got {v!r}")
        if f.type == "bool" and not isinstance(v, bool):
            raise SettingsError(f"{key} must be true or false, got {v!r}")
        if f.type == "str" and not isinstance(v, str):
            raise SettingsError(f"{key} must be a string, got {v!r}")
        if f.name in CHOICES and v not in CHOICES[f.name]:
            raise SettingsError(f"{key} must be one of {', '.join(CHOICES[f.name])}, got {v!r}")
        bounds = limits_of(group, f.name)
        if bounds is not None:
            lo, hi = bounds
            value = getattr(s, f.name)
            if not lo <= value <= hi:
                raise SettingsError(f"{key} must be between {lo:g} and {hi:g}, got {value!r}")


def _unstructure(s: Any) -> dict[str, Any]:
    if is_dataclass(s):
        return {_camel(f.name): _unstructure(getattr(s, f.name)) for f in fields(s)}
    return s


def settings_json(s: Settings) -> str:
    """`s` as the `--settings` JSON that parses back to it (a child `laya-lsp` process takes the same settings)."""
    return json.dumps(_unstructure(s))


def documented_keys() -> list[str]:
    """Every setting's key as the README's table names it: the top level, then each group's (dotted)."""
    keys = [_camel(f.name) for f in fields(Settings) if f.name not in _NESTED]
    for group, cls in _NESTED.items():
        keys += [f"{group}." + _camel(f.name) for f in fields(cls)]
    return keys
