"""Where a text may be cut so that its tokens are the tokens of the parts, one after the other.

A `tokenizers` pipeline normalizes the text, splits it into pre-tokens and runs the model (BPE, ...) on each
pre-token alone. So encode(A + B) == encode(A) + encode(B) whenever (1) normalizing A + B gives the normalized
parts, (2) the pre-tokens of A + B are those of A followed by those of B, and (3) no added token spans the cut.
Which cuts satisfy (2) depends on the pre-tokenizer; the rules below are the ones proven for the pipelines code
models use (the reasoning is in each rule's docstring). Any other pipeline gets no rule: callers then encode the
whole text. Every cut here is a line start (right after "\n"), so an edit re-encodes from its line or just above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The GPT-2 pattern ByteLevel(use_regex=True) applies (StarCoder, DeepSeek-Coder, GPT-2-style BPE).
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
# Qwen2/Qwen2.5 (digits one by one) and Llama 3 / cl100k (up to three digits) share everything around newlines.
QWEN_PATTERNS = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
     r"|\s*[\r\n]+|\s+(?!\S)|\s+"),
)
# Unicode normalization cannot combine across a "\n" (no character composes with it; it is a starter).
LINE_SAFE_NORMALIZERS = {"NFC", "NFD", "NFKC", "NFKD"}
# ... and the canonical forms never turn a visible character into blanks (NFKC maps "¨" to " \u0308"), so the
# rules that look at the blanks after a line start hold on the normalized text too (Qwen2.5's tokenizer is NFC).
BLANK_SAFE_NORMALIZERS = {"NFC", "NFD"}


def _after_newline_any(text: str, cut: int) -> bool:
    """A first pre-tokenizer step splits after every "\n": pre-tokens never span a line start, and later steps
    (ByteLevel, Digits, ...) only work inside the pieces it made."""
    return True


def _after_newline_qwen(text: str, cut: int) -> bool:
    """Qwen's pattern: only `\\s*[\\r\\n]+`, ` ?[^\\s..]+[\\r\\n]*` and the `\\s+` forms can hold a "\n", and the first
    two end at the last newline of a whitespace run. The cut is safe when the next line's leading blanks are followed
    by a visible character: that run holds no newline, so the match holding the "\n" ends at the cut both in A + B and
    in A alone, and no lookahead reaches over it. (str.isspace covers every character the regex's \\s matches.)"""
    i = cut
    while i < len(text) and text[i] in " \t":
        i += 1
    return i < len(text) and not text[i].isspace()


def _after_newline_gpt2(text: str, cut: int) -> bool:
    """GPT-2's pattern: whitespace runs end with `\\s+(?!\\S)`, whose lookahead would move a trailing blank to the
    next pre-token. The cut is safe when the "\n" is a whitespace run of its own (a visible character before it)
    and a visible character follows: then "\n" is one pre-token in A + B and in A alone."""
    return cut >= 2 and not text[cut - 2].isspace() and cut < len(text) and not text[cut].isspace()


@dataclass(frozen=True)
class CutRule:
    """Which line starts of a text are safe cuts for one tokenizer."""

    name: str
    safe_at: Callable[[str, int], bool]

    def split(self, text: str) -> list[str]:
        """`text` in pieces cut at its safe line starts (joined, they give `text` back)."""
        pieces: list[str] = []
        begin = 0
        newline = text.find("\n")
        while newline >= 0:
            cut = newline + 1
            if cut < len(text) and self.safe_at(text, cut):
                pieces.append(text[begin:cut])
                begin = cut
            newline = text.find("\n", cut)
        if begin < len(text):
            pieces.append(text[begin:])
        return pieces


def _steps(node: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not node:
        return []
    return list(node.get("pretokenizers", [])) if node.get("type") == "Sequence" else [node]


def _normalizers(node: dict[str, Any] | None) -> list[str]:
    if not node:
        return []
    if node.get("type") == "Sequence":
        return [n.get("type", "?") for n in node.get("normalizers", [])]
    return [node.get("type", "?")]


def _splits_after_newline(step: dict[str, Any]) -> bool:
    pattern = step.get("pattern") or {}
    return (step.get("type") == "Split" and (pattern.get("String") == "\n" or pattern.get("Regex") == "\n")
            and step.get("behavior") in ("MergedWithPrevious", "Isolated") and not step.get("invert"))


def _added_tokens_safe(added: list[dict[str, Any]]) -> bool:
    """No added token can span a cut: none strips neighbouring blanks, none holds a "\n" before its last character."""
    return all(not t.get("lstrip") and not t.get("rstrip") and "\n" not in t.get("content", "")[:-1] for t in added)


def cut_rule(spec: dict[str, Any]) -> CutRule | None:
    """The cut rule proven for this tokenizer.json pipeline, or None (encode whole texts)."""
    model = spec.get("model") or {}
    if model.get("dropout") or not _added_tokens_safe(spec.get("added_tokens") or []):
        return None
    normalizers = _normalizers(spec.get("normalizer"))
    steps = _steps(spec.get("pre_tokenizer"))
    if not steps:
        return None
    if _splits_after_newline(steps[0]) and set(normalizers) <= LINE_SAFE_NORMALIZERS:
        return CutRule("every line start", _after_newline_any)
    if not set(normalizers) <= BLANK_SAFE_NORMALIZERS:
        return None
    last = steps[-1]
    if (len(steps) == 2 and steps[0].get("type") == "Split" and (steps[0].get("pattern") or {}).get("Regex")
            in QWEN_PATTERNS and steps[0].get("behavior") == "Isolated" and not steps[0].get("invert")
            and last.get("type") == "ByteLevel" and not last.get("use_regex") and not last.get("add_prefix_space")):
        return CutRule("line starts before a visible character (Qwen/Llama 3 pattern)", _after_newline_qwen)
    if (last.get("type") == "ByteLevel" and last.get("use_regex", True) and not last.get("add_prefix_space")
            and all(s.get("type") == "Digits" for s in steps[:-1])):
        return CutRule("lines between visible characters (GPT-2 pattern)", _after_newline_gpt2)
    return None
