"""What callers hand the engine and get back: settings, a completion request, its candidates and result, the
loaded model's description, a failed job. Plain data, no model in sight (engine.py is the facade that uses them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .decoding.draft import MAX_DRAFT
from .decoding.names import NameSteer
from .loading.model import WarmPlan
from .tiers import Tier
from .timings import Timings


class JobFailed(RuntimeError):
    """A job's model work raised: the cause (as its message) and the job's timings up to then."""

    def __init__(self, cause: str, timings: Timings) -> None:
        super().__init__(cause)
        self.timings = timings


@dataclass
class EngineSettings:
    """Engine knobs; the server maps its `laya` configuration onto these."""

    candidates: int = 5
    typing_candidates: int = 2
    max_tokens: int = 48
    context_tokens: int = 1024
    suffix_share: float = 0.25
    prefill_chunk: int = 128
    cache_budget_mb: float = 512.0
    debounce_ms: float = 30.0
    debounce_skip_tokens: int = 8
    max_queue: int = 4
    max_in_flight: int = 4  # documents decoding at once, sharing one batched step
    draft_tokens: int = MAX_DRAFT  # longest draft a step verifies (prompt lookup, draft.py); 0 = no speculation
    # Caches at one fixed size and every step shape warmed at load (see model.warm_up); None: the device's
    # default (device.DeviceDefaults.fixed_shapes: on a GPU, where a new shape stalls a request).
    fixed_shapes: bool | None = None

    def warm_plan(self, device_fixed: bool) -> WarmPlan:
        """What warm-up covers for these settings (`device_fixed`: the device's default for fixed shapes)."""
        fixed = device_fixed if self.fixed_shapes is None else self.fixed_shapes
        return WarmPlan.of(self.prefill_chunk, (self.typing_candidates, self.candidates), fixed,
                           self.context_tokens, self.max_tokens, self.draft_tokens)


@dataclass
class CompletionRequest:
    doc_id: str
    text: str
    offset: int  # index into `text` (Python str) of the cursor
    kind: str = "completion"
    candidates: int | None = None
    max_tokens: int | None = None
    max_lines: int = 1
    version: int | None = None
    debounce: bool = True
    # Background requests (speculation, warm-up) yield to every real one.
    background: bool = False
    source: str = "model"
    # Chunks of other files as (path, text), placed before the document so they stay cached.
    context: list[tuple[str, str]] = field(default_factory=list)
    # A prompt already built (token ids), answered as it is: `text` and `offset` then only matter for healing.
    prompt_ids: list[int] | None = None
    # Names that exist at the cursor (engine/decoding/names.py), asked for at the first decoding step, after
    # the prefill, so the analysis runs beside it; None from the call (or no call): decoding is not steered.
    names: Callable[[], NameSteer | None] | None = None
    # Where an answer's text closes a bracket opened before it (its index, -1: none), strings and comments aside
    # (syntax/answer_brackets.py, safe off the request's thread); None: every bracket character counts.
    outer_close: Callable[[str], int] | None = None
    # Which model answers (tiers.py): the pause tier's jobs are background jobs (any keystroke job goes first).
    tier: Tier = Tier.KEYSTROKE


@dataclass
class Candidate:
    """One decoded branch: its text, total log-probability and token count; per emitted token, its
    log-probability and the index in `text` where its text ends (empty where unknown: text from elsewhere)."""

    text: str
    logprob: float
    tokens: int
    token_logprobs: list[float] = field(default_factory=list)
    token_ends: list[int] = field(default_factory=list)  # non-decreasing, each <= len(text)

    def trimmed(self, n: int) -> Candidate:
        """The candidate with its first `n` characters gone (typed through): tokens that ended inside them too."""
        keep = [i for i, end in enumerate(self.token_ends) if end > n]
        return replace(self, text=self.text[n:], token_logprobs=[self.token_logprobs[i] for i in keep],
                       token_ends=[self.token_ends[i] - n for i in keep])


@dataclass(frozen=True)
class CompletionResult:
    """A job's candidates and what it cost (the engine books nothing: the orchestrator makes the record)."""

    candidates: list[Candidate]
    timings: Timings
    version: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. draft acceptance per source


@dataclass
class ModelInfo:
    """The loaded model as callers outside the engine see it (names, size, prompt format, load timings)."""

    name: str
    path: str
    params: int
    dtype: str
    fim: str
    layout: str
    repo_level: bool  # its FIM format has repository tokens: cross-file context can go before the prompt
    timings: dict[str, float] = field(default_factory=dict)
    device: str = ""  # where it runs: "cpu", "cuda" or "metal" (device.DeviceKind)
    compiled: bool = True  # its steps run `mx.compile`d (false while MLX's first compile runs elsewhere)
