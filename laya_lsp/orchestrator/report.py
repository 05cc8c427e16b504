"""The `laya/stats` report as a plain function of the engine: the LSP and HTTP fronts answer with the same keys."""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

from ..blas import active_blas
from ..code_cache import REPORT as CODE_CACHE
from ..engine import Engine
from .records import StatsBook

CACHE_WAIT_S = 0.5


async def engine_report(engine: Engine, book: StatsBook, cache_budget_bytes: int, recent: int = 50, reset: bool = False,
                        last: dict[str, Any] | None = None,
                        cache_wait_s: float | None = CACHE_WAIT_S, pause_off: bool = False) -> dict[str, Any]:
    """Recent requests and aggregates, cache bytes per document (each tier's) and of kept contexts, the
    scheduler's queue, the model and the pause tier's (`pauseModel`: its description, else "off", "none",
    "queued" or "failed" with `pauseError`), the BLAS.

    Cache sizes are read on the worker; while a long job runs there for more than `cache_wait_s`, the last
    snapshot is reported instead (`cacheBytesStale`; kept in `last`), so monitoring never waits for a prefill.
    `cache_wait_s=None` waits (the LSP's `laya/stats` is ordered after the requests before it)."""
    last = {} if last is None else last
    fut = asyncio.wrap_future(engine.measure_caches())
    try:
        sizes = await asyncio.wait_for(asyncio.shield(fut), cache_wait_s)
        last["cache_sizes"] = sizes
        stale = False
    except asyncio.TimeoutError:
        sizes, stale = last.get("cache_sizes", {}), True
    cache_bytes: dict[str, int] = sizes.get("documents", {})
    contexts = sizes.get("contexts", {"prompts": 0, "bytes": 0})
    pause_bytes: dict[str, int] = sizes.get("pause", {})
    info = engine.model_info()
    model = None
    if info is not None:
        model = {k: v for k, v in asdict(info).items() if k not in ("timings", "repo_level")}
        model.update(info.timings)
    pause_info = engine.pause_info()
    pause_model: Any = "off" if pause_off else engine.pause_state().value
    if pause_info is not None:
        pause_model = {k: v for k, v in asdict(pause_info).items() if k not in ("timings", "repo_level")}
    out: dict[str, Any] = {
        "summary": book.summary(),
        "recent": [r.to_dict() for r in book.recent(recent)] if recent else [],
        "documents": [{"uri": uri, "cacheBytes": b} for uri, b in cache_bytes.items()],
        "contextCache": contexts,  # prompts kept without a document (decisions' contexts), under the same budget
        "pauseDocuments": [{"uri": uri, "cacheBytes": b} for uri, b in pause_bytes.items()],  # the pause tier's
        "cacheBytesTotal": sum(cache_bytes.values()) + sum(pause_bytes.values()) + contexts["bytes"],
        "cacheBytesStale": stale,
        "cacheBudgetBytes": cache_budget_bytes,
        "evictions": engine.evictions,
        "queue": engine.queue_state(),
        "steps": engine.step_traces(),
        "model": model,
        "loadError": engine.load_error,
        "pauseModel": pause_model,
        "pauseError": engine.pause_error,
        "blas": active_blas(),
        "codeCache": CODE_CACHE.to_dict(),  # generated code served from the last start's (code_cache.py)
    }
    if reset:
        book.reset()
    return out
