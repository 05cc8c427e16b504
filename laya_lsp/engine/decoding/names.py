"""Steering decoding towards names that exist: a logits processor over a token trie (monitor-guided decoding).

The analysis (syntax/analysis.py, outside the engine) says which names may come at the cursor and after a few
receivers (`self.`); the engine knows only strings and token ids. `TokenTrie` is built once per model
(`LoadedModel.token_trie`) from the tokenizer's own token texts, so it works for any mlx-lm model.
`steering_processor` turns a `NameSteer` into mlx-lm's `(tokens so far, logits) -> logits`, a pure function of
its arguments: each row's state (which name prefix it is inside) is read from its tokens, so a verifier may apply
it at any drafted position.

At a trigger the next identifier must be (mask) or is pushed towards (bias) a name of the set: a token that
starts or continues an identifier is allowed when the identifier it makes is a prefix of a name, or a whole name
followed by other characters; tokens that start no identifier (brackets, quotes, numbers, blanks) are never
touched. Once the identifier ends the row is free again. An unknown state (a prefix no name has) is never
constrained, so the mask cannot leave a row without a token.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

import mlx.core as mx
import numpy as np

IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
IDENT = IDENT_START | frozenset("0123456789")
_BLANKS = frozenset(" \t")
_MEMBER_TAIL = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*)(?:\.|->|::)([\w$]*)$")
_TAIL_CHARS = 96  # how much generated text a row's state is read from (a name chain fits; nothing grows)
_NAME_END = re.compile(r"[A-Za-z_$][\w$]*$")
_NAMES = re.compile(r"[A-Za-z_$][\w$]*")
_EXPRESSION_AFTER = tuple("=([{,+-*/%<>!&|^~:")
_EXPRESSION_WORDS = frozenset({"return", "if", "elif", "while", "in", "not", "and", "or", "yield", "await", "assert",
                               "else", "is", "del", "raise", "new", "typeof", "throw", "case"})


@dataclass(frozen=True)
class NameSet:
    """Names one trigger may continue with; `penalty` is subtracted from the logit of an identifier token that
    leaves the set (math.inf: a hard mask)."""

    names: frozenset[str]
    penalty: float = math.inf


@dataclass(frozen=True)
class NameSteer:
    """What the analysis knows at a completion's cursor, as plain strings.

    `first`: the identifier the completion starts with (None: not a trigger, or the analysis cannot see);
    `typed`: identifier characters already typed before the cursor (the start of that identifier);
    `members`: for a receiver the model may write (`self`), the names that may follow `receiver.`;
    `scope`: the names in scope, for an identifier the model starts where an expression starts (after `=`, `(`,
    `,`, an operator, `return`) on the cursor's line (names the line itself writes join them); `line`: the
    cursor's line before `typed` (where a receiver or a string may have started)."""

    first: NameSet | None = None
    typed: str = ""
    members: Mapping[str, NameSet] = field(default_factory=dict)
    scope: NameSet | None = None
    line: str = ""

    @property
    def empty(self) -> bool:
        return self.first is None and not self.members and self.scope is None


class _Node:
    __slots__ = ("children", "ids", "terminal")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.ids: list[int] = []  # tokens whose text ends here (token trie)
        self.terminal = False  # a whole name ends here (name trie)


def name_trie(names: frozenset[str]) -> _Node:
    """A character trie of `names`."""
    root = _Node()
    for name in names:
        node = root
        for ch in name:
            node = node.children.setdefault(ch, _Node())
        node.terminal = True
    return root


class TokenTrie:
    """The vocabulary as a character trie of token texts, with the per-state base masks; built once per model."""

    PIECE = 4096  # token texts per piece when built in pieces (`in_pieces`): ~25 ms of Python here

    def __init__(self, texts: list[str], vocab: int) -> None:
        self._begin(vocab)
        self._insert(texts, 0, vocab)
        self._end()

    @classmethod
    def in_pieces(cls, texts: list[str], vocab: int) -> Generator[None, None, TokenTrie]:
        """The same trie built PIECE texts at a time, yielding after each piece (a 150k vocabulary takes ~1 s of
        Python: as idle work, a request that arrives meanwhile waits for one piece only); returns the trie."""
        trie = cls.__new__(cls)
        trie._begin(vocab)
        for lo in range(0, vocab, cls.PIECE):
            trie._insert(texts, lo, min(lo + cls.PIECE, vocab))
            yield
        trie._end()
        return trie

    def _begin(self, vocab: int) -> None:
        self.vocab = vocab
        self.root = _Node()
        self._starts = np.zeros(vocab, dtype=bool)  # after leading blanks, the token starts an identifier
        self._continues = np.zeros(vocab, dtype=bool)  # the token's first character continues an identifier
        self._subtree: dict[int, list[int]] = {}

    def _insert(self, texts: list[str], lo: int, hi: int) -> None:
        for i in range(lo, min(hi, len(texts))):
            text = texts[i]
            if not text:
                continue
            node = self.root
            for ch in text:
                node = node.children.setdefault(ch, _Node())
            node.ids.append(i)
            body = text.lstrip(" \t")
            self._starts[i] = bool(body) and body[0] in IDENT_START and "\n" not in text[: len(text) - len(body)]
            self._continues[i] = text[0] in IDENT

    def _end(self) -> None:
        self.free_before = ~self._starts  # before a name: tokens that start none are free
        self.free_after = ~self._continues  # after a whole name: tokens that end it are free

    def subtree(self, node: _Node) -> list[int]:
        """Every token id at or below `node`."""
        got = self._subtree.get(id(node))
        if got is None:
            got = list(node.ids)
            for child in node.children.values():
                got += self.subtree(child)
            self._subtree[id(node)] = got
        return got

    def allowed(self, names: _Node, before: bool) -> np.ndarray:
        """Tokens that may come with the name trie at `names`: `before` a name (blanks may lead) or inside one."""
        mask = (
            self.free_before if before else (self.free_after if names.terminal else np.zeros(self.vocab, bool))
        ).copy()
        out: list[int] = []
        starts = [self.root]
        if before:  # leading blanks (any mix of spaces and tabs), then the name: " foo" after `return`
            for node in starts:
                starts += [child for ch, child in node.children.items() if ch in _BLANKS]
        for node in starts:
            self._walk(node, names, out, top=True)
        mask[out] = True
        return mask

    def _walk(self, tok: _Node, names: _Node, out: list[int], top: bool) -> None:
        for ch, child in tok.children.items():
            if ch in IDENT:
                sub = names.children.get(ch)
                if sub is not None:
                    out += child.ids
                    self._walk(child, sub, out, top=False)
            elif not top and names.terminal:  # the name ends inside this token
                out += self.subtree(child)


