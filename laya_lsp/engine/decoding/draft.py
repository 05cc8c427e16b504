"""Drafts that cost nothing: what may follow a branch, looked up in the text already on screen.

Prompt lookup, as llama.cpp's n-gram speculation does: the branch's last n tokens (n = 3, 2, 1, the prompt's end
counted in) are looked for in token sequences the engine already holds, and what followed the latest match is
proposed. The sequences, one source each: the prompt with the branch's own tokens so far (the document, its
cross-file chunks and what the branch already wrote), the document's last answers (their branches after their
prompts' end, a cancelled run's partial ones included: typing one more character mostly keeps what comes after
it, accepting a line keeps the rest of the block, and the model repeats its own phrases) and the prompts of the
other open buffers. A draft only ever saves steps: the decode core
keeps what the model itself picks (decode.py), so a wrong draft costs one wider step and changes no output.

How long a draft is comes from `DraftPolicy`: per class of source (source and n) the measured share of draft
tokens the model agreed with, against the measured cost of a step that verifies more rows
(`benchmarks/speculation.py`): a draft is proposed only where the tokens it is expected to save are worth its rows.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from .decode import Draft

# A step of R rows costs about 1 + ROW_COST * (R - 1) one-row steps on the CPU (benchmarks/speculation.py,
# 2026-12-02, embedded model, contexts 64 / 1000, load ~4: 2 rows 1.13 / 1.31x, 4 rows 1.32 / 1.52x, 8 rows
# 1.88 / 2.11x; at load ~9 2 rows cost 1.4-1.7x).
ROW_COST = 0.2
NGRAMS = (3, 2, 1)
MAX_DRAFT = 8
# A class whose measured acceptance says "no draft" still gets a one-token draft this often, so it can recover.
EXPLORE_EVERY = 16
# Answers (branches) kept per document: the model repeats its own phrases from keystroke to keystroke.
ANSWERS_KEPT = 8


def _bytes(ids: list[int]) -> bytes:
    return array("i", ids).tobytes()


def find_after(corpus: bytes, needle: list[int], end: int) -> int:
    """The token index just after the latest occurrence of `needle` in `corpus` (int32 bytes) that ends before
    token `end`, or -1."""
    sub = _bytes(needle)
    stop = end * 4
    while True:
        at = corpus.rfind(sub, 0, stop)
        if at < 0:
            return -1
        if at % 4 == 0:
            return at // 4 + len(needle)
        stop = at + len(sub) - 1  # a match that straddles token boundaries: look further back


@dataclass
class _Acceptance:
    accepted: float = 1.0  # a prior of one agreement in two tries
    tried: float = 2.0
    asked: int = 0

    @property
    def rate(self) -> float:
        return self.accepted / self.tried


@dataclass
class DraftPolicy:
    """Per source class, the measured acceptance (decayed, so it follows the session) and the draft length it
    pays for. Lives as long as the loaded model; used by the inference worker only."""

    max_draft: int = MAX_DRAFT
    row_cost: float = ROW_COST
    decay: float = 0.98
    classes: dict[str, _Acceptance] = field(default_factory=dict)

    def length(self, source: str, available: int, branches: int = 1) -> tuple[int, float]:
        """The draft length with the most tokens expected per unit of step cost (0: not worth a row), and that
        gain over a step without a draft (each draft token is accepted with the class's measured rate, until
        the first one that is not). With k `branches` drafting alike, a step of k(n+1) rows replaces one of k."""
        acc = self.classes.setdefault(source, _Acceptance())
        acc.asked += 1
        a = min(acc.rate, 0.99)
        best, best_gain = 0, 1.0
        plain = 1 + self.row_cost * (branches - 1)
        for n in range(1, min(available, self.max_draft) + 1):
            tokens = (1 - a ** (n + 1)) / (1 - a)  # expected tokens a step writes per branch
            gain = tokens * plain / (1 + self.row_cost * (branches * (n + 1) - 1))
            if gain > best_gain:
                best, best_gain = n, gain
        if best == 0 and available > 0 and acc.asked % EXPLORE_EVERY == 0:
            return 1, 1.0
        return best, best_gain

    def judged(self, source: str, accepted: int, tried: int) -> None:
        acc = self.classes.setdefault(source, _Acceptance())
        acc.accepted = acc.accepted * self.decay + accepted
        acc.tried = acc.tried * self.decay + tried

    def rates(self) -> dict[str, float]:
        return {k: round(v.rate, 3) for k, v in sorted(self.classes.items())}


class PromptLookup:
    """A request's drafter (decode.py's `Drafter`): prompt lookup over its prompt and other named sequences
    (`sources`: (name, token ids), looked through in order)."""

    def __init__(self, prompt: list[int], policy: DraftPolicy, sources: Sequence[tuple[str, list[int]]] = (),
                 branches: int = 1) -> None:
        self.prompt = prompt
        self.policy = policy
        self.branches = branches
        self._prompt_bytes = _bytes(prompt)
        self._others = [(name, _bytes(ids), len(ids), ids) for name, ids in sources if len(ids) > 1]

    @staticmethod
    def after(prompt: list[int], continuation: list[int]) -> list[int]:
        """A sequence that continues where `prompt` ends (an answer), with the prompt's last tokens before it so
        a branch's first tokens find it."""
        return prompt[-max(NGRAMS) :] + continuation

    def propose(self, ids: list[int], limit: int) -> Draft | None:
        best: tuple[float, int, Draft] | None = None
        first: dict[str, tuple[int, list[int]]] = {}  # per class, its first (newest) match: one length to price
        for source, matched, follows in self._matches(ids):
            first.setdefault(source, (matched, follows))
        for source, (matched, follows) in first.items():
            n, gain = self.policy.length(source, min(limit, len(follows)), self.branches)
            if n > 0 and (best is None or (gain, matched) > best[:2]):  # (a tie: the longer match)
                best = (gain, matched, Draft(follows[:n], source))
        return best[2] if best else None

    def judged(self, draft: Draft, accepted: int, tried: int) -> None:
        self.policy.judged(draft.source, accepted, tried)

    def _matches(self, ids: list[int]) -> list[tuple[str, int, list[int]]]:
        """Per source, the continuation after the longest n-gram match of the branch's end (and that n)."""
        m = self.policy.max_draft
        tail = (self.prompt[-max(NGRAMS):] + ids)[-max(NGRAMS):]
        out: list[tuple[str, int, list[int]]] = []
        own = self._prompt_bytes + _bytes(ids)
        total = len(self.prompt) + len(ids)
        seqs = [("doc", own, total, None), *self._others]
        for source, corpus, length, seq in seqs:
            for n in NGRAMS:
                if n > len(tail) or length <= n:
                    continue
                at = find_after(corpus, tail[-n:], length - 1)  # (at least one token follows the match)
                if at < 0:
                    continue
                if seq is not None:
                    follows = seq[at : at + m]
                else:  # the prompt, then the branch's own tokens
                    p = len(self.prompt)
                    follows = (
                        (self.prompt[at : at + m] + ids[: max(0, at + m - p)]) if at < p else ids[at - p : at - p + m]
                    )
                out.append((f"{source}:{n}", n, follows))
                break
        return out


class DraftBook:
    """What drafting keeps across requests, on the inference worker: the learned policy and each document's
    last answer."""

    def __init__(self, max_draft: int = MAX_DRAFT) -> None:
        self.policy = DraftPolicy(max_draft=max_draft)
        self._answers: dict[str, list[list[int]]] = {}

    def drafter(
        self, doc_id: str, prompt: list[int], buffers: list[list[int]], branches: int = 1
    ) -> PromptLookup | None:
        """A request's drafter: its prompt, the document's last answers, the other buffers (None: off)."""
        if self.policy.max_draft <= 0:
            return None
        sources = [("answer", seq) for seq in self._answers.get(doc_id, [])]
        sources += [("buffers", ids) for ids in buffers]
        return PromptLookup(prompt, self.policy, sources, branches)

    def answered(self, doc_id: str, prompt: list[int], branches: list[list[int]]) -> None:
        """Keep an answer's branches, newest first, with the last ANSWERS_KEPT answers of the document."""
        kept = self._answers.get(doc_id, [])
        self._answers[doc_id] = ([PromptLookup.after(prompt, ids) for ids in branches if ids] + kept)[:ANSWERS_KEPT]

    def forget(self, doc_id: str) -> None:
        self._answers.pop(doc_id, None)
