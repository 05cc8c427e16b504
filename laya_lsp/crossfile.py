"""A bounded ring of code chunks from recently opened, saved and pasted-into files (cross-file context).

Chunks from other files go at the front of the prompt in the model's repository-level format. To keep each
buffer's KV cache useful, a document's selection is a snapshot that changes only in batches (when the ring
changed and `refresh_s` passed), keeps ring order (new chunks append at the end), and leaves out chunks that
repeat each other or text already in the document.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field

MAX_FILE_CHARS = 512 * 1024
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


@dataclass(frozen=True)
class Chunk:
    uri: str
    text: str
    digest: str
    idents: frozenset[str]


def _chunk(uri: str, text: str) -> Chunk:
    return Chunk(uri, text, hashlib.sha1(text.encode()).hexdigest(), frozenset(_IDENT.findall(text)))


def split_chunks(text: str, lines_per_chunk: int = 24, min_chars: int = 40) -> list[str]:
    """Cut a file into chunks of whole lines, starting new chunks at blank lines near the size limit."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    cur: list[str] = []
    for line in lines:
        cur.append(line)
        if len(cur) >= lines_per_chunk or (len(cur) >= lines_per_chunk // 2 and not line.strip()):
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return [c for c in out if len(c.strip()) >= min_chars]


@dataclass
class _Snapshot:
    version: int
    taken: float
    chunks: list[tuple[str, str]] = field(default_factory=list)


class ChunkRing:
    """Chunks of recently used files, oldest first; at most `max_chunks`, `max_per_file` per file."""

    def __init__(self, max_chunks: int = 32, max_per_file: int = 8, lines_per_chunk: int = 24,
                 refresh_s: float = 10.0) -> None:
        self.max_chunks = max_chunks
        self.max_per_file = max_per_file
        self.lines_per_chunk = lines_per_chunk
        self.refresh_s = refresh_s
        self._chunks: OrderedDict[str, Chunk] = OrderedDict()  # digest -> chunk, ring order
        self.version = 0
        self._snapshots: dict[str, _Snapshot] = {}

    def observe_file(self, uri: str, text: str) -> None:
        """(Re)take a file's chunks (on open and save): its old chunks leave, the new ones join at the end."""
        if len(text) > MAX_FILE_CHARS:  # generated or data files: chunking them costs more than they give
            return
        for digest in [d for d, c in self._chunks.items() if c.uri == uri]:
            del self._chunks[digest]
        pieces = split_chunks(text, self.lines_per_chunk)
        # Large files: keep the chunks that define things (most identifiers), in file order.
        if len(pieces) > self.max_per_file:
            keep = sorted(range(len(pieces)), key=lambda i: -len(_IDENT.findall(pieces[i])))[: self.max_per_file]
            pieces = [pieces[i] for i in sorted(keep)]
        for piece in pieces:
            self._add(_chunk(uri, piece))
        self.version += 1

    def observe_paste(self, uri: str, text: str) -> None:
        """Text pasted (or yanked in) to a document is likely relevant elsewhere: keep it as one chunk."""
        if text.count("\n") >= 2 and len(text.strip()) >= 40:
            self._add(_chunk(uri, text))
            self.version += 1

    def _add(self, chunk: Chunk) -> None:
        self._chunks.pop(chunk.digest, None)
        self._chunks[chunk.digest] = chunk
        while len(self._chunks) > self.max_chunks:
            self._chunks.popitem(last=False)

    def __len__(self) -> int:
        return len(self._chunks)

    def chunks_for(self, uri: str, text: str, max_chars: int) -> list[tuple[str, str]]:
        """The chunks to put before `uri`'s prompt: a snapshot refreshed in batches, in ring order."""
        now = time.monotonic()
        snap = self._snapshots.get(uri)
        if snap is not None and (snap.version == self.version or now - snap.taken < self.refresh_s):
            return snap.chunks
        doc_idents = frozenset(_IDENT.findall(text[:MAX_FILE_CHARS]))
        candidates = [c for c in self._chunks.values() if c.uri != uri and c.text.strip() not in text]
        # Most related first for the budget; then back to ring order so additions only append.
        ranked = sorted(candidates, key=lambda c: -len(c.idents & doc_idents) / (1 + len(c.idents)) ** 0.5)
        chosen: set[str] = set()
        used = 0
        for c in ranked:
            if used + len(c.text) > max_chars:
                continue
            chosen.add(c.digest)
            used += len(c.text)
        chunks = [(c.uri, c.text) for c in candidates if c.digest in chosen]
        self._snapshots[uri] = _Snapshot(self.version, now, chunks)
        return chunks

    def texts_besides(self, uri: str) -> list[str]:
        """The ring's chunks of other files (what name analysis reads of them: bounded by the ring's size)."""
        return [c.text for c in self._chunks.values() if c.uri != uri]

    def forget_snapshot(self, uri: str) -> None:
        self._snapshots.pop(uri, None)
