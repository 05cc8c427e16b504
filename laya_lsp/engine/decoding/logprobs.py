"""Log-probabilities over the vocabulary, the one vocabulary-wide computation of a decode step besides the head."""

from __future__ import annotations

import mlx.core as mx
import numpy as np


def log_softmax(logits: mx.array) -> mx.array:
    """Log-probabilities over the last axis (the vocabulary), evaluated.

    On a CPU the normaliser is computed with numpy, whose vectorised exp is ~30x MLX's CPU exp: over Qwen's 151,936
    tokens MLX's logsumexp cost more than the output head itself (docs/benchmarks.md, "The vocabulary's cost").
    Elsewhere MLX's own (no copy off the device)."""
    if mx.default_device() != mx.cpu:
        return logits - mx.logsumexp(logits, axis=-1, keepdims=True)
    x = np.array(logits.astype(mx.float32), copy=False)
    top = x.max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # (a row masked to -inf everywhere stays -inf)
        norm = np.log(np.exp(x - np.where(np.isfinite(top), top, 0)).sum(axis=-1, keepdims=True))
        norm += np.where(np.isfinite(top), top, 0)
    return logits - mx.array(norm).astype(logits.dtype)


def token_logprobs(logits: mx.array, tokens: list[int]) -> list[float]:
    """Row i's log-probability of `tokens[i]` (logits (rows, vocab)), in one evaluation: on a CPU the rows are
    read once into numpy (see `log_softmax`), elsewhere MLX gathers and normalises on the device."""
    if mx.default_device() != mx.cpu:
        picked = mx.take_along_axis(logits, mx.array(tokens)[:, None], axis=-1)[:, 0]
        out: list[float] = (picked - mx.logsumexp(logits, axis=-1)).tolist()  # type: ignore[assignment]
        return out
    x = np.array(logits.astype(mx.float32), copy=False)
    top = x.max(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        norm = np.log(np.exp(x - top[:, None]).sum(axis=-1)) + top
    return list((x[np.arange(len(tokens)), tokens] - norm).tolist())


def greedy_picks(logits: mx.array) -> tuple[list[int], list[float]] | None:
    """Each row's most likely token and its log-probability (logits (rows, vocab)), read from one evaluation into
    numpy, on a CPU; None elsewhere (the caller runs the sampler in MLX). The same numbers as `log_softmax` then
    argmax, without a second MLX graph and its round trip through the CPU stream every decode step."""
    if mx.default_device() != mx.cpu:
        return None
    x = np.array(logits.astype(mx.float32), copy=False)
    top = x.max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # (as log_softmax)
        norm = np.log(np.exp(x - np.where(np.isfinite(top), top, 0)).sum(axis=-1, keepdims=True))
        norm += np.where(np.isfinite(top), top, 0)
        ids = x.argmax(axis=-1)
        return ids.tolist(), (x[np.arange(len(ids)), ids] - norm[:, 0]).tolist()
