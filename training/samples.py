"""Training samples for fill-in-the-middle from token shards: the corpus of shards, and the sample maker that cuts
documents where editors ask and packs them into rows (formats: see train.py's docstring). Pure numpy + tokenizers,
so it runs in the data-loader workers.
"""
from __future__ import annotations

import bisect
import random
from pathlib import Path

import numpy as np
from tokenizer import load_tokens
from tokenizers import Tokenizer

EOT, FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX, FIM_PAD, REPO_NAME, FILE_SEP = range(7)


class Corpus:
    """The token shards of a folder (tokenizer.py encode) as one list of documents; `refresh` adds shards that
    appeared since. Documents are numbered in shard order, so numbers never change as shards are added."""

    VAL_EVERY = 200  # every 200th document of shard-00 is validation

    def __init__(self, folder: Path) -> None:
        self.folder, self.names, self.base = folder, [], [0]
        self.tokens: list[np.ndarray] = []
        self.offsets: list[np.ndarray] = []
        self.meta: list[list] = []
        self.refresh()

    def refresh(self) -> bool:
        """Load shards whose token files are complete and not loaded yet; True when any was."""
        new = sorted(p.name.split(".")[0] for p in self.folder.glob("shard-*.meta.json"))
        new = [n for n in new if n not in self.names]
        for name in new:
            tokens, offsets, meta = load_tokens(self.folder, name)
            self.names.append(name)
            self.tokens.append(tokens)
            self.offsets.append(offsets)
            self.meta.append(meta)
            self.base.append(self.base[-1] + len(meta))
        return bool(new)

    def __len__(self) -> int:
        return self.base[-1]

    def locate(self, d: int) -> tuple[int, int]:
        s = bisect.bisect_right(self.base, d) - 1
        return s, d - self.base[s]

    def doc(self, d: int) -> np.ndarray:
        s, i = self.locate(d)
        return self.tokens[s][self.offsets[s][i]:self.offsets[s][i + 1]]

    def meta_of(self, d: int) -> list:
        s, i = self.locate(d)
        return self.meta[s][i]

    def n_tokens(self) -> int:
        return sum(len(t) for t in self.tokens)

    def validation_docs(self) -> np.ndarray:
        assert self.names and self.names[0] == "shard-00", "shard-00 holds the validation documents"
        return np.arange(0, len(self.meta[0]), self.VAL_EVERY)

    def training_docs(self) -> np.ndarray:
        docs = np.arange(len(self))
        keep = np.ones(len(self), dtype=bool)
        keep[self.validation_docs()] = False
        keep &= np.concatenate([np.diff(o) > 0 for o in self.offsets])
        return docs[keep]


