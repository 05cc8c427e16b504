"""The inference engine: model loading, per-document KV caches, decoding and scheduling. Imports no LSP code.

Callers outside engine/ use only what this module exports: `Engine` (its facade methods), the request and
result types, and `ModelWork`, the handle decision work gets on the inference worker.
"""

from .loading.lazy_mlx_lm import defer_mlx_lm_init

defer_mlx_lm_init()  # before the first mlx_lm import below: serving never needs transformers

from .decoding.decode import Cancelled, CancelToken
from .decoding.healing import trailing_blanks
from .decoding.names import NameSet, NameSteer
from .decoding.score import ScoreResult
from .facade import Engine
from .loading.fim import FimFormat, format_named, format_names, text_prompt
from .loading.model import (
    DEFAULT_MODEL_DIR,
    PAUSE_MODEL_DIR,
    ModelLoadError,
    Progress,
    hub_snapshot,
    model_name,
    resolve_model,
)
from .loading.weights import quantization_label
from .requests import Candidate, CompletionRequest, CompletionResult, EngineSettings, JobFailed, ModelInfo
from .scheduling.scheduler import Job
from .scheduling.work import ModelUnavailable, ModelWork, WorkFailed, WorkResult
from .tiers import PauseState, Tier
from .timings import Status, Timings

__all__ = [
    "DEFAULT_MODEL_DIR",
    "PAUSE_MODEL_DIR",
    "CancelToken",
    "Cancelled",
    "Candidate",
    "CompletionRequest",
    "CompletionResult",
    "Engine",
    "EngineSettings",
    "FimFormat",
    "Job",
    "JobFailed",
    "ModelInfo",
    "ModelLoadError",
    "ModelUnavailable",
    "ModelWork",
    "NameSet",
    "NameSteer",
    "PauseState",
    "Progress",
    "ScoreResult",
    "Status",
    "Tier",
    "Timings",
    "WorkFailed",
    "WorkResult",
    "format_named",
    "format_names",
    "hub_snapshot",
    "model_name",
    "quantization_label",
    "resolve_model",
    "text_prompt",
    "trailing_blanks",
]
