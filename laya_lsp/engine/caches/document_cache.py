"""One mlx-lm prompt cache per document: longest-common-prefix reuse, exact trimming, LRU by bytes."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from mlx_lm.models.cache import can_trim_prompt_cache, make_prompt_cache, trim_prompt_cache

from .context_window import ContextWindow


def common_prefix_len(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass
class DocumentCache:
    """A document's KV cache and the token ids it covers (cache offset == len(ids), always)."""

    layers: list[Any]
    ids: list[int] = field(default_factory=list)
    window: ContextWindow = field(default_factory=ContextWindow)

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self.layers)

    def reusable(self, prompt: list[int]) -> int:
        """How many leading prompt tokens the cache already holds."""
        return common_prefix_len(self.ids, prompt)

    def trim_to(self, n: int) -> None:
        """Drop cached tokens past `n`. A cache that cannot trim (e.g. rotating) is reset instead."""
        extra = len(self.ids) - n
        if extra <= 0:
            return
        if can_trim_prompt_cache(self.layers):
            trim_prompt_cache(self.layers, extra)
            del self.ids[n:]
        else:
            self.reset()

    def reset(self) -> None:
        for c in self.layers:
            if hasattr(c, "keys"):
                c.keys = c.values = None
            if hasattr(c, "offset"):
                c.offset = 0
        self.ids.clear()


class CacheStore:
    """All documents' caches, evicting least-recently-used ones to stay under a byte budget.

    Only the inference worker touches it, so it needs no lock.
    """

    def __init__(self, model: Any, budget_bytes: int) -> None:
        self.model = model
        self.budget_bytes = budget_bytes
        self._docs: OrderedDict[str, DocumentCache] = OrderedDict()
        self.evictions = 0

    def get(self, doc_id: str) -> DocumentCache:
        """The document's cache (created empty if missing), marked most recently used."""
        cache = self._docs.get(doc_id)
        if cache is None:
            cache = DocumentCache(make_prompt_cache(self.model))
            self._docs[doc_id] = cache
        self._docs.move_to_end(doc_id)
        return cache

    def peek(self, doc_id: str) -> DocumentCache | None:
        return self._docs.get(doc_id)

    def prompts_except(self, doc_id: str) -> list[list[int]]:
        """The token ids the other documents' caches hold (their last prompts), most recently used first."""
        return [c.ids for k, c in reversed(self._docs.items()) if k != doc_id and c.ids]

    def drop(self, doc_id: str) -> None:
        self._docs.pop(doc_id, None)

    def clear(self) -> None:
        self._docs.clear()

    def total_bytes(self) -> int:
        return sum(c.nbytes for c in self._docs.values())

    def bytes_by_doc(self) -> dict[str, int]:
        return {k: c.nbytes for k, c in self._docs.items()}

    def enforce_budget(self, keep: str | None = None) -> list[str]:
        """Evict LRU documents (never `keep`) until the total is under budget; returns evicted ids."""
        evicted = []
        for doc_id in list(self._docs):
            if self.total_bytes() <= self.budget_bytes:
                break
            if doc_id == keep:
                continue
            del self._docs[doc_id]
            evicted.append(doc_id)
        self.evictions += len(evicted)
        if keep is not None and self.total_bytes() > self.budget_bytes and keep in self._docs:
            # A single document larger than the whole budget keeps nothing between requests.
            self._docs[keep].reset()
        return evicted

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)