class SampleMaker:
    """Turns documents (token arrays) into training samples. Pure numpy + the tokenizer; one per data worker."""

    def __init__(self, corpus: Corpus, tokenizer_path: str, docs: np.ndarray, seed: int, fim_rate: float = 0.8,
                 spm_rate: float = 0.5, repo_rate: float = 0.1) -> None:
        self.corpus, self.docs = corpus, docs
        self.tok = Tokenizer.from_file(tokenizer_path)
        vocab = self.tok.get_vocab_size()
        self.piece = [self.tok.decode([i], skip_special_tokens=False).encode() for i in range(vocab)]
        # byte-exact pieces: ByteLevel decode of a lone token can be a partial UTF-8 sequence -> use the byte map
        byte_dec = {c: b for b, c in _bytes_to_unicode().items()}
        for t, i in self.tok.get_vocab().items():
            if i >= 7:
                self.piece[i] = bytes(byte_dec[c] for c in t)
        self.ends_nl = np.array([p.endswith(b"\n") for p in self.piece], dtype=bool)
        self.ends_nl[:7] = False
        self.rng = random.Random(seed)
        self.fim_rate, self.spm_rate, self.repo_rate = fim_rate, spm_rate, repo_rate

    def enc(self, s: str) -> list[int]:
        return self.tok.encode(s, add_special_tokens=False).ids if s else []

    def window(self, d: int, max_tokens: int) -> list[np.ndarray]:
        """A random run of whole lines of document d with at most max_tokens tokens, as one array per line."""
        t = self.corpus.doc(d)
        starts = np.concatenate([[0], np.nonzero(self.ends_nl[t])[0] + 1])
        starts = starts[starts < len(t)]
        bounds = np.append(starts, len(t))
        if len(t) > max_tokens:
            a = self.rng.randrange(len(starts))
            lo = int(starts[a])
            b = int(np.searchsorted(bounds, lo + max_tokens, side="right")) - 1
            b = max(b, a + 1)
        else:
            a, b = 0, len(starts)
        return [t[bounds[i]:bounds[i + 1]][:max_tokens] for i in range(a, b)]

    def line_text(self, line: np.ndarray) -> str:
        return b"".join(self.piece[i] for i in line).decode("utf-8", errors="replace")

    def cut(
        self, lines: list[np.ndarray], l1: int, c1: int, l2: int, c2: int
    ) -> tuple[list[int], list[int], list[int]]:
        """Split window at (line l1, char c1) and (line l2, char c2) into prefix, middle, suffix token lists."""
        def cat(ls: list[np.ndarray]) -> list[int]:
            return np.concatenate(ls).tolist() if ls else []

        t1 = self.line_text(lines[l1])
        if l1 == l2:
            pre = cat(lines[:l1]) + self.enc(t1[:c1])
            mid = self.enc(t1[c1:c2])
            suf = self.enc(t1[c2:]) + cat(lines[l1 + 1:])
        else:
            t2 = self.line_text(lines[l2])
            pre = cat(lines[:l1]) + (self.enc(t1[:c1]) if c1 else [])
            mid = (self.enc(t1[c1:]) if c1 else lines[l1].tolist()) + cat(lines[l1 + 1:l2]) + self.enc(t2[:c2])
            suf = self.enc(t2[c2:]) + cat(lines[l2 + 1:])
        return pre, mid, suf

    def is_header(self, line: np.ndarray) -> bool:
        """Does the line open a block (ends with `:` or `{`)? Its last two tokens hold the last character."""
        return b"".join(self.piece[i] for i in line[-2:]).rstrip().endswith((b":", b"{"))

    @staticmethod
    def indent_of(text: str) -> int:
        return len(text) - len(text.lstrip(" \t"))

    def block_body(self, lines: list[np.ndarray]) -> tuple[int, int] | None:
        """(first, last) line of the indented body under a random block header of the window, at most 24 lines."""
        headers = [i for i in range(len(lines) - 1) if self.is_header(lines[i])]
        if not headers:
            return None
        h = self.rng.choice(headers)
        depth = self.indent_of(self.line_text(lines[h]))
        last = h
        for j in range(h + 1, min(len(lines), h + 25)):
            text = self.line_text(lines[j])
            if text.strip() and self.indent_of(text) <= depth:
                break
            last = j
        while last > h and not self.line_text(lines[last]).strip():  # trailing blank lines belong to the suffix
            last -= 1
        return (h + 1, last) if last > h else None

    def fim_points(self, lines: list[np.ndarray]) -> tuple[int, int, int, int]:
        """Where the middle starts and ends (line, char) -- weighted toward where editors ask."""
        r = self.rng.random()
        n = len(lines)
        l1 = self.rng.randrange(n)
        t1 = self.line_text(lines[l1])
        body = t1.rstrip("\n")
        indent = self.indent_of(body)
        u = self.rng.random()
        c1 = 0 if u < 0.35 else indent if u < 0.75 else self.rng.randint(indent, len(body))
        if r < 0.4:  # rest of one line, with or without its newline
            return l1, c1, l1, len(t1) if self.rng.random() < 0.5 else len(body)
        if r < 0.55 and l1 < n - 1:  # cursor at a line's end: the newline and the next 1-3 lines
            l2 = min(n - 1, l1 + self.rng.randint(1, 3))
            return l1, len(body), l2, len(self.line_text(lines[l2]).rstrip("\n"))
        block = self.block_body(lines) if r < 0.75 else None
        if block:  # the body of a block, cursor at its first line's start or after its indentation
            first, last = block
            text = self.line_text(lines[first])
            return first, self.indent_of(text) if self.rng.random() < 0.75 else 0, last, \
                len(self.line_text(lines[last]))
        if r < 0.9:  # whole lines, ending at a line end
            l2 = min(n - 1, l1 + self.rng.randint(1, 8))
            return l1, c1, l2, len(self.line_text(lines[l2]))
        # random character span (Bavarian et al.), at most ~1/3 of the window
        l2 = min(n - 1, l1 + self.rng.randint(0, max(1, n // 3)))
        t2 = self.line_text(lines[l2])
        c2 = self.rng.randint(0, len(t2)) if l2 > l1 else self.rng.randint(c1, len(t1))
        return l1, c1, l2, c2

    def sample(self, max_tokens: int) -> list[int]:
        d = int(self.docs[self.rng.randrange(len(self.docs))])
        head: list[int] = []
        if self.rng.random() < self.repo_rate:
            src, path, _ = self.corpus.meta_of(d)
            other = d + self.rng.choice([-2, -1, 1, 2])
            if 0 <= other < len(self.corpus) and self.corpus.meta_of(other)[0] == src:
                ctx = self.window(other, max_tokens // 3)
                name = src.split("-")[0]
                head = [REPO_NAME] + self.enc(name + "\n") + [FILE_SEP] + self.enc(self.corpus.meta_of(other)[1] + "\n")
                head += np.concatenate(ctx).tolist() if ctx else []
                head += [FILE_SEP] + self.enc(path + "\n")
        lines = self.window(d, max(32, max_tokens - len(head)))
        if not lines:
            return head + [EOT]
        if self.rng.random() >= self.fim_rate:
            return head + np.concatenate(lines).tolist() + [EOT]
        pre, mid, suf = self.cut(lines, *self.fim_points(lines))
        if self.rng.random() < self.spm_rate:
            return head + [FIM_PREFIX, FIM_SUFFIX] + suf + [FIM_MIDDLE] + pre + mid + [EOT]
        return head + [FIM_PREFIX] + pre + [FIM_SUFFIX] + suf + [FIM_MIDDLE] + mid + [EOT]

    def row(self, seq: int) -> list[int]:
        out: list[int] = []
        while len(out) < seq + 1:
            out += self.sample(self.rng.randint(seq // 8, seq))
        return out[: seq + 1]


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte <-> printable-unicode map used by ByteLevel BPE."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))
