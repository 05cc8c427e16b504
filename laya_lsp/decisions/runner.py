"""Queue decision work on the engine's single inference worker, with a cancel token and a stats record.

Decision jobs never share a scheduler key with completions: typing in a document supersedes its pending
completion but not a decision the user asked for. With `latest_wins`, a newer job of the same kind for the
same document supersedes the older one (code actions: the user has moved on); otherwise every job gets its own
key (decide, structured: each request is answered). They still use the document's own cache (engine/score.py
`borrow`), so shared context is prefilled once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..engine import Engine
from ..engine.cache import DocumentCache
from ..engine.decode import Cancelled, CancelToken
from ..engine.model import LoadedModel
from ..engine.scheduler import Job
from ..engine.stats import RequestStats

Work = Callable[[LoadedModel, Callable[[], DocumentCache | None], CancelToken, RequestStats], Any]


class NoModel(RuntimeError):
    """No model is loaded (the load failed or none was configured)."""


_counter = 0


def submit(engine: Engine, kind: str, doc_id: str | None, work: Work, latest_wins: bool = False) -> Job:
    """Run `work(lm, doc_cache, cancel, stats)` on the worker; the job's future resolves to its return value,
    or to None when the job was cancelled, superseded or dropped. `doc_cache()` gives the document's cache
    (None for work without a document)."""
    global _counter
    _counter += 1
    key = f"{doc_id}#{kind}" if doc_id and latest_wins else f"{doc_id or ''}#{kind}-{_counter}"
    st = engine.stats.new(doc_id or "", kind)

    def run(job: Job) -> Any:
        t0 = job.started or time.perf_counter()
        st.queue_ms = (t0 - job.created) * 1000
        lm, caches = engine.lm, engine.caches
        if lm is None or caches is None:
            st.status, st.source, st.error = "error", "none", engine.load_error or "no model loaded"
            engine.stats.record(st)
            raise NoModel(st.error)
        try:
            out = work(lm, (lambda: caches.get(doc_id)) if doc_id else (lambda: None), job.token, st)
            if doc_id:
                caches.enforce_budget(keep=doc_id)
        except Cancelled:
            raise  # recorded by `dropped`
        except Exception as exc:
            st.status, st.error = "error", f"{type(exc).__name__}: {exc}"
            st.total_ms = (time.perf_counter() - job.created) * 1000
            engine.stats.record(st)
            raise
        st.total_ms = (time.perf_counter() - job.created) * 1000
        engine.stats.record(st)
        return out

    def dropped(job: Job, reason: str) -> None:
        st.status = reason if reason in ("cancelled", "superseded", "dropped") else "cancelled"
        st.total_ms = (time.perf_counter() - job.created) * 1000
        engine.stats.record(st)

    return engine.scheduler.submit(Job(key=key, run=run, on_drop=dropped))
