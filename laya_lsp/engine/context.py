"""Per-document context windows that slide in large steps, so the start of the prompt stays stable while typing."""

from __future__ import annotations

from dataclasses import dataclass

from .fim import PromptBuilder

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
    """Remembers where a document's prefix window starts (a line start), moving it only in big steps."""

    start: int = 0

    def prefix_ids(self, builder: PromptBuilder, prefix: str, budget: int) -> tuple[list[int], int]:
        """Token ids of `prefix[start:]` within `budget`; returns (ids, start char offset)."""
        if budget <= 0:
            return [], len(prefix)
        if self.start > len(prefix) or self.start < len(prefix) - budget * MAX_CHARS_PER_TOKEN:
            self.start, ids = self._fit(builder, prefix, int(budget * REFILL_SHARE), budget)
            return ids, self.start
        ids = builder.encode(prefix[self.start :])
        too_small = self.start > 0 and len(ids) < MIN_SHARE * budget
        if len(ids) > budget or too_small:
            self.start, ids = self._fit(builder, prefix, int(budget * REFILL_SHARE), budget)
        return ids, self.start

    @staticmethod
    def _fit(builder: PromptBuilder, prefix: str, target: int, budget: int) -> tuple[int, list[int]]:
        """Find a line start from which the prefix takes about `target` tokens (never more than `budget`)."""
        base = max(0, len(prefix) - budget * MAX_CHARS_PER_TOKEN)
        if base:
            snapped = _line_start_at_or_after(prefix, base)
            base = snapped if snapped < len(prefix) else base
        full = builder.encode(prefix[base:])
        if len(full) <= target:
            return base, full
        chars_per_token = max((len(prefix) - base) / max(len(full), 1), 0.5)
        estimate = max(base, int(len(prefix) - target * chars_per_token))
        start = _line_start_at_or_after(prefix, estimate)
        if start >= len(prefix):  # no line break after the estimate: start inside the last line
            start = estimate
        ids = builder.encode(prefix[start:])
        # The estimate can overshoot on token-dense text; walk forward a line at a time until it holds about
        # `target` tokens, so the next slide is a quarter of the budget away.
        while len(ids) > target:
            nxt = _line_start_at_or_after(prefix, start + 1)
            if nxt >= len(prefix):
                break
            start, ids = nxt, builder.encode(prefix[nxt:])
        # One enormous line (minified code): start inside it, still moving only in large steps.
        step = max(1, int(target * chars_per_token) // 8)
        while len(ids) > target and start < len(prefix):
            start = min(len(prefix), start + step)
            ids = builder.encode(prefix[start:])
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
