"""The inference engine: model loading, per-document KV caches, decoding and scheduling. Imports no LSP code."""

from .lazy_mlx_lm import defer_mlx_lm_init

defer_mlx_lm_init()  # before the first mlx_lm import below: serving never needs transformers

from .decode import Cancelled, CancelToken
from .engine import Candidate, CompletionRequest, CompletionResult, Engine, EngineSettings
from .model import DEFAULT_MODEL_DIR, LoadedModel, ModelLoadError
from .stats import RequestStats

__all__ = [
    "DEFAULT_MODEL_DIR",
    "CancelToken",
    "Cancelled",
    "Candidate",
    "CompletionRequest",
    "CompletionResult",
    "Engine",
    "EngineSettings",
    "LoadedModel",
    "ModelLoadError",
    "RequestStats",
]
