"""The naive peer: answer each prompt the way the original design's HTTP example did.

`mlx_lm.stream_generate` on the full prompt for every request: a fresh KV cache each time (no reuse across
keystrokes), greedy sampling, the same model object laya loads (same dtype) and the same token cap and stop
rule as the engine (stop tokens; after `max_lines` newlines once a non-blank token was emitted).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

from .laya import latency_summary
from .prompts import PromptSet


@functools.lru_cache(maxsize=2)
def mlx_lm_tokenizer(model_path: str) -> Any:
    """mlx-lm's own tokenizer wrapper, which stream_generate expects (laya's Tokenizer is a smaller interface)."""
    from mlx_lm.tokenizer_utils import load

    return load(Path(model_path))


def answer(lm: Any, ids: list[int], max_tokens: int, max_lines: int, stop: set[int], newline: frozenset[int],
           blank: frozenset[int]) -> list[int]:
    from mlx_lm import stream_generate

    out: list[int] = []
    lines, content = 0, False
    for resp in stream_generate(lm.model, mlx_lm_tokenizer(lm.path), prompt=ids, max_tokens=max_tokens):
        tok = int(resp.token)
        if tok in stop:
            break
        out.append(tok)
        if tok in newline and content:
            lines += 1
            if lines >= max_lines:
                break
        if tok not in blank:
            content = True
    return out


def run_naive(lm: Any, ps: PromptSet, limit: int = 0) -> dict[str, Any]:
    """Time every prompt (or the first `limit`), one request at a time."""
    stop, newline, blank = set(ps.stop_ids), frozenset(ps.newline_ids), frozenset(ps.blank_ids)
    prompts = ps.prompts[:limit] if limit else ps.prompts
    times, lens, toks = [], [], 0
    for p in prompts:
        t0 = time.perf_counter()
        out = answer(lm, p.ids, p.max_tokens, p.max_lines, stop, newline, blank)
        lm.decode(out)
        times.append((time.perf_counter() - t0) * 1000)
        lens.append(len(p.ids))
        toks += len(out)
    return {**latency_summary(times), "prompt_tokens_mean": round(sum(lens) / max(len(lens), 1), 1),
            "decoded_tokens": toks, "latencies_ms": [round(x, 2) for x in times]}
