"""Per-document context windows that slide in large steps, so the start of the prompt stays stable while typing."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..loading.fim import PromptBuilder

# After a slide the window holds this share of its budget, so it slides again only after ~25% more text.
REFILL_SHARE = 0.75
# If the window shrinks below this share (the cursor jumped up), it is rebuilt.
MIN_SHARE = 0.25
# No tokenizer packs more characters than this into a token on real text: text further back than
# budget * MAX_CHARS_PER_TOKEN cannot be in the window, so it is never tokenized (huge documents stay cheap).
MAX_CHARS_PER_TOKEN = 16


def _line_start_at_or_after(text: str, index: int) -> int:
    if index <= 0:
        return 0
    nl = text.find("\n", index - 1)
    return len(text) if nl < 0 else nl + 1


@dataclass
class ContextWindow:
    """Remembers where a document's prefix window starts (a line start), moving it only in big steps.

    Encoding is incremental: the window is cut where the tokenizer's cut rule proves the tokens of the pieces add
    up to the tokens of the whole (line starts), and pieces seen on the last call are not encoded again, so a
    keystroke re-encodes only its own piece. Tokenizers without a rule encode the whole window each time.
    """

    start: int = 0
    # Token ids of the pieces the last encode used: only the current window's lines, so it never grows.
    _pieces: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def encode(self, builder: PromptBuilder, text: str) -> list[int]:
        """`builder.encode(text)`, re-encoding only the pieces of `text` not seen on the previous call."""
        rule = builder.cut_rule
        if rule is None:
            return builder.encode(text)
        seen = self._pieces
        used: dict[str, list[int]] = {}
        ids: list[int] = []
        for piece in rule.split(text):
            piece_ids = used.get(piece)
            if piece_ids is None:
                piece_ids = seen.get(piece)
                if piece_ids is None:
                    piece_ids = builder.encode(piece)
                used[piece] = piece_ids
            ids += piece_ids
        self._pieces = used
        return ids

    def prefix_ids(self, builder: PromptBuilder, prefix: str, budget: int) -> tuple[list[int], int]:
        """Token ids of `prefix[start:]` within `budget`; returns (ids, start char offset)."""
        if budget <= 0:
            return [], len(prefix)
        if self.start > len(prefix) or self.start < len(prefix) - budget * MAX_CHARS_PER_TOKEN:
            self.start, ids = self._fit(builder, prefix, int(budget * REFILL_SHARE), budget)
            return ids, self.start
        ids = self.encode(builder, prefix[self.start :])
        too_small = self.start > 0 and len(ids) < MIN_SHARE * budget
        if len(ids) > budget or too_small:
            self.start, ids = self._fit(builder, prefix, int(budget * REFILL_SHARE), budget)
        return ids, self.start

    def _fit(self, builder: PromptBuilder, prefix: str, target: int, budget: int) -> tuple[int, list[int]]:
        """Find a line start from which the prefix takes about `target` tokens (never more than `budget`)."""
        base = max(0, len(prefix) - budget * MAX_CHARS_PER_TOKEN)
        if base:
            snapped = _line_start_at_or_after(prefix, base)
            base = snapped if snapped < len(prefix) else base
        full = self.encode(builder, prefix[base:])
        if len(full) <= target:
            return base, full
        chars_per_token = max((len(prefix) - base) / max(len(full), 1), 0.5)
        estimate = max(base, int(len(prefix) - target * chars_per_token))
        start = _line_start_at_or_after(prefix, estimate)
        if start >= len(prefix):  # no line break after the estimate: start inside the last line
            start = estimate
        ids = self.encode(builder, prefix[start:])
        # The estimate can overshoot on token-dense text; walk forward a line at a time until it holds about
        # `target` tokens, so the next slide is a quarter of the budget away.
        while len(ids) > target:
            nxt = _line_start_at_or_after(prefix, start + 1)
            if nxt >= len(prefix):
                break
            start, ids = nxt, self.encode(builder, prefix[nxt:])
        # One enormous line (minified code): start inside it, still moving only in large steps.
        step = max(1, int(target * chars_per_token) // 8)
        while len(ids) > target and start < len(prefix):
            start = min(len(prefix), start + step)
            ids = self.encode(builder, prefix[start:])
        return start, ids


def suffix_ids(builder: PromptBuilder, suffix: str, budget: int, chars_per_token: float = 6.0) -> list[int]:
    """The first `budget` tokens after the cursor (the suffix does not change while typing at the cursor)."""
    if budget <= 0 or not suffix:
        return []
    window = suffix[: int(budget * chars_per_token) + 1]
    ids = builder.encode(window)
    while len(ids) < budget and len(window) < len(suffix):
        window = suffix[: len(window) * 2]
        ids = builder.encode(window)
    return ids[:budget]


def fim_prompt(builder: PromptBuilder, window: ContextWindow, prefix: str, suffix: str, budget: int,
               suffix_tokens: int, context: list[int] | None = None) -> list[int]:
    """The one prompt layout every model call uses (completions, decisions, code actions): the first
    `suffix_tokens` tokens after the cursor, cross-file `context` ids, and the prefix through the document's
    sliding `window` in what is left of `budget`, framed by the model's FIM format."""
    suf = suffix_ids(builder, suffix, suffix_tokens)
    ctx = context or []
    pre, _start = window.prefix_ids(builder, prefix, budget - len(suf) - len(ctx) - builder.frame_tokens)
    return builder.build(pre, suf, ctx).ids
