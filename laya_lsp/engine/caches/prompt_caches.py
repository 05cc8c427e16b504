"""One mlx-lm prompt cache per document: longest-common-prefix reuse, exact trimming, LRU by bytes; and the KV
states of prompts asked without a document (decisions' contexts, structured prompts) in mlx-lm's own
`LRUPromptCache`; `CacheStore` keeps both for one model, and `CacheBudget` keeps every model's stores (the
keystroke tier's, the pause tier's) under one byte budget."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
from mlx_lm.models.cache import (
    KVCache,
    LRUPromptCache,
    can_trim_prompt_cache,
    make_prompt_cache,
    trim_prompt_cache,
)

from ..tiers import Tier
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
    tier: Tier = Tier.KEYSTROKE  # whose model's KV it holds: a batched step never mixes models

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


# Prompts asked without a document whose KV state is kept: an app asks a few contexts over and over (a window
# manager's, a todo list's), and each kept one costs its KV bytes.
CONTEXTS = 16
_MODEL_KEY = "model"  # LRUPromptCache keys entries by model too; a store serves one loaded model


class ContextCache:
    """KV states of prompts asked without a document, found by their longest shared prefix: mlx-lm's
    `LRUPromptCache` (a token trie, LRU by count and bytes; the one data structure mlx_lm.server uses).

    `fetch` hands out a copy (the kept state never changes: the copy is prefilled and scored in), `keep` files a
    cache that covers its prompt exactly. Only the inference worker touches it."""

    def __init__(self, max_bytes: int, max_size: int = CONTEXTS) -> None:
        self.lru = LRUPromptCache(max_size=max_size, max_bytes=max_bytes)

    def fetch(self, model: Any, prompt: list[int]) -> DocumentCache:
        """A cache holding the longest prefix of `prompt` kept (an empty one when none is)."""
        layers, rest = self.lru.fetch_nearest_cache(_MODEL_KEY, prompt)
        if layers is None:
            return DocumentCache(make_prompt_cache(model))
        return DocumentCache(layers, list(prompt[: len(prompt) - len(rest)]))

    def keep(self, doc: DocumentCache) -> None:
        """File `doc` under the prompt it covers (prompts it extends are dropped: it holds them too). The caller
        hands it over: it must not change afterwards."""
        n = len(doc.ids)
        if not n or any(getattr(c, "offset", n) != n for c in doc.layers):
            return
        for c in doc.layers:  # kept at the prompt's size: columns past it are room for branches, scratch
            if type(c) is KVCache and c.keys is not None and c.keys.shape[2] > n:
                c.keys, c.values = mx.contiguous(c.keys[..., :n, :]), mx.contiguous(c.values[..., :n, :])
                mx.eval(c.keys, c.values)
        self.lru.insert_cache(_MODEL_KEY, list(doc.ids), doc.layers)

    @property
    def nbytes(self) -> int:
        return int(self.lru.nbytes)

    def __len__(self) -> int:
        return len(self.lru)

    def trim_to(self, n_bytes: int) -> None:
        """Forget least recently used prompts until those kept take at most `n_bytes`."""
        self.lru.trim_to(n_bytes=n_bytes)

    def clear(self) -> None:
        self.lru.trim_to(n_sequences=0)


class CacheBudget:
    """One byte budget over the cache stores of every tier. Eviction order: kept contexts first, then the pause
    tier's documents (least recently used first), then the keystroke tier's; a store never evicts from a tier
    before its own in that order (pause-tier work never evicts a keystroke cache: its own is reset instead)."""

    ORDER = (Tier.PAUSE, Tier.KEYSTROKE)

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self.stores: dict[Tier, CacheStore] = {}

    def join(self, store: CacheStore) -> None:
        """`store` is its tier's store from now on (a reload replaces the old one)."""
        self.stores[store.tier] = store

    def leave(self, tier: Tier) -> None:
        self.stores.pop(tier, None)

    def ordered(self) -> list[CacheStore]:
        return [self.stores[t] for t in self.ORDER if t in self.stores]

    def total_bytes(self) -> int:
        return sum(s.total_bytes() for s in self.stores.values())

    def enforce(self, store: CacheStore | None = None, keep: str | None = None) -> list[str]:
        """Trim kept contexts, then evict LRU documents (never `keep` of `store`), until every store together is
        under budget; returns the evicted document ids. With `store`, only its tier and those before it in
        `ORDER` give way."""
        stores = self.ordered()
        documents = sum(s.document_bytes() for s in stores)
        for s in stores:
            s.contexts.lru.max_bytes = self.budget_bytes
            others = sum(o.contexts.nbytes for o in stores if o is not s)
            s.contexts.trim_to(max(0, self.budget_bytes - documents - others))
        evicted: list[str] = []
        reach = stores if store is None else stores[: stores.index(store) + 1] if store in stores else [store]
        for s in reach:
            evicted += s.evict_until(self, keep if s is store else None)
        if store is not None and keep is not None and self.total_bytes() > self.budget_bytes:
            doc = store.peek(keep)
            if doc is not None:  # a single document larger than what is left keeps nothing between requests
                doc.reset()
        return evicted


class CacheStore:
    """All documents' caches and the kept contexts' for one model (one tier), evicting least-recently-used
    ones to stay under the byte budget it shares (`CacheBudget`): contexts give way first (a document's cache
    serves every keystroke).

    Only the inference worker touches it, so it needs no lock.
    """

    def __init__(self, model: Any, budget_bytes: int, tier: Tier = Tier.KEYSTROKE,
                 budget: CacheBudget | None = None) -> None:
        self.model = model
        self.tier = tier
        self.budget = budget or CacheBudget(budget_bytes)
        self.budget.budget_bytes = budget_bytes
        self.budget.join(self)
        self._docs: OrderedDict[str, DocumentCache] = OrderedDict()
        self.contexts = ContextCache(budget_bytes)
        self.evictions = 0

    @property
    def budget_bytes(self) -> int:
        return self.budget.budget_bytes

    @budget_bytes.setter
    def budget_bytes(self, n: int) -> None:
        self.budget.budget_bytes = n

    def get(self, doc_id: str) -> DocumentCache:
        """The document's cache (created empty if missing), marked most recently used."""
        cache = self._docs.get(doc_id)
        if cache is None:
            cache = DocumentCache(make_prompt_cache(self.model), tier=self.tier)
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
        self.contexts.clear()

    def document_bytes(self) -> int:
        return sum(c.nbytes for c in self._docs.values())

    def total_bytes(self) -> int:
        return self.document_bytes() + self.contexts.nbytes

    def bytes_by_doc(self) -> dict[str, int]:
        return {k: c.nbytes for k, c in self._docs.items()}

    def enforce_budget(self, keep: str | None = None) -> list[str]:
        """Forget kept contexts, then evict LRU documents (never `keep`), until every store sharing the budget
        together is under it; returns evicted document ids (`CacheBudget.enforce`)."""
        return self.budget.enforce(self, keep)

    def evict_until(self, budget: CacheBudget, keep: str | None) -> list[str]:
        """Evict this store's LRU documents (never `keep`) while `budget`'s stores together are over it."""
        evicted = []
        for doc_id in list(self._docs):
            if budget.total_bytes() <= budget.budget_bytes:
                break
            if doc_id == keep:
                continue
            del self._docs[doc_id]
            evicted.append(doc_id)
        self.evictions += len(evicted)
        return evicted

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)
