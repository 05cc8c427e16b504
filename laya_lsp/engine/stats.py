"""Per-request timing records and aggregates (what `laya/stats` and `laya-lsp complete` report)."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import asdict, dataclass, field


@dataclass
class RequestStats:
    id: int
    doc: str
    kind: str
    status: str = "ok"  # ok | cancelled | superseded | dropped | error | skipped
    source: str = "model"  # model | typed-through | speculative | none
    queue_ms: float = 0.0
    debounce_ms: float = 0.0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    prefill_ms: float = 0.0
    decode_tokens: int = 0
    decode_ms: float = 0.0
    decode_steps: int = 0  # forward steps after the first token (fewer than tokens when drafts were accepted)
    draft_tokens: int = 0  # tokens drafted for verification (prompt lookup)
    accepted_tokens: int = 0  # of them, the ones the model agreed with
    shared_steps: int = 0  # model steps computed together with other documents' requests
    postprocess_ms: float = 0.0
    total_ms: float = 0.0
    candidates: int = 0
    prompt_hash: str = ""  # identifies the exact prompt (same ids, same hash) within one server process
    error: str | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def cancelled(self) -> bool:
        return self.status in ("cancelled", "dropped")

    @property
    def superseded(self) -> bool:
        return self.status == "superseded"

    def to_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["cancelled"] = self.cancelled
        d["superseded"] = self.superseded
        return d


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    idx = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[idx]


MAX_ERROR_CAUSES = 32  # distinct error messages counted one by one; the rest count under OTHER_ERRORS
OTHER_ERRORS = "(other errors)"


class StatsBook:
    """Keeps the last `keep` request records and running totals; safe to use from any thread.

    Every error is also counted by its cause (`by_error`), so a long run tells what failed after its records
    have left the recent window."""

    def __init__(self, keep: int = 256) -> None:
        self._lock = threading.Lock()
        self._recent: deque[RequestStats] = deque(maxlen=keep)
        self._next_id = 1
        self.totals: dict[str, float] = {
            "requests": 0,
            "prompt_tokens": 0,
            "reused_tokens": 0,
            "decode_tokens": 0,
            "decode_ms": 0.0,
            "prefill_ms": 0.0,
            "decode_steps": 0,
            "draft_tokens": 0,
            "accepted_tokens": 0,
        }
        self.by_status: dict[str, int] = {}
        self.by_source: dict[str, int] = {}
        self.by_error: dict[str, int] = {}

    def new(self, doc: str, kind: str) -> RequestStats:
        with self._lock:
            rid = self._next_id
            self._next_id += 1
        return RequestStats(id=rid, doc=doc, kind=kind)

    def record(self, st: RequestStats) -> None:
        with self._lock:
            self._recent.append(st)
            t = self.totals
            t["requests"] += 1
            t["prompt_tokens"] += st.prompt_tokens
            t["reused_tokens"] += st.reused_tokens
            t["decode_tokens"] += st.decode_tokens
            t["decode_ms"] += st.decode_ms
            t["prefill_ms"] += st.prefill_ms
            t["decode_steps"] += st.decode_steps
            t["draft_tokens"] += st.draft_tokens
            t["accepted_tokens"] += st.accepted_tokens
            self.by_status[st.status] = self.by_status.get(st.status, 0) + 1
            self.by_source[st.source] = self.by_source.get(st.source, 0) + 1
            if st.status == "error":
                cause = st.error or "unknown"
                cause = cause if cause in self.by_error or len(self.by_error) < MAX_ERROR_CAUSES else OTHER_ERRORS
                self.by_error[cause] = self.by_error.get(cause, 0) + 1

    def recent(self, n: int | None = None) -> list[RequestStats]:
        with self._lock:
            items = list(self._recent)
        return items[-n:] if n else items

    def summary(self) -> dict[str, object]:
        recent = self.recent()
        ok = [r.total_ms for r in recent if r.status == "ok"]
        t = dict(self.totals)
        return {
            **t,
            "reuse_ratio": (t["reused_tokens"] / t["prompt_tokens"]) if t["prompt_tokens"] else 0.0,
            "decode_ms_per_token": (t["decode_ms"] / t["decode_tokens"]) if t["decode_tokens"] else 0.0,
            "draft_acceptance": (t["accepted_tokens"] / t["draft_tokens"]) if t["draft_tokens"] else 0.0,
            "p50_total_ms": percentile(ok, 50),
            "p95_total_ms": percentile(ok, 95),
            # Keys as identifiers (typed_through, warm_up): some clients turn results into named tuples.
            "by_status": {k.replace("-", "_"): v for k, v in self.by_status.items()},
            "by_source": {k.replace("-", "_"): v for k, v in self.by_source.items()},
            "by_error": dict(self.by_error),
        }

    def reset(self) -> None:
        with self._lock:
            self._recent.clear()
            for k in self.totals:
                self.totals[k] = 0
            self.by_status.clear()
            self.by_source.clear()
            self.by_error.clear()
