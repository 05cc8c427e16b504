"""Deduplication and decontamination primitives for corpus.py: word n-gram hashes, MinHash near-duplicates,
n-gram overlap with evaluation sets. Deterministic (crc32 word hashes, seeded permutations), numpy only.
"""
from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WORD = re.compile(r"\w+")
CONTAMINATION_N = 13  # word n-gram length of the overlap test (as in the GPT-3 / StarCoder decontamination)
_word_cache: dict[str, int] = {}


def word_hashes(text: str) -> np.ndarray:
    """Deterministic 32-bit hash per word (crc32, cached)."""
    out = []
    for w in WORD.findall(text):
        h = _word_cache.get(w)
        if h is None:
            h = zlib.crc32(w.encode())
            if len(_word_cache) < 2_000_000:
                _word_cache[w] = h
        out.append(h)
    return np.array(out, dtype=np.uint64)


def ngram_hashes(words: np.ndarray, n: int) -> np.ndarray:
    """Rolling polynomial hash of every word n-gram, kept under 2**61 so it fits uint64."""
    if len(words) < n:
        return np.zeros(0, dtype=np.uint64)
    h = np.zeros(len(words) - n + 1, dtype=np.uint64)
    for k in range(n):
        h = (h * np.uint64(1_000_003) + words[k:len(words) - n + 1 + k]) & np.uint64((1 << 61) - 1)
    return h


def exact_key(text: str) -> bytes:
    """Whitespace-insensitive identity of a file."""
    return hashlib.sha256(" ".join(text.split()).encode()).digest()


class MinHasher:
    """MinHash signatures (64 permutations) over word 5-grams."""

    def __init__(self, perms: int = 64) -> None:
        rng = np.random.default_rng(1234)
        self.a = rng.integers(1, 2**32 - 1, perms, dtype=np.uint64)
        self.b = rng.integers(0, 2**32 - 1, perms, dtype=np.uint64)

    def signature(self, words: np.ndarray) -> np.ndarray | None:
        shingles = np.unique(ngram_hashes(words, 5) & np.uint64(0xFFFFFFFF))
        if len(shingles) < 8:
            return None
        return ((np.outer(shingles, self.a) + self.b) % np.uint64(4294967311)).min(axis=0)


class NearDupIndex:
    """LSH over MinHash signatures: 16 bands of 4 rows; a duplicate agrees on >= `threshold` of the permutations."""

    def __init__(self, perms: int = 64, bands: int = 16, threshold: float = 0.85) -> None:
        self.bands, self.rows, self.threshold = bands, perms // bands, threshold
        self.buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)
        self.sigs: list[np.ndarray] = []

    def seen(self, sig: np.ndarray | None, add: bool = True) -> bool:
        """Whether a near-duplicate of `sig` was added before; adds it when not (and `add`)."""
        if sig is None:
            return False
        keys = [(i, sig[i * self.rows:(i + 1) * self.rows].tobytes()) for i in range(self.bands)]
        for k in keys:
            for j in self.buckets.get(k, ()):
                if (self.sigs[j] == sig).mean() >= self.threshold:
                    return True
        if add:
            for k in keys:
                self.buckets[k].append(len(self.sigs))
            self.sigs.append(sig)
        return False


@dataclass
class EvalSet:
    """The word n-grams of one evaluation set; a corpus file sharing >= `min_overlap` of them is contaminated."""
    name: str
    ngrams: np.ndarray  # sorted unique uint64
    min_overlap: int
    items: int

    def overlap(self, grams: np.ndarray) -> int:
        return int(np.isin(np.unique(grams), self.ngrams, assume_unique=True).sum()) if len(grams) else 0


def eval_set(name: str, texts: list[str], min_overlap: int, common: np.ndarray | None = None) -> EvalSet:
    """N-grams of `texts`, minus `common` ones (boilerplate that also fills unrelated code, e.g. licence text)."""
    grams = [ngram_hashes(word_hashes(t), CONTAMINATION_N) for t in texts]
    uniq = np.unique(np.concatenate(grams)) if grams else np.zeros(0, dtype=np.uint64)
    if common is not None and len(common):
        uniq = uniq[~np.isin(uniq, common)]
    return EvalSet(name, uniq, min_overlap, len(texts))


def humaneval_texts(evals: Path) -> list[str]:
    """prompt + canonical solution + suffix of every HumanEval infilling task (all ids, single and multi line)."""
    texts = set()
    for f in sorted(evals.glob("*.jsonl")):
        for line in f.open():
            r = json.loads(line)
            texts.add(r["prompt"] + r.get("canonical_solution", "") + r.get("suffix", ""))
    return sorted(texts)


def heldout_texts(path: Path, context_lines: int = 3) -> list[str]:
    """The answer of each held-out line-completion item (benchmarks/data/heldout.jsonl) with `context_lines` lines
    either side: a corpus file holding any of its n-grams holds the answer in context. Only the neighbourhood,
    because the items' whole prefixes carry licence and docstring boilerplate that unrelated files share."""
    out = []
    for r in map(json.loads, path.open()) if path.exists() else ():
        before = "\n".join(r["prefix"].split("\n")[-context_lines - 1:])
        after = "\n".join(r["suffix"].split("\n")[:context_lines + 1])
        out.append(before + r["middle"] + after)
    return out
