"""Token healing's first-token masks, computed from each token's leading blanks.

A completion after typed blanks ("return ") leaves them out of the prompt and asks that the first token start
with them, or be a piece of them (`trailing_blanks`). Whether a token qualifies depends only on its run of
leading spaces/tabs and on whether that run is the whole token, so the vocabulary is grouped by that once, at
load; a mask is then one vectorised pass over the group codes (about a millisecond for Qwen's 151,936 ids), never a
Python loop over the vocabulary on a keystroke, and each blank string's mask is kept.
"""

from __future__ import annotations

from collections import OrderedDict

import mlx.core as mx
import numpy as np

MAX_MASKS = 32  # distinct blank strings kept (a typing session uses a handful)


def trailing_blanks(prefix: str) -> str:
    """Spaces/tabs typed after code on the cursor's line ("return ", "x = ").

    Byte-level BPE tokenizers attach a space to the word after it, so a prompt ending in a lone space asks the
    model for a word without its space, which it almost never saw. The prompt leaves them out instead and the
    first token must start with them (token healing). Indentation alone on a line is left as it is."""
    stripped = prefix.rstrip(" \t")
    if len(stripped) == len(prefix):
        return ""
    line = stripped[stripped.rfind("\n") + 1 :]
    return prefix[len(stripped) :] if line.strip() else ""


class HealMasks:
    """`mask(heal)`: which ids may start a completion whose prompt left out the blanks `heal`."""

    def __init__(self, texts: list[str]) -> None:
        groups: dict[tuple[str, bool], int] = {}
        codes = np.full(len(texts), -1, dtype=np.int32)  # -1: an empty text (unused id), never allowed
        for i, text in enumerate(texts):
            if text:
                lead = text[: len(text) - len(text.lstrip(" \t"))]
                codes[i] = groups.setdefault((lead, len(lead) == len(text)), len(groups))
        self._groups = groups
        self._codes = codes
        self._masks: OrderedDict[str, mx.array] = OrderedDict()

    def mask(self, heal: str) -> mx.array:
        """Bool (vocab,): the token starts with `heal`, or is all blanks and `heal` starts with it."""
        cached = self._masks.get(heal)
        if cached is not None:
            self._masks.move_to_end(heal)
            return cached
        allowed = [code for (lead, whole), code in self._groups.items()
                   if lead.startswith(heal) or (whole and heal.startswith(lead))]
        mask = self._masks[heal] = mx.array(np.isin(self._codes, np.array(allowed, dtype=np.int32)))
        if len(self._masks) > MAX_MASKS:
            self._masks.popitem(last=False)
        return mask