def _row_state(steer: NameSteer, gen: str) -> tuple[NameSet, frozenset[str], str, bool] | None:
    """(names, names the line wrote, the prefix typed of a name, before any character of it) for a row that
    generated `gen`, or None where it is free."""
    if steer.first is not None:
        body = gen.lstrip(" \t") if not steer.typed else gen
        if all(c in IDENT for c in body):
            return steer.first, frozenset(), steer.typed + body, not (steer.typed + body) and "\n" not in gen
    tail = (steer.line + steer.typed + gen)[-_TAIL_CHARS:]
    if "\n" in gen:  # a later line: its names are the analysis's business no more
        return None
    if steer.members:
        m = _MEMBER_TAIL.search(tail)
        if m is not None and m.group(1) in steer.members:
            return steer.members[m.group(1)], frozenset(), m.group(2), not m.group(2)
    if steer.scope is not None:
        partial = _NAME_END.search(tail)
        prefix = partial.group(0) if partial else ""
        before = tail[: len(tail) - len(prefix)]
        code = before.rstrip()
        if _in_string(before) or code.endswith((".", "->", "::")) or (prefix and prefix[0].isdigit()):
            return None
        word = _NAME_END.search(code)
        if (word is not None and word.group(0) in _EXPRESSION_WORDS and code != before) or (
                word is None and code.endswith(_EXPRESSION_AFTER) and not code.endswith("->")):
            return steer.scope, frozenset(_NAMES.findall(before)), prefix, not prefix
    return None


def _in_string(text: str) -> bool:
    """An odd number of unescaped quotes of one kind: the text ends inside a string (a line's worth of text)."""
    text = text.replace("\\\\", "").replace("\\\"", "").replace("\\'", "")
    return any(text.count(q) % 2 for q in "\"'`")


def steering_processor(trie: TokenTrie, texts: list[str], steer: NameSteer) -> Callable[[mx.array, mx.array], mx.array]:
    """mlx-lm's logits processor for `steer`: rows at a trigger get their name mask or bias, others pass."""
    tries: dict[tuple[int, frozenset[str]], _Node] = {}
    masks: dict[tuple[int, frozenset[str], str, bool], Any] = {}

    def mask_for(names: NameSet, extra: frozenset[str], prefix: str, before: bool) -> Any:
        key = (id(names), extra, prefix, before)
        if key not in masks:
            node: _Node | None = tries.get(key[:2])
            if node is None:
                node = tries[key[:2]] = name_trie(names.names | extra)
            for ch in prefix:
                node = node.children.get(ch) if node is not None else None
            # A prefix no name has (the model left the set where it was only biased): leave the row alone.
            masks[key] = None if node is None else mx.array(trie.allowed(node, before))
        return masks[key]

    def process(history: mx.array, logits: mx.array) -> mx.array:
        rows: list[list[int]] = history.tolist()  # type: ignore[assignment]
        out = []
        changed = False
        for r, ids in enumerate(rows):
            row = logits[r]
            state = _row_state(steer, "".join(texts[i] for i in ids[-_TAIL_CHARS:] if i < len(texts)))
            mask = mask_for(*state) if state is not None else None
            if mask is not None:
                n = min(mask.shape[0], row.shape[0])
                if n < row.shape[0]:
                    mask = mx.concatenate([mask[:n], mx.ones(row.shape[0] - n, dtype=mx.bool_)])
                penalty = state[0].penalty if state is not None else math.inf
                away = mx.array(-math.inf, row.dtype) if math.isinf(penalty) else row - penalty
                row = mx.where(mask, row, away)
                changed = True
            out.append(row)
        return mx.stack(out) if changed else logits

    return process


def _unchanged(_history: mx.array, logits: mx.array) -> mx.array:
    return logits


def deferred_steering(ask: Callable[[], NameSteer | None], trie: Callable[[], TokenTrie], texts: list[str],
                      record: dict[str, Any]) -> Callable[[mx.array, mx.array], mx.array]:
    """A request's steering processor whose names are asked for at its first call (on the worker, after the
    prefill: the analysis runs beside it); from then on a pure function of (tokens so far, logits).
    `record["steered"]` says whether the names came and said anything; `trie` is asked for only then (the model's
    token trie may not be built yet, LoadedModel.token_trie)."""
    ready: list[Callable[[mx.array, mx.array], mx.array]] = []

    def process(history: mx.array, logits: mx.array) -> mx.array:
        if not ready:
            steer = ask()
            record["steered"] = steer is not None and not steer.empty
            ready.append(steering_processor(trie(), texts, steer) if steer and not steer.empty else _unchanged)
        return ready[0](history, logits)

    return process
